// Role seeding as insights-rbac does it: create missing seeded roles, rewrite a role only when its
// configured version is higher, leave the rest (and custom roles) alone; one transaction; a run
// that changes nothing writes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError, type Relationship, type Store, type SystemRoleDefinition } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const backends = await testBackends();

const viewer = (version: number, permissions = ["inventory:hosts:read"]): SystemRoleDefinition => ({
  name: "Seed viewer",
  description: "Reads hosts",
  version,
  platform_default: true,
  access: permissions.map((permission) => ({ permission })),
});
const admin: SystemRoleDefinition = { name: "Seed admin", description: "Everything", version: 3, admin_default: true, scope: "tenant", access: [{ permission: "rbac:*:*" }] };

const has = (tuples: Relationship[], t: Partial<Relationship>): boolean => tuples.some((x) => Object.entries(t).every(([k, v]) => (x as unknown as Record<string, unknown>)[k] === v));

describe.each(backends)("seedSystemRoles on $name", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(backend);
    await store.tenants.bootstrap("seedorg");
  });
  afterAll(async () => {
    await store?.close();
  });

  const roleTuples = async (roleId: string) => store.relationships.read("seedorg", { includePublic: true, resourceType: "rbac/role", resourceId: roleId });

  it("creates missing roles with their tuples and default-group children, reporting progress and what changed", async () => {
    const progress: string[] = [];
    const { value: report } = await store.roles.seedSystemRoles([viewer(1), admin], { onProgress: (done, total, name, action) => progress.push(`${done}/${total} ${name} ${action}`) });
    expect(report).toMatchObject({ created: ["Seed viewer", "Seed admin"], updated: [], unchanged: [], changed: true });
    expect(progress).toEqual(["1/2 Seed viewer created", "2/2 Seed admin created"]);
    const [v, a] = report.roles;
    expect(has(await roleTuples(v!.id), { relation: "t_inventory_hosts_read", subjectType: "rbac/principal", subjectId: "*" })).toBe(true);
    const platform = await store.roles.platformRoles();
    const userDefault = platform.find((p) => p.platformDefault && p.scope === "default")!;
    const adminTenant = platform.find((p) => p.adminDefault && p.scope === "tenant")!;
    expect(has(await roleTuples(userDefault.id), { relation: "t_child", subjectId: v!.id })).toBe(true);
    expect(has(await roleTuples(adminTenant.id), { relation: "t_child", subjectId: a!.id })).toBe(true);
  });

  it("a re-run with the same versions writes nothing (no new revision)", async () => {
    const head = await store.feed.headRevision();
    const { value: report, revision } = await store.roles.seedSystemRoles([viewer(1), admin]);
    expect(report).toMatchObject({ created: [], updated: [], unchanged: ["Seed viewer", "Seed admin"], changed: false });
    expect(revision).toBe(head);
    expect(await store.feed.headRevision()).toBe(head);
  });

  it("different content under the same version is not written (the version decides)", async () => {
    const head = await store.feed.headRevision();
    const { value: report } = await store.roles.seedSystemRoles([viewer(1, ["inventory:hosts:write"]), admin]);
    expect(report.changed).toBe(false);
    expect(report.roles[0]!.permissions).toEqual(["inventory:hosts:read"]);
    expect(await store.feed.headRevision()).toBe(head);
  });

  it("a higher version rewrites the role and the tuples its permissions imply, keeping its id", async () => {
    const before = (await store.roles.seedSystemRoles([viewer(1), admin])).value.roles[0]!;
    const { value: report } = await store.roles.seedSystemRoles([viewer(2, ["inventory:hosts:read", "inventory:hosts:write"]), admin]);
    expect(report).toMatchObject({ created: [], updated: [{ name: "Seed viewer", from: 1, to: 2 }], unchanged: ["Seed admin"], changed: true });
    expect(report.roles[0]!.id).toBe(before.id);
    expect(report.roles[0]!.permissions).toEqual(["inventory:hosts:read", "inventory:hosts:write"]);
    expect(has(await roleTuples(before.id), { relation: "t_inventory_hosts_write" })).toBe(true);
    // Lower versions never roll a role back.
    const { value: older } = await store.roles.seedSystemRoles([viewer(1), admin]);
    expect(older.changed).toBe(false);
  });

  it("never touches custom roles, and keeps seeded roles that are no longer configured", async () => {
    const custom = (await store.roles.create("seedorg", { name: "Mine", permissions: ["inventory:hosts:read"] })).value;
    const { value: report } = await store.roles.seedSystemRoles([admin]);
    expect(report.unconfigured).toEqual(["Seed viewer"]);
    expect(await store.roles.get("seedorg", custom.id)).toEqual(custom);
    expect((await store.roles.list("seedorg", { kinds: ["seeded"], limit: -1 })).data.map((r) => r.name)).toContain("Seed viewer");
  });

  it("is one transaction: a failing role leaves nothing behind", async () => {
    const head = await store.feed.headRevision();
    const platformName = (await store.roles.platformRoles())[0]!.name;
    const error = await store.roles
      .seedSystemRoles([
        { name: "Seed new", description: "x", version: 1, access: [{ permission: "inventory:hosts:read" }] },
        { name: platformName, description: "x", access: [{ permission: "rbac:*:*" }] },
      ])
      .catch((e: unknown) => e);
    expect(isStoreError(error) && error.code).toBe("duplicate-name");
    expect((await store.roles.list("seedorg", { name: "Seed new" })).count).toBe(0);
    expect(await store.feed.headRevision()).toBe(head);
  });

  it("activating a configuration records it and always takes one revision of kind role_config, with the seeding", async () => {
    const head = await store.feed.headRevision();
    const activate = { hash: "abc", dir: "/cfg/stage", loadedAt: new Date("2026-01-02T03:04:05Z"), schemaZed: "definition a {}\n" };
    const { revision, value } = await store.roles.seedSystemRoles([admin], { activate });
    expect(value.changed).toBe(true);
    expect(revision).toBe(head + 1);
    expect(await store.roleConfig.active()).toEqual(activate);
    const [change] = await store.feed.changesSince(head, 10);
    expect(change).toMatchObject({ revision: head + 1, kind: "role_config" });
  });

  it("names the schema elements stored relationships still use", async () => {
    const used = await store.roleConfig.inUse([
      { kind: "type", type: "rbac/workspace" },
      { kind: "type", type: "nothing/here" },
      { kind: "relation", type: "rbac/role", name: "t_inventory_hosts_read" },
      { kind: "relation", type: "rbac/role", name: "t_nobody_uses_this" },
      { kind: "permission", type: "rbac/group", name: "member" },
    ]);
    expect(used).toEqual([
      { kind: "type", type: "rbac/workspace" },
      { kind: "relation", type: "rbac/role", name: "t_inventory_hosts_read" },
      { kind: "permission", type: "rbac/group", name: "member" },
    ]);
  });
});
