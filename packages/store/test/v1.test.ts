// store.v1: reads with insights-rbac's v1 semantics, and the v1 access lists imports keep.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError, type Store, type TenantImportPlan, type V1AccessEntry } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const backends = await testBackends();
let orgCounter = 0;
const newOrg = () => `v1r${process.pid}x${++orgCounter}`;

const filtered: V1AccessEntry = {
  permission: "cost-management:*:read",
  resourceDefinitions: [{ attributeFilter: { key: "cost-management.aws.account", operation: "in", value: ["1", null] } }],
};

const plan = (): TenantImportPlan => ({
  principals: [
    { userId: "ann", username: "ann", isOrgAdmin: true },
    { userId: "ben", username: "ben" },
    { userId: "sa1", username: "service-account-sa1", type: "service-account" },
  ],
  roles: [
    { key: "cost", name: "Cost", permissions: ["cost-management:*:read"], scope: "default", access: [filtered] },
    { key: "hosts", name: "Hosts", permissions: ["inventory:hosts:read"], scope: "default" },
  ],
  groups: [
    { key: "fin", name: "Finance", members: ["ben", "sa1"] },
    { key: "empty", name: "Empty", members: [] },
  ],
  bindings: [
    { role: { key: "cost" }, group: { key: "fin" }, level: "default" },
    { role: { key: "hosts" }, group: { key: "empty" }, level: "default" },
  ],
});

describe.each(backends)("v1 reads on $name", (backend) => {
  let store: Store;
  let names: Map<string, string>;
  beforeAll(async () => {
    store = await openTestStore(backend);
    await store.roles.seedSystemRoles([
      { name: "Everyone", platform_default: true, access: [{ permission: "notifications:*:read" }], scope: "default" },
      { name: "Everyone org", platform_default: true, access: [{ permission: "rbac:principal:read" }], scope: "tenant" },
      { name: "Admins", admin_default: true, access: [{ permission: "rbac:*:*" }], scope: "tenant" },
    ]);
  });
  afterAll(async () => {
    await store?.close();
  });
  const roleNames = async (org: string, userId: string, q: { isOrgAdmin: boolean; defaultGroups: boolean }) => {
    names ??= new Map();
    for (const r of (await store.roles.list(org, { limit: -1 })).data) names.set(r.id, r.name);
    return [...new Set((await store.v1.grantsOf(org, userId, q)).map((g) => names.get(g.roleId)))].sort();
  };

  it("a user holds its groups' roles and the default groups' (admins also the admin ones); a service account only its groups'", async () => {
    const org = newOrg();
    await store.imports.applyTenant(org, plan());
    expect(await roleNames(org, "ben", { isOrgAdmin: false, defaultGroups: true })).toEqual(["Cost", "Everyone", "Everyone org"]);
    expect(await roleNames(org, "ann", { isOrgAdmin: true, defaultGroups: true })).toEqual(["Admins", "Everyone", "Everyone org"]);
    expect(await roleNames(org, "sa1", { isOrgAdmin: false, defaultGroups: false })).toEqual(["Cost"]);
    expect(await roleNames(org, "nobody", { isOrgAdmin: false, defaultGroups: true })).toEqual(["Everyone", "Everyone org"]);
    // Another tenant sees none of it.
    const other = newOrg();
    await store.tenants.bootstrap(other);
    expect(await roleNames(other, "ben", { isOrgAdmin: false, defaultGroups: false })).toEqual([]);
  });

  it("a grant made by the import, the v1 dual write and a v2 batch is one binding subject (one grant path)", async () => {
    const org = newOrg();
    const imported = await store.imports.applyTenant(org, plan());
    const [roleId, groupId] = [imported.value.roleIds["hosts"]!, imported.value.groupIds["empty"]!];
    const { defaultWorkspaceId } = await store.tenants.get(org);
    const subjectsOf = async () => (await store.roleBindings.list(org, { roleId, limit: -1 })).data.map((b) => ({ id: b.id, resource: b.resource.id, subjects: b.subjects.map((s) => s.id) }));
    const [bound] = await subjectsOf();
    expect(bound).toMatchObject({ resource: defaultWorkspaceId, subjects: [groupId] });
    const v1 = await store.v1Writes.addGroupRoles(org, groupId, [{ roleId, targets: { levels: ["default"], workspaceIds: [] } }]);
    expect(v1.value.map((r) => r.id)).toEqual([roleId]);
    const [v2] = (await store.roleBindings.batchCreate(org, [{ roleId, resource: { type: "workspace", id: defaultWorkspaceId }, subject: { type: "group", id: groupId } }])).value;
    expect(v2!.id).toBe(bound!.id);
    expect(await subjectsOf()).toEqual([bound]);
  });

  it("a customised default group replaces the default roles at the levels given", async () => {
    const org = newOrg();
    await store.imports.applyTenant(org, { ...plan(), defaultAccess: { default: [{ key: "hosts" }], tenant: [] } });
    expect(await roleNames(org, "ben", { isOrgAdmin: false, defaultGroups: true })).toEqual(["Cost", "Hosts"]);
  });

  it("keeps the imported access list (resource definitions, null values) and re-imports it without change", async () => {
    const org = newOrg();
    const first = await store.imports.applyTenant(org, plan());
    const costId = first.value.roleIds["cost"]!;
    const hostsId = first.value.roleIds["hosts"]!;
    const access = await store.v1.accessOf([costId, hostsId, "not-a-uuid"]);
    expect(access.get(costId)).toEqual([filtered]);
    expect(access.get(hostsId)).toEqual([{ permission: "inventory:hosts:read", resourceDefinitions: [] }]);
    const again = await store.imports.applyTenant(org, plan());
    expect(again.value.changed).toBe(false);
    // A v2 edit of the permissions supersedes the stored list.
    await store.roles.update(org, costId, { name: "Cost", permissions: ["cost-management:*:write"], scope: "default" });
    expect((await store.v1.accessOf([costId])).get(costId)).toEqual([{ permission: "cost-management:*:write", resourceDefinitions: [] }]);
  });

  it("lists the groups of roles and the roles of groups, default groups through the platform parent roles", async () => {
    const org = newOrg();
    const { value } = await store.imports.applyTenant(org, plan());
    const seeded = (await store.roles.list(org, { kinds: ["seeded"], limit: -1 })).data;
    const everyone = seeded.find((r) => r.name === "Everyone")!.id;
    const groups = await store.v1.groupsOfRoles(org, [value.roleIds["cost"]!, everyone]);
    expect(groups.get(value.roleIds["cost"]!)!.map((g) => g.name)).toEqual(["Finance"]);
    expect(groups.get(everyone)!.map((g) => g.kind)).toEqual(["platform-default"]);
    expect(await store.v1.rolesOfGroup(org, value.groupIds["fin"]!)).toEqual([value.roleIds["cost"]]);
    expect((await store.v1.rolesOfGroup(org, value.tenant.platformDefaultGroupId)).sort()).toEqual(
      seeded
        .filter((r) => r.platformDefault)
        .map((r) => r.id)
        .sort(),
    );
    expect(await store.v1.rolesOfGroup(org, "nope")).toEqual([]);
  });

  it("refuses an access list that does not name exactly the role's permissions, writing nothing", async () => {
    const org = newOrg();
    const bad = plan();
    bad.roles![0]!.access = [{ permission: "cost-management:*:write", resourceDefinitions: [] }];
    const before = await store.feed.headRevision();
    const error = await store.imports.applyTenant(org, bad).catch((e: unknown) => e);
    expect(isStoreError(error, "invalid-argument")).toBe(true);
    const malformed = plan();
    malformed.roles![0]!.access = [{ permission: "cost-management:*:read", resourceDefinitions: [{ attributeFilter: { operation: "in" } } as never] }];
    expect(isStoreError(await store.imports.applyTenant(org, malformed).catch((e: unknown) => e), "invalid-argument")).toBe(true);
    expect(await store.feed.headRevision()).toBe(before);
  });
});
