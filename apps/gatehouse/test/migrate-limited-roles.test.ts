// `gatehouse migrate` binds custom roles whose inventory access is limited by `group.id` exactly as
// a v1 role write binds them: the limited permissions only on the named workspaces, the unlimited
// ones at the organisation level, nothing on a workspace the organisation does not have.
import { readFileSync } from "node:fs";
import type { V1Export } from "@gatehouse/rbac";
import { permissionRelation, type Relationship, type Store } from "@gatehouse/store";
import { openTestStore, testBackends } from "@gatehouse/store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boundAt } from "../src/commands/migrate.js";
import { applyTenantPlan } from "../src/migration/apply-to-store.js";
import { loadGraph, planTuples, runParity } from "../src/migration/parity-run.js";
import { loadAssetTypes } from "../src/migration/asset-types.js";
import { planExport } from "../src/migration/plan.js";
import { validateV1Export } from "../src/migration/v1-export-schema.js";

interface Case {
  export: unknown;
  grants: { group: string; permission: string; at: string[] }[];
  v1Roles: { groups: Record<string, string[]> };
  dryRun: { boundAt: Record<string, string> };
}
const raw = readFileSync(new URL("./migrate/limited-roles.json", import.meta.url), "utf8");
const caseFor = (vars: Record<string, string>): Case => JSON.parse(raw.replace(/\{\{(\w+)\}\}/g, (_, k: string) => vars[k] ?? `{{${k}}}`)) as Case;

/**
 * Resources on which the group's members hold `permission` by the relationships: a binding on the
 * resource whose subject is the group and whose role (or a child of it) has the permission.
 */
function grantedAt(tuples: readonly Omit<Relationship, "expiresAt">[], groupId: string, permission: string): string[] {
  const relation = permissionRelation(permission);
  const withPermission = new Set(tuples.filter((t) => t.resourceType === "rbac/role" && t.relation === relation).map((t) => t.resourceId));
  for (const t of tuples) if (t.resourceType === "rbac/role" && t.relation === "t_child" && withPermission.has(t.subjectId)) withPermission.add(t.resourceId);
  const bindings = new Set(
    tuples
      .filter((t) => t.resourceType === "rbac/role_binding" && t.relation === "t_subject" && t.subjectType === "rbac/group" && t.subjectId === groupId)
      .map((t) => t.resourceId)
      .filter((b) => tuples.some((t) => t.resourceType === "rbac/role_binding" && t.resourceId === b && t.relation === "t_role" && withPermission.has(t.subjectId))),
  );
  return [...new Set(tuples.filter((t) => t.relation === "t_binding" && bindings.has(t.subjectId)).map((t) => t.resourceId))].sort();
}

const backends = await testBackends();
let orgCounter = 0;

describe.each(backends)("gatehouse migrate of group.id-limited roles on $name", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(backend);
  });
  afterAll(async () => {
    await store?.close();
  });

  it("grants the limited permissions only on the named workspace, the unlimited ones at the organisation level, nothing on unknown workspaces; a re-run writes nothing", async () => {
    const org = `lim${process.pid}x${++orgCounter}`;
    const { value: tenant } = await store.tenants.bootstrap(org);
    const edge = (await store.workspaces.create(org, { name: "Edge" })).value;
    const c = caseFor({ org, edge: edge.id });
    const exp: V1Export = validateV1Export(c.export, "case");
    const catalog = await loadAssetTypes(undefined);
    const [{ tenant: v1Tenant, plan }] = planExport(exp, catalog) as [ReturnType<typeof planExport>[number]];

    const first = await applyTenantPlan(store, exp, v1Tenant, plan);
    expect(first.revision).toBeGreaterThan(0);
    const groups = new Map((await store.groups.list(org, { limit: -1 })).data.map((g) => [g.name, g.id]));
    const names: Record<string, string> = { edge: edge.id, tenant: tenant.tenantId, root: tenant.rootWorkspaceId, default: tenant.defaultWorkspaceId };
    const tuples = await store.relationships.read(org);
    for (const g of c.grants) {
      expect({ ...g, at: grantedAt(tuples, groups.get(g.group)!, g.permission) }).toEqual({ ...g, at: g.at.map((n) => names[n]!).sort() });
    }

    // v1 reads list every role a group holds, one granting nothing in v2 included (its group, its
    // holders' access as stored), as v1 does.
    const roleName = new Map((await store.roles.list(org, { limit: -1 })).data.map((r) => [r.id, r.name]));
    const roleId = new Map([...roleName].map(([id, name]) => [name, id]));
    for (const [group, names] of Object.entries(c.v1Roles.groups)) {
      const held = (await store.v1.rolesOfGroup(org, groups.get(group)!)).map((id) => roleName.get(id));
      expect({ group, held: held.sort() }).toEqual({ group, held: [...names].sort() });
      const holders = await store.v1.groupsOfRoles(
        org,
        [...names].map((n) => roleId.get(n)!),
      );
      for (const n of names) expect({ role: n, groups: (holders.get(roleId.get(n)!) ?? []).map((g) => g.name) }).toEqual({ role: n, groups: [group] });
    }
    const ghost = roleId.get("Ghost hosts viewer")!;
    expect((await store.v1.grantsOf(org, "u-bob", { isOrgAdmin: false, defaultGroups: true })).map((g) => g.roleId)).toContain(ghost);

    // The planner warns only about definitions v2 cannot express.
    expect(plan.warnings.some((w) => w.includes("not migrated"))).toBe(false);
    expect(plan.warnings.filter((w) => w.includes("cannot express"))).toEqual([expect.stringMatching(/^role 'Tagged patch viewer': 1 access entry/)]);

    // The unknown workspaces are a warning naming the role and their count, never the ids.
    const unknown = first.warnings.filter((w) => w.includes("name no workspace"));
    expect(unknown).toEqual([expect.stringMatching(/^role 'Ghost hosts viewer': 2 group\.id workspace id\(s\)/)]);
    expect(first.warnings.join("\n")).not.toContain("9d0c1f5e");

    const head = await store.feed.headRevision();
    const again = await applyTenantPlan(store, exp, v1Tenant, plan);
    expect(again).toMatchObject({ rolesCreated: 0, rolesUpdated: 0, groupsCreated: 0, grantsAdded: 0 });
    expect(again.revision).toBeUndefined();
    expect(await store.feed.headRevision()).toBe(head);
    expect(await store.relationships.read(org)).toEqual(tuples);

    // v1 writes on the role held without a binding: updated to name a workspace the organisation
    // has, its group is bound there; taken off the group, v1 no longer lists it.
    const ghostTeam = groups.get("Ghost team")!;
    const filter = { key: "group.id", operation: "in", value: [edge.id] };
    await store.v1Writes.updateRole(org, ghost, {
      name: "Ghost hosts viewer",
      displayName: "Ghost hosts viewer",
      description: null,
      access: [{ permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: filter }] }],
      scope: "default",
      targets: { levels: [], workspaceIds: [edge.id] },
    });
    expect(grantedAt(await store.relationships.read(org), ghostTeam, "inventory:hosts:read")).toEqual([edge.id]);
    expect(await store.v1.rolesOfGroup(org, ghostTeam)).toEqual([ghost]);
    const removed = await store.v1Writes.removeGroupRoles(org, ghostTeam, [ghost]);
    expect(removed.value.map((r) => r.id)).toEqual([ghost]);
    expect(await store.v1.rolesOfGroup(org, ghostTeam)).toEqual([]);
    expect(grantedAt(await store.relationships.read(org), ghostTeam, "inventory:hosts:read")).toEqual([]);
  });
});

describe("gatehouse migrate --dry-run and the offline parity report of group.id-limited roles", () => {
  it("show each limited role where the import binds it, and parity checks only its unlimited grants at their levels", async () => {
    const edge = "5e1c0a2b-7d3f-4e8a-9b6c-0d1e2f3a4b5c";
    const c = caseFor({ org: "dryrun", edge });
    const exp: V1Export = validateV1Export(c.export, "case");
    const catalog = await loadAssetTypes(undefined);
    const planned = planExport(exp, catalog);
    const { plan } = planned[0]!;
    // The dry-run table's "bound at" column.
    const custom = plan.roles.filter((r) => r.source === "custom");
    expect(Object.fromEntries(custom.map((r) => [r.name, boundAt(r)]))).toEqual(c.dryRun.boundAt);
    // The plan's tuples (the dry-run's JSON, the offline parity's graph) grant what the import
    // writes, on the workspaces the organisation has.
    const names: Record<string, string> = { edge, tenant: plan.ids.tenantId, root: plan.ids.rootWorkspaceId, default: plan.ids.defaultWorkspaceId };
    const known = new Set(Object.values(names));
    const groupId = new Map(plan.groups.map((g) => [g.name, g.id]));
    for (const g of c.grants) {
      const at = grantedAt(plan.relationships, groupId.get(g.group)!, g.permission).filter((id) => known.has(id));
      expect({ ...g, at }).toEqual({ ...g, at: g.at.map((n) => names[n]!).sort() });
    }
    // Offline parity over those tuples: nothing lost, and no limited permission granted at a level.
    const schema = readFileSync(new URL("../../../fixtures/rbac-config/stage/schema.zed", import.meta.url), "utf8");
    const tuples = planTuples(planned, "stage");
    const { graph, rejected } = loadGraph(schema, tuples);
    expect(rejected).toEqual([]);
    const report = runParity({ export: exp, catalog, planned, graph, relationships: tuples });
    expect(report.lost).toEqual([]);
    expect(report.extraGrants).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
