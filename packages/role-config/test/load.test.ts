import { describe, expect, it } from "vitest";
import { check, RelationshipGraph, type Relationship } from "@gatehouse/evaluator";
import { compileRoleModel, loadRoleConfig, RoleConfigError, v1PermissionRelation } from "../src/index.js";

describe("loadRoleConfig", () => {
  const stage = loadRoleConfig("stage");
  const prod = loadRoleConfig("prod");

  it("includes the default and persona roles", () => {
    const byName = new Map(stage.roles.map((r) => [r.name, r]));
    expect(byName.get("Default access")?.platform_default).toBe(true);
    expect(byName.get("User Access administrator")).toMatchObject({ admin_default: true, access: [{ permission: "rbac:*:*" }] });
    for (const persona of ["Viewer", "Operator", "Administrator"]) expect(byName.has(persona)).toBe(true);
    expect(stage.roles.filter((r) => r.platform_default).map((r) => r.name)).toEqual(["Default access"]);
  });

  it("differs between environments: vulnerability is modelled in stage only, hbi/host#tenant is stage only", () => {
    expect(stage.migratedApps).toContain("vulnerability");
    expect(prod.migratedApps).not.toContain("vulnerability");
    expect(stage.schemaZed).toContain("vulnerability_vulnerability_results_view");
    expect(prod.schemaZed).not.toContain("vulnerability");
    expect(stage.schemaZed).toContain("\tpermission tenant = t_workspace->tenant");
    expect(prod.schemaZed).not.toContain("\tpermission tenant = t_workspace->tenant");
  });

  it("makes the V1 permissions of non-migrated applications assignable to roles", () => {
    expect(stage.migratedApps).not.toContain("cost-management");
    expect(stage.schemaZed).toContain("\tpermission cost_management_aws_account_read = t_cost_management_aws_account_read\n\trelation t_cost_management_aws_account_read: rbac/principal:*");
  });

  it("rejects an unknown environment", () => {
    expect(() => loadRoleConfig("dev" as "stage")).toThrow(RoleConfigError);
  });
});

describe("v1PermissionRelation", () => {
  it.each([
    ["inventory:hosts:read", "inventory_hosts_read"],
    ["cost-management:*:*", "cost_management_all_all"],
    ["vulnerability:system.opt_out:write", "vulnerability_system_opt_out_write"],
    ["*:*:*", "all_all_all"],
  ])("%s -> %s", (v1, relation) => expect(v1PermissionRelation(v1)).toBe(relation));
});

/** A tenant, root/default/team workspaces and a host in `team`, with `role` bound to `user` at `where`. */
function graphWith(env: "stage" | "prod", grants: Array<{ v1: string[]; where: string; user: string }>): RelationshipGraph {
  const graph = new RelationshipGraph(compileRoleModel(env));
  const r = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string, subjectRelation?: string): Relationship => ({
    resourceType,
    resourceId,
    relation,
    subjectType,
    subjectId,
    ...(subjectRelation ? { subjectRelation } : {}),
  });
  graph.add(r("rbac/tenant", "redhat/42", "t_platform", "rbac/platform", env));
  graph.add(r("rbac/workspace", "root", "t_parent", "rbac/tenant", "redhat/42"));
  graph.add(r("rbac/workspace", "default", "t_parent", "rbac/workspace", "root"));
  graph.add(r("rbac/workspace", "team", "t_parent", "rbac/workspace", "default"));
  graph.add(r("hbi/host", "h1", "t_workspace", "rbac/workspace", "team"));
  grants.forEach((g, i) => {
    for (const v1 of g.v1) graph.add(r("rbac/role", `role${i}`, `t_${v1PermissionRelation(v1)}`, "rbac/principal", "*"));
    graph.add(r("rbac/role_binding", `rb${i}`, "t_role", "rbac/role", `role${i}`));
    graph.add(r("rbac/role_binding", `rb${i}`, "t_subject", "rbac/principal", `redhat/${g.user}`));
    const [type, id] = g.where.split(":") as [string, string];
    graph.add(r(type, id, "t_binding", "rbac/role_binding", `rb${i}`));
  });
  return graph;
}

const can = (graph: RelationshipGraph, resource: string, permission: string, user: string): boolean => {
  const [type, id] = resource.split(":") as [string, string];
  return check(graph, { type, id }, permission, { type: "rbac/principal", id: `redhat/${user}` });
};

describe("the compiled model authorises as configured", () => {
  it("workspace management permissions inherit from the tenant down the workspace tree", () => {
    const graph = graphWith("stage", [
      { v1: ["rbac:*:*"], where: "rbac/tenant:redhat/42", user: "admin" },
      { v1: ["inventory:groups:read", "rbac:role_binding:view"], where: "rbac/workspace:default", user: "viewer" },
    ]);
    for (const permission of [
      "view",
      "create",
      "edit",
      "move",
      "delete",
      "role_binding_view",
      "role_binding_grant",
      "role_binding_revoke",
      "rbac_roles_read",
      "rbac_roles_write",
      "rbac_groups_write",
      "rbac_principal_read",
    ]) {
      expect(can(graph, "rbac/workspace:team", permission, "admin")).toBe(permission.startsWith("rbac_") || permission.startsWith("role_binding"));
    }
    expect(can(graph, "rbac/workspace:team", "view", "viewer")).toBe(true);
    expect(can(graph, "rbac/workspace:root", "view", "viewer")).toBe(false);
    expect(can(graph, "rbac/workspace:team", "role_binding_view", "viewer")).toBe(true);
    expect(can(graph, "rbac/workspace:team", "role_binding_grant", "viewer")).toBe(false);
  });

  it("patch_system_edit on a host needs inventory_host_view and patch_system_edit_assigned (contingent)", () => {
    const onlyPatch = graphWith("stage", [{ v1: ["patch:system:write"], where: "rbac/workspace:root", user: "p" }]);
    expect(can(onlyPatch, "hbi/host:h1", "patch_system_edit", "p")).toBe(false);
    const both = graphWith("stage", [
      { v1: ["patch:system:write"], where: "rbac/workspace:root", user: "p" },
      { v1: ["inventory:hosts:read"], where: "rbac/workspace:team", user: "p" },
    ]);
    expect(can(both, "hbi/host:h1", "patch_system_edit", "p")).toBe(true);
    expect(can(both, "hbi/host:h1", "patch_system_view", "p")).toBe(false);
    expect(can(both, "hbi/host:h1", "view", "p")).toBe(true);
    expect(can(both, "hbi/host:h1", "update", "p")).toBe(false);
  });

  it("persona roles grant what their names say", () => {
    const config = loadRoleConfig("prod");
    const access = (name: string): string[] => config.roles.find((r) => r.name === name)!.access!.map((a) => a.permission);
    const graph = graphWith("prod", [
      { v1: access("Viewer"), where: "rbac/workspace:default", user: "viewer" },
      { v1: access("Operator"), where: "rbac/workspace:default", user: "operator" },
      { v1: access("Administrator"), where: "rbac/workspace:default", user: "administrator" },
    ]);
    const matrix = ["viewer", "operator", "administrator"].map((u) => [
      can(graph, "hbi/host:h1", "view", u),
      can(graph, "hbi/host:h1", "update", u),
      can(graph, "hbi/host:h1", "advisor_recommendation_results_edit", u),
      can(graph, "rbac/workspace:team", "role_binding_grant", u),
    ]);
    expect(matrix).toEqual([
      [true, false, false, false],
      [true, true, true, false],
      [true, true, true, true],
    ]);
  });
});
