// Conformance suite of the store interface: the same tests on PGlite and on real Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError, RoleNameTaken, type Relationship, type Store, type StoreErrorCode } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const backends = await testBackends();
let orgCounter = 0;
const newOrg = () => `org${process.pid}x${++orgCounter}`;

async function expectCode(p: Promise<unknown>, code: StoreErrorCode): Promise<void> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isStoreError(error) ? error.code : error).toBe(code);
}

const has = (tuples: Relationship[], expected: Relationship) =>
  tuples.some(
    (t) =>
      t.resourceType === expected.resourceType &&
      t.resourceId === expected.resourceId &&
      t.relation === expected.relation &&
      t.subjectType === expected.subjectType &&
      t.subjectId === expected.subjectId &&
      (t.subjectRelation ?? "") === (expected.subjectRelation ?? ""),
  );

describe.each(backends)("store conformance on $name", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(backend, { workspaceDepthLimit: 4 });
  });
  afterAll(async () => {
    await store?.close();
  });

  describe("tenants", () => {
    it("bootstraps root, default, default groups and the six default bindings with their tuples", async () => {
      const org = newOrg();
      const { value: t, created, revision } = await store.tenants.bootstrap(org);
      expect(created).toBe(true);
      expect(t.tenantId).toBe(`redhat/${org}`);
      const root = await store.workspaces.get(org, t.rootWorkspaceId);
      const def = await store.workspaces.get(org, t.defaultWorkspaceId);
      expect([root.type, root.parentId, def.type, def.parentId]).toEqual(["root", null, "default", root.id]);

      const tuples = await store.relationships.read(org);
      expect(has(tuples, { resourceType: "rbac/workspace", resourceId: root.id, relation: "t_parent", subjectType: "rbac/tenant", subjectId: t.tenantId })).toBe(true);
      expect(has(tuples, { resourceType: "rbac/workspace", resourceId: def.id, relation: "t_parent", subjectType: "rbac/workspace", subjectId: root.id })).toBe(true);
      expect(has(tuples, { resourceType: "rbac/tenant", resourceId: t.tenantId, relation: "t_platform", subjectType: "rbac/platform", subjectId: "local" })).toBe(true);

      const bindings = await store.roleBindings.list(org, { limit: -1 });
      expect(bindings.count).toBe(6);
      const levels = bindings.data.map(
        (b) => `${b.resource.type}:${b.resource.id === t.tenantId ? "tenant" : b.resource.id === root.id ? "root" : "default"}:${b.subjects[0]!.id === t.platformDefaultGroupId ? "user" : "admin"}`,
      );
      expect(levels.sort()).toEqual(["tenant:tenant:user", "tenant:tenant:admin", "workspace:root:user", "workspace:root:admin", "workspace:default:user", "workspace:default:admin"].sort());
      const platform = await store.roles.platformRoles();
      for (const b of bindings.data) {
        expect(platform.map((r) => r.id)).toContain(b.roleId);
        expect(has(tuples, { resourceType: "rbac/role_binding", resourceId: b.id, relation: "t_subject", subjectType: "rbac/group", subjectId: b.subjects[0]!.id, subjectRelation: "member" })).toBe(
          true,
        );
      }
      expect(store.tokens.decode(store.tokens.encode(revision))).toBe(revision);
    });

    it("bootstrapping twice, also concurrently, yields the same tenant", async () => {
      const org = newOrg();
      const results = await Promise.all([store.tenants.bootstrap(org), store.tenants.bootstrap(org), store.tenants.bootstrap(org)]);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.value.rootWorkspaceId)).size).toBe(1);
      expect(new Set(results.map((r) => r.value.defaultWorkspaceId)).size).toBe(1);
      const again = await store.tenants.bootstrap(org);
      expect(again.value).toEqual(results[0]!.value);
      expect((await store.workspaces.list(org, { types: ["root", "default"] })).count).toBe(2);
    });

    it("rejects unknown tenants and bad org ids", async () => {
      await expectCode(store.tenants.get("nobody-here"), "not-found");
      await expectCode(store.workspaces.create("nobody-here", { name: "x" }), "tenant-not-found");
      await expectCode(store.tenants.bootstrap("bad org!"), "invalid-argument");
    });
  });

  describe("workspaces", () => {
    it("creates under default by default, lists with filters, ordering, paging and ancestry", async () => {
      const org = newOrg();
      const { value: t } = await store.tenants.bootstrap(org);
      const a = (await store.workspaces.create(org, { name: "Alpha", description: "first" })).value;
      const b = (await store.workspaces.create(org, { name: "beta", parentId: a.id })).value;
      await store.workspaces.create(org, { name: "Gamma" });
      expect(a.parentId).toBe(t.defaultWorkspaceId);

      const all = await store.workspaces.list(org, { limit: -1 });
      expect(all.count).toBe(5);
      expect(all.data.map((w) => w.name)).toEqual(["Alpha", "beta", "Default Workspace", "Gamma", "Root Workspace"]);
      const std = await store.workspaces.list(org, { types: ["standard"], orderBy: "-name", limit: 2, offset: 0 });
      expect(std.count).toBe(3);
      expect(std.data.map((w) => w.name)).toEqual(["Gamma", "beta"]);
      expect((await store.workspaces.list(org, { name: "ALP" })).data.map((w) => w.id)).toEqual([a.id]);
      expect((await store.workspaces.list(org, { name: "*eta" })).data.map((w) => w.id)).toEqual([b.id]);
      expect((await store.workspaces.list(org, { parentId: a.id })).data.map((w) => w.id)).toEqual([b.id]);
      expect((await store.workspaces.list(org, { ids: [b.id, a.id], orderBy: "created" })).data.map((w) => w.id)).toEqual([a.id, b.id]);
      expect((await store.workspaces.ancestry(org, b.id)).map((x) => x.id)).toEqual([a.id, t.defaultWorkspaceId, t.rootWorkspaceId]);
      await expectCode(store.workspaces.list(org, { orderBy: "size" as never }), "invalid-argument");
    });

    it("rejects a duplicate sibling name ignoring case, allows it elsewhere", async () => {
      const org = newOrg();
      await store.tenants.bootstrap(org);
      const a = (await store.workspaces.create(org, { name: "Team" })).value;
      await expectCode(store.workspaces.create(org, { name: "TEAM" }), "duplicate-name");
      await store.workspaces.create(org, { name: "team", parentId: a.id });
      const other = (await store.workspaces.create(org, { name: "Other" })).value;
      await expectCode(store.workspaces.update(org, other.id, { name: "team" }), "duplicate-name");
    });

    it("enforces the depth limit on create and move", async () => {
      const org = newOrg();
      await store.tenants.bootstrap(org);
      // limit 4: root(0) → default(1) → l2 → l3 → l4
      const l2 = (await store.workspaces.create(org, { name: "l2" })).value;
      const l3 = (await store.workspaces.create(org, { name: "l3", parentId: l2.id })).value;
      const l4 = (await store.workspaces.create(org, { name: "l4", parentId: l3.id })).value;
      await expectCode(store.workspaces.create(org, { name: "l5", parentId: l4.id }), "depth-exceeded");
      const side = (await store.workspaces.create(org, { name: "side" })).value;
      await store.workspaces.create(org, { name: "child", parentId: side.id });
      await expectCode(store.workspaces.move(org, side.id, l3.id), "depth-exceeded");
      expect((await store.workspaces.get(org, side.id)).parentId).not.toBe(l3.id);
    });

    it("rejects unknown parents, cross-tenant parents and malformed ids", async () => {
      const org = newOrg();
      const other = newOrg();
      await store.tenants.bootstrap(org);
      const { value: o } = await store.tenants.bootstrap(other);
      await expectCode(store.workspaces.create(org, { name: "x", parentId: "0c6bd366-5ed2-452c-b66d-000000000000" }), "unknown-parent");
      await expectCode(store.workspaces.create(org, { name: "x", parentId: o.defaultWorkspaceId }), "cross-tenant");
      await expectCode(store.workspaces.create(org, { name: "x", parentId: "not-a-uuid" }), "invalid-argument");
      await expectCode(store.workspaces.create(org, { name: "bad/name" }), "invalid-argument");
      await expectCode(store.workspaces.create(org, { name: "" }), "invalid-argument");
      await expectCode(store.workspaces.get(org, o.rootWorkspaceId), "not-found");
      expect((await store.workspaces.list(org, { types: ["standard"] })).count).toBe(0);
    });

    it("moves standard workspaces only, never into their own subtree, and rewrites the parent tuple", async () => {
      const org = newOrg();
      const { value: t } = await store.tenants.bootstrap(org);
      const a = (await store.workspaces.create(org, { name: "a" })).value;
      const b = (await store.workspaces.create(org, { name: "b", parentId: a.id })).value;
      const c = (await store.workspaces.create(org, { name: "c" })).value;
      await expectCode(store.workspaces.move(org, a.id, b.id), "move-into-descendant");
      await expectCode(store.workspaces.move(org, a.id, a.id), "move-into-descendant");
      await expectCode(store.workspaces.move(org, t.defaultWorkspaceId, c.id), "immutable");
      await store.workspaces.create(org, { name: "B", parentId: c.id });
      await expectCode(store.workspaces.move(org, b.id, c.id), "duplicate-name");
      const moved = await store.workspaces.move(org, b.id, t.rootWorkspaceId);
      expect(moved.value.parentId).toBe(t.rootWorkspaceId);
      const parents = await store.relationships.read(org, { resourceType: "rbac/workspace", resourceId: b.id, relation: "t_parent" });
      expect(parents.map((p) => p.subjectId)).toEqual([t.rootWorkspaceId]);
    });

    it("deletes only empty standard workspaces; root, default and ungrouped-hosts are immutable", async () => {
      const org = newOrg();
      const { value: t } = await store.tenants.bootstrap(org);
      const a = (await store.workspaces.create(org, { name: "a" })).value;
      const b = (await store.workspaces.create(org, { name: "b", parentId: a.id })).value;
      await expectCode(store.workspaces.delete(org, a.id), "not-empty");
      await store.hosts.report(org, "host-1", b.id);
      await expectCode(store.workspaces.delete(org, b.id), "not-empty");
      await store.hosts.delete(org, "host-1");
      await store.workspaces.delete(org, b.id);
      await expectCode(store.workspaces.get(org, b.id), "not-found");
      await expectCode(store.workspaces.delete(org, t.rootWorkspaceId), "immutable");
      await expectCode(store.workspaces.delete(org, t.defaultWorkspaceId), "immutable");
      await expectCode(store.workspaces.update(org, t.rootWorkspaceId, { name: "x" }), "immutable");
      const ungrouped = (await store.workspaces.ensureUngroupedHosts(org)).value;
      expect((await store.workspaces.ensureUngroupedHosts(org)).value.id).toBe(ungrouped.id);
      expect(ungrouped.parentId).toBe(t.defaultWorkspaceId);
      await expectCode(store.workspaces.update(org, ungrouped.id, { description: "x" }), "immutable");
      const renamed = await store.workspaces.update(org, t.defaultWorkspaceId, { name: "Everything" });
      expect(renamed.value.name).toBe("Everything");
      expect(await store.relationships.read(org, { resourceId: b.id })).toEqual([]);
    });
  });

  describe("roles and bindings", () => {
    beforeAll(async () => {
      await store.roles.seedSystemRoles([
        { name: "Hosts viewer", platform_default: true, access: [{ permission: "inventory:hosts:read" }] },
        { name: "Inventory admin", admin_default: true, scope: "root", access: [{ permission: "inventory:*:*" }] },
        { name: "User access admin", scope: "tenant", admin_default: true, access: [{ permission: "rbac:principal:write" }] },
        { name: "Cost viewer", access: [{ permission: "cost-management:*:read" }] },
      ]);
    });

    it("seeds system roles with permission tuples and platform children; re-seeding keeps ids", async () => {
      const org = newOrg();
      await store.tenants.bootstrap(org);
      const roles = (await store.roles.list(org, { kinds: ["seeded"], limit: -1 })).data;
      const viewer = roles.find((r) => r.name === "Hosts viewer")!;
      const cost = roles.find((r) => r.name === "Cost viewer")!;
      const pub = await store.relationships.read(org, { includePublic: true, resourceType: "rbac/role" });
      expect(has(pub, { resourceType: "rbac/role", resourceId: viewer.id, relation: "t_inventory_hosts_read", subjectType: "rbac/principal", subjectId: "*" })).toBe(true);
      expect(has(pub, { resourceType: "rbac/role", resourceId: cost.id, relation: "t_cost_management_all_read", subjectType: "rbac/principal", subjectId: "*" })).toBe(true);
      const platform = await store.roles.platformRoles();
      const userDefault = platform.find((p) => p.platformDefault && p.scope === "default")!;
      const adminTenant = platform.find((p) => p.adminDefault && p.scope === "tenant")!;
      const uaa = roles.find((r) => r.name === "User access admin")!;
      expect(has(pub, { resourceType: "rbac/role", resourceId: userDefault.id, relation: "t_child", subjectType: "rbac/role", subjectId: viewer.id })).toBe(true);
      expect(has(pub, { resourceType: "rbac/role", resourceId: adminTenant.id, relation: "t_child", subjectType: "rbac/role", subjectId: uaa.id })).toBe(true);
    });

    it("holds v1 and v2 role writes to one name rule: names and display names, system roles and the organisation's", async () => {
      const org = newOrg();
      await store.tenants.bootstrap(org);
      const clashOf = (p: Promise<unknown>) =>
        p.then(
          () => "written",
          (e: unknown) => (e instanceof RoleNameTaken ? e.clash : e),
        );
      const v1Role = (name: string, displayName: string) => ({
        name,
        displayName,
        description: null,
        access: [{ permission: "inventory:hosts:read", resourceDefinitions: [] }],
        scope: "default" as const,
        targets: { levels: ["default" as const], workspaceIds: [] },
      });
      const ops = (await store.v1Writes.createRole(org, v1Role("Ops", "Ops team"))).value;
      // v1 against the organisation's roles and the system roles (seeded and platform), by name or display name.
      expect(await clashOf(store.v1Writes.createRole(org, v1Role("OPS", "Other")))).toBe("tenant");
      expect(await clashOf(store.v1Writes.createRole(org, v1Role("Other", "ops TEAM")))).toBe("tenant");
      expect(await clashOf(store.v1Writes.createRole(org, v1Role("hosts viewer", "Other")))).toBe("system-name");
      expect(await clashOf(store.v1Writes.createRole(org, v1Role("Other", "Hosts Viewer")))).toBe("system-display-name");
      expect(await clashOf(store.v1Writes.createRole(org, v1Role("Default access (organization)", "Other")))).toBe("system-name");
      expect(await clashOf(store.v1Writes.updateRole(org, ops.id, v1Role("Ops", "Ops team")))).toBe("written");
      // v2 writes against the v1 role's name and display name (a refused write leaves the organisation in v1 mode).
      expect(await clashOf(store.roles.create(org, { name: "ops", permissions: ["patch:system:read"] }))).toBe("tenant");
      expect(await clashOf(store.roles.create(org, { name: "OPS team", permissions: ["patch:system:read"] }))).toBe("tenant");
      expect(await clashOf(store.roles.create(org, { name: "Cost Viewer", permissions: ["patch:system:read"] }))).toBe("system-name");
      expect((await store.orgMode.get(org)).mode).toBe("v1");
      const patchers = (await store.roles.create(org, { name: "Patchers", permissions: ["patch:system:read"] })).value;
      expect(await clashOf(store.roles.update(org, patchers.id, { name: "Ops Team", permissions: ["patch:system:read"] }))).toBe("tenant");
      // A v2 update of a v1 role keeps its display name and access list: the name rule checks the kept display name.
      const renamed = (await store.roles.update(org, ops.id, { name: "Operators", permissions: ["inventory:hosts:read"] })).value;
      expect([renamed.name, renamed.displayName]).toEqual(["Operators", "Ops team"]);
      expect((await store.v1.accessOf([ops.id])).get(ops.id)).toEqual([{ permission: "inventory:hosts:read", resourceDefinitions: [] }]);
      expect(await clashOf(store.roles.create(org, { name: "ops team", permissions: ["patch:system:read"] }))).toBe("tenant");
      expect(await clashOf(store.roles.create(org, { name: "Ops", permissions: ["patch:system:read"] }))).toBe("written");
    });

    it("creates, updates and deletes custom roles; rejects bad input and system role edits", async () => {
      const org = newOrg();
      await store.tenants.bootstrap(org);
      const role = (await store.roles.create(org, { name: "Patchers", permissions: ["patch:system:read", "patch:system:write"] })).value;
      expect(role.kind).toBe("custom");
      await expectCode(store.roles.create(org, { name: "patchers", permissions: ["patch:system:read"] }), "duplicate-name");
      await expectCode(store.roles.create(org, { name: "hosts VIEWER", permissions: ["patch:system:read"] }), "duplicate-name");
      await expectCode(store.roles.create(org, { name: "x", permissions: ["patch:system"] }), "invalid-argument");
      await expectCode(store.roles.create(org, { name: "x", permissions: [] }), "invalid-argument");
      const seeded = (await store.roles.list(org, { name: "Hosts viewer" })).data[0]!;
      await expectCode(store.roles.update(org, seeded.id, { name: "y", permissions: ["a:b:c"] }), "immutable");
      await expectCode(store.roles.deleteMany(org, [seeded.id]), "immutable");
      const updated = (await store.roles.update(org, role.id, { name: "Patchers", permissions: ["patch:*:read"] })).value;
      expect(updated.permissions).toEqual(["patch:*:read"]);
      const tuples = await store.relationships.read(org, { resourceType: "rbac/role", resourceId: role.id });
      expect(tuples.map((t) => t.relation).sort()).toEqual(["t_owner", "t_patch_all_read"]);
      expect((await store.roles.list(org, { permissions: ["patch:*:read"] })).data.map((r) => r.id)).toEqual([role.id]);
      // Several permissions select the roles holding any of them.
      expect((await store.roles.list(org, { kinds: ["custom"], permissions: ["patch:*:read", "no:such:perm"] })).data.map((r) => r.id)).toEqual([role.id]);
      const other = newOrg();
      await store.tenants.bootstrap(other);
      await expectCode(store.roles.get(other, role.id), "not-found");
      await store.roles.deleteMany(org, [role.id]);
      expect(await store.relationships.read(org, { resourceType: "rbac/role", resourceId: role.id })).toEqual([]);
    });

    it("batch-creates bindings all-or-nothing and idempotently, with tuples; lists by resource, subject and principal", async () => {
      const org = newOrg();
      const { value: t } = await store.tenants.bootstrap(org);
      await store.principals.upsert(org, [
        { userId: "u1", username: "Alice" },
        { userId: "u2", username: "bob", isOrgAdmin: true },
      ]);
      const group = (await store.groups.create(org, { name: "Ops" })).value;
      await store.groups.addMembers(org, group.id, ["u1"]);
      const ws = (await store.workspaces.create(org, { name: "Prod" })).value;
      const roles = (await store.roles.list(org, { kinds: ["seeded"], limit: -1 })).data;
      const viewer = roles.find((r) => r.name === "Hosts viewer")!;
      const invAdmin = roles.find((r) => r.name === "Inventory admin")!;

      const grant = { resource: { type: "workspace" as const, id: ws.id }, subject: { type: "group" as const, id: group.id }, roleId: viewer.id };
      const first = await store.roleBindings.batchCreate(org, [grant, { ...grant, subject: { type: "principal", id: "u2" } }]);
      expect(first.value).toHaveLength(2);
      expect(first.value[0]!.id).toBe(first.value[1]!.id); // one row per (role, resource)
      expect(first.value[0]!.subjects).toHaveLength(2);
      const again = await store.roleBindings.batchCreate(org, [grant]);
      expect(again.value[0]!.id).toBe(first.value[0]!.id);
      const head = await store.feed.headRevision();

      // One bad item (wrong scope) rolls back the whole batch.
      const ws2 = (await store.workspaces.create(org, { name: "Dev" })).value;
      const before = await store.roleBindings.list(org, { limit: -1 });
      await expectCode(
        store.roleBindings.batchCreate(org, [
          { ...grant, resource: { type: "workspace", id: ws2.id } },
          { ...grant, roleId: invAdmin.id },
        ]),
        "not-assignable",
      );
      await expectCode(store.roleBindings.batchCreate(org, [{ ...grant, subject: { type: "group", id: "0c6bd366-5ed2-452c-b66d-000000000000" } }]), "not-found");
      await expectCode(store.roleBindings.batchCreate(org, []), "invalid-argument");
      const platformRole = (await store.roles.platformRoles())[0]!;
      await expectCode(store.roleBindings.batchCreate(org, [{ ...grant, roleId: platformRole.id }]), "not-assignable");
      expect((await store.roleBindings.list(org, { limit: -1 })).count).toBe(before.count);
      expect(await store.relationships.read(org, { resourceId: ws2.id, relation: "t_binding" })).toEqual([]);
      await store.roleBindings.batchCreate(org, [{ ...grant, roleId: invAdmin.id, resource: { type: "workspace", id: t.rootWorkspaceId } }]);
      expect(await store.feed.headRevision()).toBeGreaterThan(head);

      const b = first.value[0]!;
      const tuples = await store.relationships.read(org);
      expect(has(tuples, { resourceType: "rbac/workspace", resourceId: ws.id, relation: "t_binding", subjectType: "rbac/role_binding", subjectId: b.id })).toBe(true);
      expect(has(tuples, { resourceType: "rbac/role_binding", resourceId: b.id, relation: "t_role", subjectType: "rbac/role", subjectId: viewer.id })).toBe(true);
      expect(has(tuples, { resourceType: "rbac/role_binding", resourceId: b.id, relation: "t_subject", subjectType: "rbac/principal", subjectId: "redhat/u2" })).toBe(true);

      const direct = await store.roleBindings.list(org, { resource: { type: "workspace", id: ws.id } });
      expect(direct.data.map((x) => x.id)).toEqual([b.id]);
      const inherited = await store.roleBindings.list(org, { resource: { type: "workspace", id: ws.id }, includeInherited: true, limit: -1 });
      // own + default level (2 defaults) + root level (2 defaults + inventory admin) + tenant level (2 defaults)
      expect(inherited.count).toBe(1 + 2 + 3 + 2);
      const viaGroup = await store.roleBindings.list(org, { grantedToPrincipal: "u1", limit: -1 });
      // u1 through Ops: viewer on Prod and inventory admin on root; plus the three platform-default bindings
      expect(viaGroup.count).toBe(5);
      const bySubject = await store.roleBindings.list(org, { subject: { type: "principal", id: "u2" } });
      expect(bySubject.data.map((x) => x.id)).toEqual([b.id]);
    });

    it("replaces the roles of one subject on one resource; empty bindings disappear", async () => {
      const org = newOrg();
      const { value: t } = await store.tenants.bootstrap(org);
      const group = (await store.groups.create(org, { name: "Ops" })).value;
      const ws = (await store.workspaces.create(org, { name: "Prod" })).value;
      const custom = (await store.roles.create(org, { name: "Patch", permissions: ["patch:system:read"] })).value;
      const viewer = (await store.roles.list(org, { name: "Hosts viewer" })).data[0]!;
      const resource = { type: "workspace" as const, id: ws.id };
      const subject = { type: "group" as const, id: group.id };
      await store.roleBindings.replaceRolesOfSubject(org, resource, subject, [viewer.id, custom.id]);
      expect((await store.roleBindings.rolesOfSubject(org, resource, subject)).sort()).toEqual([viewer.id, custom.id].sort());
      await store.roleBindings.replaceRolesOfSubject(org, resource, subject, [custom.id]);
      expect(await store.roleBindings.rolesOfSubject(org, resource, subject)).toEqual([custom.id]);
      await store.roleBindings.replaceRolesOfSubject(org, resource, subject, []);
      expect((await store.roleBindings.list(org, { resource })).count).toBe(0);
      expect(await store.relationships.read(org, { resourceId: ws.id, relation: "t_binding" })).toEqual([]);
      await expectCode(store.roleBindings.replaceRolesOfSubject(org, resource, { type: "group", id: t.adminDefaultGroupId }, [viewer.id]), "immutable");
      // Deleting a workspace deletes its bindings and their tuples.
      await store.roleBindings.replaceRolesOfSubject(org, resource, subject, [viewer.id]);
      await store.workspaces.delete(org, ws.id);
      expect((await store.roleBindings.list(org, { roleId: viewer.id })).count).toBe(0);
      expect((await store.relationships.read(org)).some((r) => r.resourceType === "rbac/role_binding" && r.subjectId === viewer.id)).toBe(false);
    });

    it("rejects cross-tenant references in bindings", async () => {
      const org = newOrg();
      const other = newOrg();
      await store.tenants.bootstrap(org);
      const { value: o } = await store.tenants.bootstrap(other);
      const theirGroup = (await store.groups.create(other, { name: "Theirs" })).value;
      const theirRole = (await store.roles.create(other, { name: "Theirs", permissions: ["a:b:c"] })).value;
      const ws = (await store.workspaces.create(org, { name: "Mine" })).value;
      const mine = (await store.groups.create(org, { name: "Mine" })).value;
      const viewer = (await store.roles.list(org, { name: "Hosts viewer" })).data[0]!;
      const grant = { resource: { type: "workspace" as const, id: ws.id }, subject: { type: "group" as const, id: mine.id }, roleId: viewer.id };
      await expectCode(store.roleBindings.batchCreate(org, [{ ...grant, subject: { type: "group", id: theirGroup.id } }]), "cross-tenant");
      await expectCode(store.roleBindings.batchCreate(org, [{ ...grant, roleId: theirRole.id }]), "cross-tenant");
      await expectCode(store.roleBindings.batchCreate(org, [{ ...grant, resource: { type: "workspace", id: o.defaultWorkspaceId } }]), "cross-tenant");
      await expectCode(store.roleBindings.batchCreate(org, [{ ...grant, resource: { type: "tenant", id: o.tenantId } }]), "cross-tenant");
      await expectCode(store.hosts.report(org, "h-x", o.defaultWorkspaceId), "cross-tenant");
      expect((await store.roleBindings.list(org, { resource: grant.resource })).count).toBe(0);
    });
  });

  describe("groups, principals, hosts, raw relationships", () => {
    it("keeps default-group membership in step with principals", async () => {
      const org = newOrg();
      const { value: t } = await store.tenants.bootstrap(org);
      await store.principals.upsert(org, [{ userId: "u1", username: "Alice", isOrgAdmin: true }]);
      expect(await store.groups.members(org, t.adminDefaultGroupId)).toEqual(["u1"]);
      expect((await store.groups.groupsOf(org, "u1")).sort()).toEqual([t.platformDefaultGroupId, t.adminDefaultGroupId].sort());
      await store.principals.upsert(org, [{ userId: "u1", username: "alice", isOrgAdmin: false }]);
      expect(await store.groups.members(org, t.adminDefaultGroupId)).toEqual([]);
      const members = await store.relationships.read(org, { resourceType: "rbac/group", relation: "t_member" });
      expect(members.map((m) => `${m.resourceId}@${m.subjectId}`)).toEqual([`${t.platformDefaultGroupId}@redhat/u1`]);
      await expectCode(store.principals.upsert(org, [{ userId: "u2", username: "ALICE" }]), "duplicate-name");
      await expectCode(store.groups.addMembers(org, t.platformDefaultGroupId, ["u1"]), "immutable");
      const g = (await store.groups.create(org, { name: "G" })).value;
      await expectCode(store.groups.addMembers(org, g.id, ["u1", "ghost"]), "not-found");
      expect(await store.groups.members(org, g.id)).toEqual([]);
      await store.groups.addMembers(org, g.id, ["u1"]);
      expect((await store.principals.list(org, { username: "ali" })).data.map((p) => p.userId)).toEqual(["u1"]);
      await store.principals.delete(org, "u1");
      expect(await store.groups.members(org, g.id)).toEqual([]);
      expect(await store.relationships.read(org, { relation: "t_member" })).toEqual([]);
    });

    it("records a principal as each identity says, writing only a change (the admin flag toggled three times)", async () => {
      const org = newOrg();
      const { value: t } = await store.tenants.bootstrap(org);
      const seen = async (isOrgAdmin: boolean) => store.principals.record(org, { userId: "u1", username: "alice", isOrgAdmin });
      expect((await seen(false)).value).toBe(true);
      const again = await seen(false);
      expect(again.value).toBe(false);
      expect(again.revision).toBe(await store.feed.headRevision());
      for (const isOrgAdmin of [true, false, true, false]) {
        const written = await seen(isOrgAdmin);
        expect(written.value).toBe(true);
        expect((await store.principals.get(org, "u1")).isOrgAdmin).toBe(isOrgAdmin);
        expect(await store.groups.members(org, t.adminDefaultGroupId)).toEqual(isOrgAdmin ? ["u1"] : []);
      }
      await expectCode(store.principals.record(org, { userId: "", username: "x" }), "invalid-argument");
    });

    it("records a principal's e-mail: kept when an identity carries none, changed only when it differs; a bad one changes nothing", async () => {
      const org = newOrg();
      await store.tenants.bootstrap(org);
      const seen = (email?: string | null) => store.principals.record(org, { userId: "u1", username: "alice", ...(email !== undefined ? { email } : {}) });
      expect((await seen("alice@example.com")).value).toBe(true);
      expect((await store.principals.get(org, "u1")).email).toBe("alice@example.com");
      expect((await seen("alice@example.com")).value).toBe(false);
      // An identity without an e-mail (or a null one) keeps the stored address and writes nothing.
      expect((await seen()).value).toBe(false);
      expect((await seen(null)).value).toBe(false);
      expect((await store.principals.get(org, "u1")).email).toBe("alice@example.com");
      expect((await seen("alice@corp.example")).value).toBe(true);
      expect((await store.principals.list(org)).data.map((p) => p.email)).toEqual(["alice@corp.example"]);
      const head = await store.feed.headRevision();
      await expectCode(seen("a".repeat(321)), "invalid-argument");
      await expectCode(seen("alice\u0000@example.com"), "invalid-argument");
      expect(await store.feed.headRevision()).toBe(head);
      expect((await store.principals.get(org, "u1")).email).toBe("alice@corp.example");
      // An upsert without e-mail keeps it too; a principal never seen with one has null.
      await store.principals.upsert(org, [
        { userId: "u1", username: "alice", isOrgAdmin: true },
        { userId: "u2", username: "bob" },
      ]);
      expect((await store.principals.list(org)).data.map((p) => [p.username, p.email])).toEqual([
        ["alice", "alice@corp.example"],
        ["bob", null],
      ]);
    });

    it("keeps a mixed v1 role's unlimited part in step with its groups: two groups share it, the last one out (removed or deleted) removes it", async () => {
      const org = newOrg();
      const { value: t } = await store.tenants.bootstrap(org);
      const ws = (await store.workspaces.create(org, { name: "Edge" })).value;
      const access = [
        { permission: "inventory:hosts:write", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "equal", value: ws.id } }] },
        { permission: "patch:system:write", resourceDefinitions: [] },
      ];
      const targets = { levels: [], workspaceIds: [ws.id], unlimited: { levels: ["default" as const], permissions: ["patch:system:write"] } };
      const role = (await store.v1Writes.createRole(org, { name: "Mixed", displayName: "Mixed", description: null, access, scope: "default", targets })).value;
      const [g1, g2] = [(await store.groups.create(org, { name: "G1" })).value, (await store.groups.create(org, { name: "G2" })).value];
      const part = async () => (await store.relationships.read(org)).filter((r) => r.resourceId.startsWith(`${role.id}_u`) || r.subjectId.startsWith(`${role.id}_u`));
      expect(await part()).toEqual([]);
      await store.v1Writes.addGroupRoles(org, g1.id, [{ roleId: role.id, targets }]);
      await store.v1Writes.addGroupRoles(org, g2.id, [{ roleId: role.id, targets }]);
      const shared = await part();
      // The part's permission, its binding on the Default Workspace, its role, and both groups.
      expect(
        shared
          .filter((r) => r.relation === "t_subject")
          .map((r) => r.subjectId)
          .sort(),
      ).toEqual([g1.id, g2.id].sort());
      expect(shared.some((r) => r.resourceType === "rbac/workspace" && r.resourceId === t.defaultWorkspaceId && r.relation === "t_binding")).toBe(true);
      expect(shared.some((r) => r.resourceType === "rbac/role" && r.relation === "t_patch_system_write")).toBe(true);
      // No ordinary binding of the role at the Default Workspace: the whole role would over-grant there.
      expect((await store.roleBindings.list(org, { resource: { type: "workspace", id: t.defaultWorkspaceId }, roleId: role.id, limit: -1 })).data).toEqual([]);
      await store.v1Writes.removeGroupRoles(org, g1.id, [role.id]);
      expect((await part()).filter((r) => r.relation === "t_subject").map((r) => r.subjectId)).toEqual([g2.id]);
      await store.groups.delete(org, g2.id);
      expect(await part()).toEqual([]);
      // Made whole again and deleted: nothing of the part is left either.
      await store.v1Writes.addGroupRoles(org, g1.id, [{ roleId: role.id, targets }]);
      expect((await part()).length).toBeGreaterThan(0);
      await store.v1Writes.deleteRole(org, role.id);
      expect(await part()).toEqual([]);
    });

    it("reports, moves and deletes hosts", async () => {
      const org = newOrg();
      const { value: t } = await store.tenants.bootstrap(org);
      const ws = (await store.workspaces.create(org, { name: "W" })).value;
      await store.hosts.report(org, "h1", t.defaultWorkspaceId);
      await store.hosts.report(org, "h1", ws.id);
      expect((await store.hosts.get(org, "h1")).workspaceId).toBe(ws.id);
      const tuples = await store.relationships.read(org, { resourceType: "hbi/host" });
      expect(tuples).toEqual([{ resourceType: "hbi/host", resourceId: "h1", relation: "t_workspace", subjectType: "rbac/workspace", subjectId: ws.id }]);
      const other = newOrg();
      const { value: o } = await store.tenants.bootstrap(other);
      await expectCode(store.hosts.report(other, "h1", o.defaultWorkspaceId), "cross-tenant");
      await store.hosts.delete(org, "h1");
      await expectCode(store.hosts.delete(org, "h1"), "not-found");
      expect(await store.relationships.read(org, { resourceType: "hbi/host" })).toEqual([]);
    });

    it("writes raw relationships with validation and reports effective changes", async () => {
      const org = newOrg();
      await store.tenants.bootstrap(org);
      const r = { resourceType: "hbi/host", resourceId: "x1", relation: "t_workspace", subjectType: "rbac/workspace", subjectId: "w1" };
      const w1 = await store.relationships.write(org, { touch: [r, r] });
      expect(w1.value).toEqual({ touched: 1, deleted: 0 });
      expect((await store.relationships.write(org, { touch: [r] })).value).toEqual({ touched: 0, deleted: 0 });
      const changes = await store.feed.changesSince(w1.revision - 1, 1);
      expect(changes[0]!.touched).toEqual([r]);
      await expectCode(store.relationships.write(org, { touch: [{ ...r, relation: "Bad-Rel" }] }), "invalid-argument");
      await expectCode(store.relationships.write(org, {}), "invalid-argument");
      expect((await store.relationships.write(org, { delete: [r] })).value).toEqual({ touched: 0, deleted: 1 });
    });
  });
});
