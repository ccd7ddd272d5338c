import { check, compileSchema, parseSchema, RelationshipGraph, type Relationship } from "@gatehouse/evaluator";
import {
  affectedMembers,
  changedRelationsOf,
  computeConfigImpact,
  defaultAssetTypes,
  diffSeededRoles,
  heldV1Permissions,
  planTenantMigration,
  readClosure,
  reseededV1Export,
  tenantResourceId,
  tenantTreeTuples,
  tupleKey,
  unacceptedImpact,
  v1PermissionsAffectedBy,
  v1RolesOf,
  type ImpactSide,
  type ImpactTenant,
  type SeededRole,
  type V1Export,
  type V1Role,
} from "@gatehouse/rbac";
import { describe, expect, it } from "vitest";

// patch:system (Pattern 2: checked at the Default Workspace) and advisor:disable-recommendations
// (Pattern 4: checked at the Root Workspace), modelled as the role configuration models them.
const PERMS = [
  ["patch_system_view_assigned", "patch_system_read"],
  ["advisor_disable_recommendations_view", "advisor_disable_recommendations_read"],
] as const;

function schema(options: { workspaceInherits?: boolean } = {}): string {
  const inherit = options.workspaceInherits ?? true;
  const role = PERMS.map(([p, r]) => `relation t_${r}: rbac/principal:*\npermission ${p} = t_${r}`).join("\n");
  const binding = PERMS.map(([p]) => `permission ${p} = t_subject & t_role->${p}`).join("\n");
  const tenant = PERMS.map(([p]) => `permission ${p} = t_binding->${p}`).join("\n");
  const workspace = PERMS.map(([p]) => `permission ${p} = t_binding->${p}${inherit ? ` + t_parent->${p}` : ""}`).join("\n");
  const def = (name: string, body: string) => `definition ${name} {\n${body}\n}`;
  return [
    def("rbac/principal", ""),
    def("rbac/platform", ""),
    def("rbac/group", "relation t_member: rbac/principal\npermission member = t_member"),
    def("rbac/role", `relation t_child: rbac/role\n${role}`),
    def("rbac/role_binding", `relation t_subject: rbac/group#member\nrelation t_role: rbac/role\n${binding}`),
    def("rbac/tenant", `relation t_platform: rbac/platform\nrelation t_binding: rbac/role_binding\n${tenant}`),
    def("rbac/workspace", `relation t_parent: rbac/workspace | rbac/tenant\nrelation t_tenant: rbac/tenant\nrelation t_binding: rbac/role_binding\n${workspace}`),
  ].join("\n");
}

const catalog = defaultAssetTypes();
const role = (name: string, permissions: string[]): V1Role => ({ name, system: true, access: permissions.map((permission) => ({ permission })) });

/** One organisation: alice in a group holding the seeded role "Patch viewer", bob holding the custom role "Advisor". */
function exportWith(systemRoles: V1Role[]): V1Export {
  return {
    version: 1,
    system_roles: systemRoles,
    tenants: [
      {
        org_id: "o1",
        principals: [{ user_id: "alice" }, { user_id: "bob" }],
        roles: [{ name: "Advisor", access: [{ permission: "advisor:disable-recommendations:read" }] }],
        groups: [
          { name: "Patchers", principals: ["alice"], roles: ["Patch viewer"] },
          { name: "Advisors", principals: ["bob"], roles: ["Advisor"] },
        ],
      },
    ],
  };
}

const ids = { orgId: "o1", tenantId: tenantResourceId("redhat", "o1"), rootWorkspaceId: "root-1", defaultWorkspaceId: "default-1" };

function sideOf(zed: string, systemRoles: V1Role[]) {
  const exp = exportWith(systemRoles);
  const tenant = exp.tenants[0]!;
  const plan = planTenantMigration(exp, tenant, catalog, ids);
  const tuples = [...tenantTreeTuples(ids), ...plan.relationships];
  const graph = new RelationshipGraph(compileSchema(zed));
  for (const t of tuples) graph.add(t as Relationship);
  const side: ImpactSide = {
    check: (r, p, s) => check(graph, r, p, s),
    isDefined: (type, p) => graph.model.isPermission(type, p) || graph.model.isRelation(type, p),
  };
  const held = new Map(tenant.principals.map((p) => [p.user_id, new Set(v1RolesOf(exp, tenant, p).flatMap((s) => s.role.access.map((a) => a.permission)))]));
  return { side, tuples, held, ast: parseSchema(zed) };
}

function impactOf(before: ReturnType<typeof sideOf>, after: ReturnType<typeof sideOf>, beforeRoles: V1Role[], afterRoles: V1Role[]) {
  const seeded = (roles: V1Role[]): SeededRole[] => roles.map((r) => ({ name: r.name, permissions: r.access.map((a) => a.permission) }));
  const seededRoles = diffSeededRoles(seeded(beforeRoles), seeded(afterRoles));
  const changed = affectedMembers(before.ast, after.ast, changedRelationsOf(before.tuples, after.tuples, tupleKey));
  const tenants: ImpactTenant[] = [{ orgId: "o1", ids, principals: ["alice", "bob"].map((u) => ({ userId: u, heldBefore: before.held.get(u)!, heldAfter: after.held.get(u)! })) }];
  return computeConfigImpact({
    catalog,
    domain: "redhat",
    tenants,
    before: before.side,
    after: after.side,
    affected: (type, p) => changed.has(`${type}#${p}`),
    v1Affected: v1PermissionsAffectedBy(seededRoles, seeded(beforeRoles), seeded(afterRoles)),
    seededRoles,
  });
}

describe("configuration impact", () => {
  const patchViewer = [role("Patch viewer", ["patch:system:read"])];

  it("an unchanged configuration re-evaluates nothing and reports nothing", () => {
    const a = sideOf(schema(), patchViewer);
    const impact = impactOf(a, sideOf(schema(), patchViewer), patchViewer, patchViewer);
    expect(impact.summary).toMatchObject({ permissionsEvaluated: 0, checks: 0, lost: 0, gained: 0, parityBroken: 0 });
    expect(impact.permissions).toEqual([]);
  });

  it("a permission removed from a seeded role: its holders lose it, v1 loses it too (no parity flip)", () => {
    const emptied = [role("Patch viewer", [])];
    const impact = impactOf(sideOf(schema(), patchViewer), sideOf(schema(), emptied), patchViewer, emptied);
    expect(impact.summary).toMatchObject({ lost: 1, gained: 0, parityBroken: 0, seededRolesChanged: 1 });
    expect(impact.seededRoles).toEqual([{ name: "Patch viewer", change: "changed", permissionsAdded: [], permissionsRemoved: ["patch:system:read"], flagsChanged: [], versionNotRaised: true }]);
    const [row] = impact.permissions;
    expect(row).toMatchObject({ v2Permission: "patch_system_view_assigned", checkedAt: "default", lost: 1, gained: 0, v1Permissions: ["patch:system:read"] });
    expect(row!.examples.lost).toEqual([{ orgId: "o1", userId: "alice", object: { type: "rbac/workspace", id: "default-1" } }]);
    expect(impact.organisations).toEqual([
      {
        orgId: "o1",
        lost: 1,
        gained: 0,
        parityBroken: 0,
        parityRestored: 0,
        examples: [{ v2Permission: "patch_system_view_assigned", userId: "alice", object: { type: "rbac/workspace", id: "default-1" } }],
      },
    ]);
    // Only what the change touches is evaluated: the patch permission, not advisor's.
    expect(impact.summary.permissionsEvaluated).toBe(1);
    expect(unacceptedImpact(impact, []).map((p) => p.v2Permission)).toEqual(["patch_system_view_assigned"]);
    expect(unacceptedImpact(impact, ["patch:system:read"])).toEqual([]);
    expect(unacceptedImpact(impact, ["patch_system_view_assigned"])).toEqual([]);
    expect(unacceptedImpact(impact, ["*"])).toEqual([]);
    expect(unacceptedImpact(impact, ["advisor:disable-recommendations:read"])).toHaveLength(1);
  });

  it("a permission added to a seeded role: its holders gain it, nobody loses anything", () => {
    const widened = [role("Patch viewer", ["patch:system:read", "advisor:disable-recommendations:read"])];
    const impact = impactOf(sideOf(schema(), patchViewer), sideOf(schema(), widened), patchViewer, widened);
    expect(impact.summary).toMatchObject({ lost: 0, gained: 1, parityBroken: 0 });
    expect(impact.permissions[0]).toMatchObject({ v2Permission: "advisor_disable_recommendations_view", checkedAt: "root", gained: 1 });
    expect(impact.permissions[0]!.examples.gained[0]).toMatchObject({ userId: "alice", object: { type: "rbac/workspace", id: "root-1" } });
    expect(unacceptedImpact(impact, [])).toEqual([]);
  });

  it("a level change in the schema (workspaces stop inheriting from above): the Default Workspace check no longer sees root bindings, v1 parity flips", () => {
    // bob's Advisor role is bound at the Root Workspace and checked there: unaffected. Bind alice's
    // patch role at the root (a role holding a root-level permission) and it reaches the Default
    // Workspace only through inheritance.
    const rootLevel = [role("Patch viewer", ["patch:system:read", "advisor:disable-recommendations:read"])];
    const impact = impactOf(sideOf(schema(), rootLevel), sideOf(schema({ workspaceInherits: false }), rootLevel), rootLevel, rootLevel);
    const patch = impact.permissions.find((p) => p.v2Permission === "patch_system_view_assigned");
    expect(patch).toMatchObject({ lost: 1, parityBroken: 1 });
    expect(patch!.examples.parityBroken[0]).toMatchObject({ userId: "alice" });
    expect(impact.permissions.find((p) => p.v2Permission === "advisor_disable_recommendations_view")).toBeUndefined();
    expect(impact.summary.parityBroken).toBe(1);
    expect(impact.seededRoles).toEqual([]);
  });

  it("a permission the new schema no longer defines is unverifiable and its holders lose it", () => {
    const before = sideOf(schema(), patchViewer);
    const zed = schema().replace(/permission patch_system_view_assigned = t_binding->patch_system_view_assigned \+ t_parent->patch_system_view_assigned/, "");
    const after = sideOf(zed, patchViewer);
    const impact = impactOf(before, after, patchViewer, patchViewer);
    expect(impact.unverifiable).toEqual([{ v2Permission: "patch_system_view_assigned", objectType: "rbac/workspace", v1Permissions: ["patch:system:read"], heldGrants: 1 }]);
    expect(impact.summary).toMatchObject({ lost: 1, parityBroken: 1, unverifiable: 1 });
  });
});

describe("which members a change can affect", () => {
  it("follows references, arrows and subject sets to every reader", () => {
    const a = parseSchema(schema());
    const b = parseSchema(schema().replace("permission member = t_member", "permission member = nil"));
    const changed = affectedMembers(a, b);
    expect(changed.has("rbac/group#member")).toBe(true);
    expect(changed.has("rbac/role_binding#t_subject")).toBe(true);
    expect(changed.has("rbac/role_binding#patch_system_view_assigned")).toBe(true);
    expect(changed.has("rbac/workspace#patch_system_view_assigned")).toBe(true);
    expect(changed.has("rbac/role#patch_system_view_assigned")).toBe(false);
  });

  it("a changed relationship marks only what reads its relation", () => {
    const a = parseSchema(schema());
    const changed = affectedMembers(a, a, ["rbac/role#t_patch_system_read"]);
    expect([...changed].filter((k) => k.endsWith("advisor_disable_recommendations_view"))).toEqual([]);
    expect(changed.has("rbac/tenant#patch_system_view_assigned")).toBe(true);
  });

  it("a permission's answers are made of what it reads, transitively, and nothing else", () => {
    const needed = readClosure([parseSchema(schema())], ["rbac/workspace#patch_system_view_assigned"]);
    for (const k of [
      "rbac/workspace#t_binding",
      "rbac/workspace#t_parent",
      "rbac/role_binding#t_subject",
      "rbac/role_binding#t_role",
      "rbac/group#t_member",
      "rbac/role#t_patch_system_read",
      "rbac/tenant#t_binding",
    ]) {
      expect(needed.has(k), k).toBe(true);
    }
    expect(needed.has("rbac/role#t_advisor_disable_recommendations_read")).toBe(false);
    expect(needed.has("rbac/tenant#t_platform")).toBe(false);
  });

  it("the same schema with its lines moved changes nothing", () => {
    expect(affectedMembers(parseSchema(schema()), parseSchema(`\n\n${schema()}`)).size).toBe(0);
  });
});

describe("seeded role changes", () => {
  it("lists added, removed and changed roles, flags and whether the version was raised", () => {
    const before: SeededRole[] = [
      { name: "A", version: 1, permissions: ["x:y:read"] },
      { name: "Gone", permissions: ["x:y:write"] },
      { name: "Same", permissions: ["x:y:read"] },
    ];
    const after: SeededRole[] = [
      { name: "a", version: 2, platform_default: true, permissions: ["x:y:read", "x:z:read"] },
      { name: "New", permissions: ["x:*:*"] },
      { name: "Same", permissions: ["x:y:read"] },
    ];
    expect(diffSeededRoles(before, after)).toEqual([
      { name: "Gone", change: "removed", permissionsAdded: [], permissionsRemoved: ["x:y:write"], flagsChanged: [] },
      { name: "New", change: "added", permissionsAdded: ["x:*:*"], permissionsRemoved: [], flagsChanged: [] },
      { name: "a", change: "changed", permissionsAdded: ["x:z:read"], permissionsRemoved: [], flagsChanged: ["platform_default"] },
    ]);
  });

  it("a store's v1 grants once a configuration is seeded: only raised versions rewrite, new roles are added", () => {
    const rec = (name: string, version: number, permissions: string[], platform_default = false) => ({ name, version, permissions, platform_default, scope: "default" as const });
    const before = [rec("Kept", 1, ["x:y:read"]), rec("Raised", 1, ["x:z:read"])];
    const after = [rec("Kept", 1, ["x:y:read", "x:y:write"]), rec("Raised", 2, []), rec("New", 1, ["x:w:read"], true)];
    const stored: V1Export = {
      version: 1,
      system_roles: [
        { uuid: "r-kept", name: "Kept", system: true, access: [{ permission: "x:y:read" }] },
        { uuid: "r-raised", name: "Raised", system: true, access: [{ permission: "x:z:read" }] },
      ],
      tenants: [{ org_id: "o1", principals: [{ user_id: "u1" }, { user_id: "u2" }], groups: [{ name: "g", principals: ["u1"], roles: ["r-kept", "r-raised"] }] }],
    };
    const next = reseededV1Export(stored, before, after);
    expect(next.system_roles).toEqual([
      stored.system_roles[0],
      { uuid: "r-raised", name: "Raised", system: true, platform_default: false, admin_default: false, access: [] },
      { name: "New", system: true, platform_default: true, admin_default: false, access: [{ permission: "x:w:read" }] },
    ]);
    const tenant = stored.tenants[0]!;
    expect(heldV1Permissions(stored, tenant)).toEqual(
      new Map([
        ["u1", new Set(["x:y:read", "x:z:read"])],
        ["u2", new Set()],
      ]),
    );
    expect(heldV1Permissions(next, tenant)).toEqual(
      new Map([
        ["u1", new Set(["x:y:read", "x:w:read"])],
        ["u2", new Set(["x:w:read"])],
      ]),
    );
  });
});
