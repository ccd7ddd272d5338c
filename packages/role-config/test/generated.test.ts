// CI staleness check: the committed <env>/schema.zed must equal a fresh build from the KSL sources.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildSchema, ENVIRONMENTS, packageRoot, schemaZedFile } from "../src/index.js";

function firstDifference(actual: string, expected: string): string | undefined {
  if (actual === expected) return undefined;
  const a = actual.split("\n");
  const e = expected.split("\n");
  const line = Array.from({ length: Math.max(a.length, e.length) }, (_, i) => i).find((i) => a[i] !== e[i]) ?? 0;
  return `line ${line + 1}: committed ${JSON.stringify(e[line])}, fresh build ${JSON.stringify(a[line])}`;
}

describe.each(ENVIRONMENTS)("%s", (env) => {
  it(`committed ${env}/schema.zed is up to date (run 'pnpm --filter @gatehouse/role-config generate' to refresh)`, () => {
    const committed = readFileSync(`${packageRoot}${schemaZedFile(env)}`, "utf8");
    expect(firstDifference(buildSchema(env), committed)).toBeUndefined();
  });
});
