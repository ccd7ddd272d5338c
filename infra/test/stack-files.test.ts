// Stage and prod differ only by configuration, and only where the expectations table says so:
// the table in support/expectations.ts is the one place a reviewer reads the difference.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { STACKS } from "./support/expectations.js";
import { INFRA_DIR, readStackFile } from "./support/stack-config.js";

function leaves(value: unknown, prefix: string, out: Map<string, unknown> = new Map()): Map<string, unknown> {
  if (typeof value === "object" && value !== null && !Array.isArray(value) && !("secure" in value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.set(prefix, value);
  }
  return out;
}

const files = Object.fromEntries(STACKS.map(({ stack }) => [stack, leaves(readStackFile(stack), "")]));

describe("Pulumi.<stack>.yaml", () => {
  it("stage and prod set exactly the same keys", () => {
    expect([...files["stage"]!.keys()].sort()).toEqual([...files["prod"]!.keys()].sort());
  });

  it("differ exactly where the expectations table says, with the listed values", () => {
    const differing = [...files["stage"]!.keys()].filter((k) => JSON.stringify(files["stage"]!.get(k)) !== JSON.stringify(files["prod"]!.get(k)));
    for (const { stack, values } of STACKS) {
      expect(Object.keys(values).sort(), stack).toEqual(differing.sort());
      for (const [key, value] of Object.entries(values)) expect(files[stack]!.get(key), `${stack} ${key}`).toEqual(value);
    }
  });

  it.each(STACKS.map((s) => s.stack))("%s holds secrets only as Pulumi ciphertext", (stack) => {
    const config = readStackFile(stack);
    for (const key of ["gatehouse:databaseUrl", "gatehouse:redisUrl", "gatehouse:authzClientSecret"]) {
      if (key in config) expect(config[key], key).toMatchObject({ secure: expect.any(String) });
    }
    expect(readFileSync(`${INFRA_DIR}Pulumi.${stack}.yaml`, "utf8")).not.toMatch(/(postgres|redis):\/\/[^<\s]*:[^<\s]+@/);
  });

  it("the project runs the compiled program with the Node.js runtime", () => {
    const project = parse(readFileSync(`${INFRA_DIR}Pulumi.yaml`, "utf8")) as Record<string, unknown>;
    expect(project["name"]).toBe("gatehouse");
    expect(project["runtime"]).toMatchObject({ name: "nodejs" });
    expect(project["main"]).toBe("dist/index.js");
  });
});
