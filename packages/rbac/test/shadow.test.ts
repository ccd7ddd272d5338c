import { describe, expect, it } from "vitest";
import { compareDecisions, createShadowRecorder, type ShadowResult } from "@gatehouse/rbac";

describe("shadow comparison", () => {
  it.each([
    [true, true, "agree-allow", undefined],
    [false, false, "agree-deny", undefined],
    [true, false, "v1-only", "lost-grant"],
    [false, true, "v2-only", "over-grant"],
  ] as const)("v1 %s / v2 %s → %s", (v1, v2, outcome, severity) => {
    const r = compareDecisions(v1, v2, { permission: "patch:system:read", relation: "patch_system_view" });
    expect(r.outcome).toBe(outcome);
    expect(r.severity).toBe(severity);
    expect(r.agree).toBe(severity === undefined);
  });

  it("counts every outcome, forwards only disagreements, and survives a failing sink", () => {
    const seen: ShadowResult[] = [];
    const recorder = createShadowRecorder({
      onDisagreement: (r) => {
        seen.push(r);
        throw new Error("log sink down");
      },
    });
    recorder.record(true, true, { permission: "a:b:read" });
    recorder.record(true, false, { permission: "a:b:read", object: { type: "rbac/workspace", id: "root" } });
    recorder.record(false, true, { permission: "a:b:write" });
    expect(recorder.counters()).toEqual({ "agree-allow": 1, "agree-deny": 0, "v1-only": 1, "v2-only": 1 });
    expect(seen.map((r) => r.outcome)).toEqual(["v1-only", "v2-only"]);
    expect(seen[0]?.message).toContain("at rbac/workspace:root");
  });
});
