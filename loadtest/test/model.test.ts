import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  RESERVED_PRINCIPALS,
  durationMs,
  hostId,
  hostWorkspaceIndex,
  levelGroupOfPrincipal,
  measuredPrincipals,
  planStandardBindings,
  planWorkspaces,
  scaleOf,
  validateScenarioFile,
} from "../shared/model.ts";

const file = validateScenarioFile(JSON.parse(readFileSync(new URL("../scenarios/scenarios.json", import.meta.url), "utf8")));

describe("scenario file", () => {
  it("defines the scales the generator offers", () => {
    for (const name of ["smoke", "1k", "10k", "100k", "1M"]) expect(scaleOf(file, name).hosts).toBeGreaterThan(0);
    expect(scaleOf(file, "100k")).toMatchObject({ hosts: 100_000, workspaces: 2000, principals: 10_000 });
    expect(() => scaleOf(file, "2k")).toThrow(/Unknown scale '2k'/);
  });

  it("rejects a malformed file with every problem named", () => {
    expect(() => validateScenarioFile({ seed: "x", scales: { a: { hosts: 0, workspaces: 1, principals: 20, groups: 1 } } })).toThrow(/seed must be a number.*scales\.a\.hosts/);
  });

  it("parses k6 durations", () => {
    expect([durationMs("500ms"), durationMs("20s"), durationMs("2m")]).toEqual([500, 20_000, 120_000]);
    expect(() => durationMs("20")).toThrow(/Invalid duration/);
  });
});

describe("deterministic data model", () => {
  const scale = scaleOf(file, "10k");

  it("plans the same workspace tree for the same seed, parents first, within the depth limit", () => {
    const a = planWorkspaces(file.seed, scale.workspaces, file.tree.maxDepth, file.tree.topLevelShare);
    expect(planWorkspaces(file.seed, scale.workspaces, file.tree.maxDepth, file.tree.topLevelShare)).toEqual(a);
    expect(new Set(a.map((w) => w.name)).size).toBe(scale.workspaces);
    for (const w of a) {
      expect(w.parent).toBeLessThan(w.index);
      expect(w.depth).toBeLessThanOrEqual(file.tree.maxDepth);
      expect(w.depth).toBe(w.parent === -1 ? 1 : a[w.parent]!.depth + 1);
    }
    expect(Math.max(...a.map((w) => w.depth))).toBe(file.tree.maxDepth);
    expect(planWorkspaces(file.seed + 1, scale.workspaces, 4, 0.05)).not.toEqual(a);
  });

  it("spreads hosts over every workspace, with sortable UUID-shaped ids", () => {
    const counts = new Array<number>(scale.workspaces).fill(0);
    for (let h = 0; h < scale.hosts; h++) counts[hostWorkspaceIndex(file.seed, h, scale.workspaces)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan((scale.hosts / scale.workspaces) * 3);
    expect(hostId(255)).toBe("00000000-0000-4000-8000-0000000000ff");
    expect(hostId(9) < hostId(10)).toBe(true);
  });

  it("binds each group to distinct workspaces and never measures the level-group principals", () => {
    const bindings = planStandardBindings(file.seed, scale, 4, 3);
    expect(new Set(bindings.map((b) => `${b.group}/${b.workspace}/${b.role}`)).size).toBe(bindings.length);
    expect(new Set(bindings.map((b) => b.group)).size).toBe(scale.groups);
    const measured = measuredPrincipals(scale, 48);
    expect(measured).toHaveLength(48);
    for (const p of measured) expect(levelGroupOfPrincipal(scale, p)).toBeUndefined();
    const reserved = Array.from({ length: RESERVED_PRINCIPALS }, (_, i) => levelGroupOfPrincipal(scale, scale.principals - 1 - i));
    expect(new Set(reserved)).toEqual(new Set(["tenant", "root", "default"]));
  });
});
