// store.imports.applyTenant: one tenant's plan in one transaction, idempotent, all or nothing.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError, type Store, type StoreErrorCode, type TenantImportPlan } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const backends = await testBackends();
let orgCounter = 0;
const newOrg = () => `imp${process.pid}x${++orgCounter}`;

async function expectCode(p: Promise<unknown>, code: StoreErrorCode): Promise<void> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isStoreError(error) ? error.code : error).toBe(code);
}

const plan = (): TenantImportPlan => ({
  principals: [
    { userId: "alice", username: "alice", isOrgAdmin: true },
    { userId: "bob", username: "bob" },
  ],
  roles: [
    { key: "ops", name: "Operators", permissions: ["patch:system:write", "inventory:hosts:read"], scope: "default" },
    { key: "acks", name: "Acks", permissions: ["advisor:disable-recommendations:write"], scope: "root" },
  ],
  groups: [
    { key: "g-ops", name: "Ops", members: ["alice", "bob"] },
    { key: "g-acks", name: "Ackers", members: ["bob"] },
  ],
  bindings: [
    { role: { key: "ops" }, group: { key: "g-ops" }, level: "default" },
    { role: { key: "acks" }, group: { key: "g-acks" }, level: "root" },
    { role: { seeded: "Seeded Viewer" }, group: { key: "g-ops" }, level: "default" },
  ],
});

describe.each(backends)("imports.applyTenant on $name", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(backend);
    await store.roles.seedSystemRoles([
      { name: "Seeded Viewer", access: [{ permission: "inventory:hosts:read" }], scope: "default" },
      { name: "Seeded Org Viewer", access: [{ permission: "rbac:principal:read" }], scope: "tenant" },
    ]);
  });
  afterAll(async () => {
    await store?.close();
  });

  it("writes the whole plan in one transaction with one change-feed entry, then a re-run changes nothing", async () => {
    const org = newOrg();
    const before = await store.feed.headRevision();
    const phases = new Set<string>();
    const stableId = randomUUID();
    const p = plan();
    p.roles![0]!.id = stableId;
    const first = await store.imports.applyTenant(org, p, { onProgress: (phase) => phases.add(phase) });
    expect(first.value).toMatchObject({ changed: true, tenantCreated: true, principalsWritten: 2, rolesCreated: 2, groupsCreated: 2, membersAdded: 3, grantsAdded: 3 });
    expect(first.revision).toBe(before + 1);
    expect([...phases]).toEqual(expect.arrayContaining(["tenant", "principals", "roles", "groups", "bindings"]));
    const changes = (await store.feed.changesSince(before)).filter((c) => c.orgId === org);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.kind).toBe("import_tenant");

    const tenant = first.value.tenant;
    expect(first.value.roleIds.ops).toBe(stableId);
    expect((await store.principals.list(org, { limit: -1 })).count).toBe(2);
    expect(await store.groups.members(org, first.value.groupIds["g-ops"]!)).toEqual(["alice", "bob"]);
    const atRoot = await store.roleBindings.rolesOfSubject(org, { type: "workspace", id: tenant.rootWorkspaceId }, { type: "group", id: first.value.groupIds["g-acks"]! });
    expect(atRoot).toEqual([first.value.roleIds.acks]);
    const tuples = await store.relationships.read(org);
    expect(tuples.some((t) => t.resourceType === "rbac/role" && t.resourceId === first.value.roleIds.ops && t.relation === "t_patch_system_write")).toBe(true);
    expect(tuples.some((t) => t.resourceType === "rbac/group" && t.relation === "t_member" && t.subjectId === "redhat/alice")).toBe(true);
    // Exactly the effective tuple changes of the transaction are in its feed entry.
    expect(changes[0]!.touched.length).toBe(tuples.length);

    const head = await store.feed.headRevision();
    const again = await store.imports.applyTenant(org, p);
    expect(again.value).toMatchObject({ changed: false, tenantCreated: false, principalsWritten: 0, rolesCreated: 0, rolesUpdated: 0, groupsCreated: 0, membersAdded: 0, grantsAdded: 0 });
    expect(again.value.roleIds).toEqual(first.value.roleIds);
    expect(again.revision).toBe(head);
    expect(await store.feed.headRevision()).toBe(head);
  });

  it("finds roles and groups created through the API by name", async () => {
    const org = newOrg();
    await store.tenants.bootstrap(org);
    const role = await store.roles.create(org, { name: "operators", permissions: ["patch:system:write"], scope: "default" });
    const result = await store.imports.applyTenant(org, plan());
    expect(result.value.roleIds.ops).toBe(role.value.id);
    expect(result.value.rolesUpdated).toBe(1);
    expect((await store.roles.get(org, role.value.id)).permissions.sort()).toEqual(["inventory:hosts:read", "patch:system:write"]);
  });

  it("replaces the platform-default group's roles per level with defaultAccess", async () => {
    const org = newOrg();
    const p: TenantImportPlan = { ...plan(), defaultAccess: { tenant: [{ seeded: "Seeded Org Viewer" }], root: [], default: [{ key: "ops" }] } };
    const first = await store.imports.applyTenant(org, p);
    const t = first.value.tenant;
    const subject = { type: "group" as const, id: t.platformDefaultGroupId };
    const orgViewer = (await store.roles.list(org, { name: "Seeded Org Viewer" })).data[0]!;
    expect(await store.roleBindings.rolesOfSubject(org, { type: "tenant", id: t.tenantId }, subject)).toEqual([orgViewer.id]);
    expect(await store.roleBindings.rolesOfSubject(org, { type: "workspace", id: t.rootWorkspaceId }, subject)).toEqual([]);
    expect(await store.roleBindings.rolesOfSubject(org, { type: "workspace", id: t.defaultWorkspaceId }, subject)).toEqual([first.value.roleIds.ops]);
    expect(first.value.grantsRemoved).toBe(3);
    expect((await store.imports.applyTenant(org, p)).value.changed).toBe(false);
  });

  it("binds a role with targets exactly there, repairing an earlier organisation-level binding, with its unlimited part and a count of unknown workspaces", async () => {
    const org = newOrg();
    const { value: t } = await store.tenants.bootstrap(org);
    const edge = (await store.workspaces.create(org, { name: "Edge" })).value;
    const unknown = randomUUID();
    const access = [
      { permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "in", value: [edge.id, unknown] } }] },
      { permission: "patch:system:write", resourceDefinitions: [] },
    ];
    const role = { key: "mixed", name: "Mixed", permissions: ["inventory:hosts:read", "patch:system:write"], scope: "default" as const, access };
    const base: TenantImportPlan = {
      principals: [{ userId: "alice", username: "alice" }],
      roles: [role],
      groups: [{ key: "g", name: "Edge team", members: ["alice"] }],
      bindings: [{ role: { key: "mixed" }, group: { key: "g" }, level: "default" }],
    };
    // An import without targets (the over-grant): the whole role at the Default Workspace.
    const first = await store.imports.applyTenant(org, base);
    const roleId = first.value.roleIds.mixed!;
    const group = { type: "group" as const, id: first.value.groupIds.g! };
    expect(await store.roleBindings.rolesOfSubject(org, { type: "workspace", id: t.defaultWorkspaceId }, group)).toEqual([roleId]);

    const targets = { levels: [], workspaceIds: [edge.id, unknown], unlimited: { levels: ["default" as const], permissions: ["patch:system:write"] } };
    const limited: TenantImportPlan = { ...base, roles: [{ ...role, targets }] };
    const second = await store.imports.applyTenant(org, limited);
    expect(second.value.unknownWorkspaces).toEqual({ mixed: 1 });
    expect(second.value.grantsAdded).toBe(1);
    expect(await store.roleBindings.rolesOfSubject(org, { type: "workspace", id: t.defaultWorkspaceId }, group)).toEqual([]);
    expect(await store.roleBindings.rolesOfSubject(org, { type: "workspace", id: edge.id }, group)).toEqual([roleId]);
    const part = (await store.relationships.read(org)).filter((r) => r.resourceId.startsWith(`${roleId}_u`) || r.subjectId.startsWith(`${roleId}_u`));
    expect(part.filter((r) => r.relation === "t_subject").map((r) => r.subjectId)).toEqual([group.id]);
    expect(part.some((r) => r.resourceType === "rbac/workspace" && r.resourceId === t.defaultWorkspaceId && r.relation === "t_binding")).toBe(true);
    expect(part.filter((r) => r.resourceType === "rbac/role").map((r) => r.relation)).toEqual(["t_patch_system_write"]);

    const head = await store.feed.headRevision();
    const again = await store.imports.applyTenant(org, limited);
    expect(again.value).toMatchObject({ changed: false, unknownWorkspaces: { mixed: 1 } });
    expect(await store.feed.headRevision()).toBe(head);
  });

  it("binds a limited role of a customised default access on its workspaces, not at the level", async () => {
    const org = newOrg();
    const { value: t } = await store.tenants.bootstrap(org);
    const edge = (await store.workspaces.create(org, { name: "Edge" })).value;
    const access = [{ permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "equal", value: edge.id } }] }];
    const p: TenantImportPlan = {
      roles: [{ key: "lim", name: "Edge viewer", permissions: ["inventory:hosts:read"], scope: "default", access, targets: { levels: [], workspaceIds: [edge.id] } }],
      defaultAccess: { tenant: [], root: [], default: [{ key: "lim" }] },
    };
    const first = await store.imports.applyTenant(org, p);
    const subject = { type: "group" as const, id: t.platformDefaultGroupId };
    expect(await store.roleBindings.rolesOfSubject(org, { type: "workspace", id: t.defaultWorkspaceId }, subject)).toEqual([]);
    expect(await store.roleBindings.rolesOfSubject(org, { type: "workspace", id: edge.id }, subject)).toEqual([first.value.roleIds.lim]);
    expect((await store.imports.applyTenant(org, p)).value.changed).toBe(false);
  });

  describe("all or nothing", () => {
    async function expectNothingWritten(org: string, run: () => Promise<unknown>, code: StoreErrorCode, tenantExisted: boolean) {
      const head = await store.feed.headRevision();
      const tuplesBefore = tenantExisted ? await store.relationships.read(org) : [];
      await expectCode(run(), code);
      expect(await store.feed.headRevision()).toBe(head);
      expect((await store.feed.changesSince(head)).length).toBe(0);
      if (!tenantExisted) {
        expect(await store.tenants.find(org)).toBeUndefined();
        return;
      }
      expect(await store.relationships.read(org)).toEqual(tuplesBefore);
      expect((await store.principals.list(org, { limit: -1 })).count).toBe(0);
      expect((await store.roles.list(org, { kinds: ["custom"], limit: -1 })).count).toBe(0);
      expect((await store.groups.list(org, { limit: -1 })).data.filter((g) => g.kind === "standard")).toEqual([]);
      expect((await store.roleBindings.list(org, { limit: -1 })).count).toBe(6);
    }

    it("a binding to an unknown seeded role leaves nothing written, not even the tenant", async () => {
      const org = newOrg();
      const p = plan();
      p.bindings!.push({ role: { seeded: "No Such Role" }, group: { key: "g-ops" }, level: "default" });
      await expectNothingWritten(org, () => store.imports.applyTenant(org, p), "not-found", false);
    });

    it("a group whose name is taken by the tenant's default group leaves nothing written", async () => {
      const org = newOrg();
      await store.tenants.bootstrap(org);
      const p = plan();
      p.groups!.push({ key: "dup", name: "default ACCESS", members: [] });
      await expectNothingWritten(org, () => store.imports.applyTenant(org, p), "duplicate-name", true);
    });

    it("a role bound at a level its scope does not allow leaves nothing written", async () => {
      const org = newOrg();
      await store.tenants.bootstrap(org);
      const p = plan();
      p.bindings!.push({ role: { key: "acks" }, group: { key: "g-ops" }, level: "default" });
      await expectNothingWritten(org, () => store.imports.applyTenant(org, p), "not-assignable", true);
    });

    it("rejects plan-internal mistakes before any write", async () => {
      const org = newOrg();
      const dupNames = plan();
      dupNames.groups!.push({ key: "g3", name: "OPS", members: [] });
      await expectNothingWritten(org, () => store.imports.applyTenant(org, dupNames), "duplicate-name", false);
      const unknownKey = plan();
      unknownKey.bindings!.push({ role: { key: "nope" }, group: { key: "g-ops" }, level: "default" });
      await expectNothingWritten(org, () => store.imports.applyTenant(org, unknownKey), "not-found", false);
      for (const targets of [
        { levels: [], workspaceIds: ["not-a-uuid"] },
        { levels: ["nowhere"], workspaceIds: [] },
        { levels: [] },
        { levels: [], workspaceIds: [], unlimited: { levels: ["default"] } },
      ]) {
        const badTargets = plan();
        badTargets.roles![0] = { ...badTargets.roles![0]!, targets: targets as never };
        await expectNothingWritten(org, () => store.imports.applyTenant(org, badTargets), "invalid-argument", false);
      }
      const unknownMember = plan();
      unknownMember.groups![0] = { key: "g-ops", name: "Ops", members: ["ghost"] };
      await expectNothingWritten(org, () => store.imports.applyTenant(org, unknownMember), "not-found", false);
    });
  });
});
