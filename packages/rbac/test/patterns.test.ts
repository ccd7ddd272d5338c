import { describe, expect, it } from "vitest";
import { advisePattern, defaultAssetTypes, type AssetTypeFacts } from "@gatehouse/rbac";
import table from "./data/patterns.json" with { type: "json" };

describe("pattern advisor", () => {
  it.each(table.rows)("$name", (row) => {
    const advice = advisePattern(row.facts as AssetTypeFacts);
    expect(advice.pattern).toBe(row.pattern);
    expect(advice.decisionOrder.pattern).toBe(row.decisionOrder);
    expect(advice.fullTree.pattern).toBe(row.fullTree);
    expect(advice.disagreement !== undefined).toBe(row.disagreement);
    expect(advice.reason.length).toBeGreaterThan(10);
    if (row.disagreement) expect(advice.disagreement).toMatch(/decision order gives Pattern \d .* full tree gives Pattern \d/);
  });

  it.each(table.invalidFacts)("rejects invalid facts %j", (facts) => {
    expect(() => advisePattern(facts as unknown as AssetTypeFacts)).toThrow(expect.objectContaining({ code: "invalid-facts" }));
  });
});

describe("bundled asset types", () => {
  const expected: Record<string, number> = {
    "inventory:hosts": 2,
    "inventory:groups": 1,
    "patch:system": 2,
    "advisor:disable-recommendations": 4,
    "content-sources:repositories": 3,
    "config-manager:profile": 4,
    "rbac:principal": 5,
    "rbac:groups": 5,
  };
  it.each(Object.entries(expected))("%s uses Pattern %i", (key, pattern) => {
    expect(defaultAssetTypes().assetTypes.get(key)?.pattern).toBe(pattern);
  });
});
