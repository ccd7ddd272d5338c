import { describe, expect, it } from "vitest";
import { defaultAssetTypes, diffDefaultRolePlans, permissionLevelsFromCatalog, planDefaultRoles, planRoleBinding, type BindingLevel, type DefaultScope } from "@gatehouse/rbac";
import table from "./data/binding-plans.json" with { type: "json" };

const levels = table.levels as Record<string, BindingLevel>;
const levelOf = (p: string) => levels[p];

describe("binding level of a role (migration rules 1-3)", () => {
  it.each(table.roles)("$name", (row) => {
    const plan = planRoleBinding({ name: "r", permissions: row.permissions }, levelOf);
    expect(plan.level).toBe(row.level);
    expect(plan.split).toBe(row.split);
    expect(plan.bindings).toEqual(row.bindings);
    expect(plan.overGrants).toEqual(row.overGrants);
    expect(plan.unclassified).toEqual(row.unclassified ?? []);
  });
});

describe("default roles at three levels (rule 4)", () => {
  const d = table.defaults;
  const roles = (rs: typeof d.before) => rs.map((r) => ({ ...r, scope: r.scope as DefaultScope }));

  it("places each default role under the parent role of its level", () => {
    expect(planDefaultRoles(roles(d.before), levelOf)).toEqual(d.beforePlan);
  });

  it("moves a default role between levels when it needs another level", () => {
    const before = planDefaultRoles(roles(d.before), levelOf);
    const after = planDefaultRoles(roles(d.after), levelOf);
    expect(diffDefaultRolePlans(before, after)).toEqual(d.changes);
    expect(diffDefaultRolePlans(after, after)).toEqual([]);
  });
});

describe("permission levels from the bundled asset types", () => {
  const of = permissionLevelsFromCatalog(defaultAssetTypes());
  it.each([
    ["content-sources:repositories:read", "default"],
    ["patch:system:read", "default"],
    ["advisor:disable-recommendations:write", "root"],
    ["rbac:principal:read", "tenant"],
    ["advisor:*:*", "root"],
    ["rbac:*:*", "tenant"],
    ["*:*:*", "tenant"],
  ])("%s needs %s", (perm, level) => {
    expect(of(perm)).toBe(level);
  });
  it("has no level for permissions outside the catalog", () => {
    expect(of("sources:*:*")).toBeUndefined();
  });
});
