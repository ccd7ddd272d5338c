// The k6 scripts run in k6's runtime, not Node: they may import only k6 modules and the shared,
// runtime-neutral modules. (Type-checking against @types/k6 is the typecheck script's job.)
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const files = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path.join(dir, e.name)] : [],
  );
const importsOf = (file: string): string[] => [...readFileSync(path.join(root, file), "utf8").matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]!);

describe("k6 scripts", () => {
  it("import only k6 modules, their own helpers and the shared modules", () => {
    const k6 = files("k6");
    expect(k6).toEqual(expect.arrayContaining(["k6/check-mix.ts", "k6/pattern2-list.ts", "k6/pattern1-list.ts", "k6/management-mix.ts"]));
    for (const file of k6) {
      for (const spec of importsOf(file)) {
        const ok = spec === "k6" || spec.startsWith("k6/") || spec.startsWith("./lib/") || spec.startsWith("../shared/") || spec.startsWith("../../shared/");
        expect(ok, `${file} imports ${spec}`).toBe(true);
      }
    }
  });

  it("keep the shared modules free of Node and k6 APIs", () => {
    for (const file of files("shared")) {
      for (const spec of importsOf(file)) expect(spec.startsWith("./"), `${file} imports ${spec}`).toBe(true);
      expect(readFileSync(path.join(root, file), "utf8")).not.toMatch(/\b(process|Buffer|require|__ENV|open)\s*[.(]/);
    }
  });

  it("read the shared scenario file and every scenario the Node driver runs", () => {
    const scripts = files("k6")
      .filter((f) => !f.includes("/lib/"))
      .map((f) => readFileSync(path.join(root, f), "utf8"))
      .join("\n");
    for (const name of ["check-mix", "pattern2-list", "pattern1-checkbulk", "pattern1-check", "management-mix"]) expect(scripts).toContain(`"${name}"`);
    expect(scripts).toContain('open("../scenarios/scenarios.json")');
  });

  it("warm up before the measured scenario and judge latency on the measured one only", () => {
    for (const [file, measured] of [
      ["k6/check-mix.ts", "checkMix"],
      ["k6/pattern2-list.ts", "pattern2"],
      ["k6/management-mix.ts", "management"],
    ] as const) {
      const text = readFileSync(path.join(root, file), "utf8");
      expect(text, file).toContain(`withWarmup("${measured}", {`);
      expect(text, file).toMatch(new RegExp(`thresholdsOf\\([^)]*, "${measured}"\\)`));
    }
    const common = readFileSync(path.join(root, "k6/lib/common.ts"), "utf8");
    expect(common).toContain("`${metric}{scenario:${measuredScenario}}`");
    expect(common).toMatch(/env\.smoke \|\| latency\.length === 0 \? errors/);
  });
});
