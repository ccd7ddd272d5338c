import { describe, expect, it } from "vitest";
import { compile, formatDiagnostic } from "../src/index.js";
import { firstDifference, fixtureSources, fixtureZed, type Env } from "./fixtures.js";

describe.each<Env>(["stage", "prod"])("rbac-config %s", (env) => {
  it("compiles src/*.ksl + rbac_v1_permissions.json to the committed schema.zed byte for byte", () => {
    const result = compile(fixtureSources(env));
    expect(result.errors.map(formatDiagnostic)).toEqual([]);
    expect(firstDifference(result.zed, fixtureZed(env))).toBeUndefined();
    expect(result.zed.length).toBe(fixtureZed(env).length);
  });

  it("does not depend on the order the input files are given in", () => {
    const reversed = compile([...fixtureSources(env)].reverse());
    expect(firstDifference(reversed.zed, fixtureZed(env))).toBeUndefined();
  });
});

describe("firstDifference", () => {
  it("names the first differing line", () => {
    expect(firstDifference("a\nb\nc", "a\nx\nc")).toContain("line 2");
    expect(firstDifference("same", "same")).toBeUndefined();
  });
});
