// Replicated tuples (KesselTupleService's store side) on every backend: one transaction per call,
// upsert/create, lock fencing, filters and paging, and no reach into Gatehouse tenants' rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError, type Relationship, type Store } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const backends = await testBackends();
const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string): Relationship => ({ resourceType, resourceId, relation, subjectType, subjectId });

describe.each(backends)("replicated tuples on $name", (backend) => {
  let store: Store;
  let managedWorkspace: string;
  beforeAll(async () => {
    store = await openTestStore(backend, { pollIntervalMs: 50 });
    managedWorkspace = (await store.tenants.bootstrap("rep-org")).value.defaultWorkspaceId;
  });
  afterAll(async () => {
    await store?.close();
  });

  it("creates all or nothing, upserts idempotently, and each write is one change", async () => {
    const a = rel("rbac/workspace", "rw-1", "t_parent", "rbac/tenant", "redhat/x");
    const b = rel("rbac/workspace", "rw-1", "t_binding", "rbac/role_binding", "rb-1");
    const first = await store.replicated.create([a], { upsert: false });
    expect(first.value).toEqual({ ok: true, count: 1 });
    const clash = await store.replicated.create([b, a], { upsert: false });
    expect(clash.value).toMatchObject({ ok: false, reason: "exists", tuple: a });
    expect(clash.revision).toBe(first.revision);
    expect(await store.replicated.read({ resourceId: "rw-1" })).toEqual([a]);
    const upserted = await store.replicated.create([a, b], { upsert: true });
    expect(upserted.value).toEqual({ ok: true, count: 1 });
    const [change] = await store.feed.changesSince(upserted.revision - 1);
    expect(change?.touched).toEqual([b]);
  });

  it("fences writes with the lock's current token", async () => {
    const first = (await store.replicated.acquireLock("l-1")).value;
    const second = (await store.replicated.acquireLock("l-1")).value;
    const t = rel("rbac/group", "g-1", "t_member", "rbac/principal", "redhat/u");
    expect((await store.replicated.create([t], { upsert: true, fencing: { lockId: "l-1", lockToken: first } })).value).toEqual({ ok: false, reason: "lock-mismatch" });
    expect((await store.replicated.create([t], { upsert: true, fencing: { lockId: "l-1", lockToken: second } })).value).toEqual({ ok: true, count: 1 });
    expect((await store.replicated.delete({ resourceId: "g-1" }, { fencing: { lockId: "l-1", lockToken: first } })).value).toEqual({ ok: false, reason: "lock-mismatch" });
    expect((await store.replicated.delete({ resourceId: "g-1" }, { fencing: { lockId: "l-1", lockToken: second } })).value).toEqual({ ok: true, count: 1 });
    // Lock tuples are AcquireLock's alone: never read, never written or deleted through a filter.
    expect(await store.replicated.read({ resourceType: "kessel/lock", resourceId: "l-1" })).toEqual([]);
    await expect(store.replicated.create([rel("kessel/lock", "l-1", "t_version", "kessel/lockversion", "forged")], { upsert: true })).rejects.toSatisfy((e: unknown) =>
      isStoreError(e, "cross-tenant"),
    );
    expect((await store.replicated.delete({ resourceType: "kessel/lock" }, {})).value).toEqual({ ok: true, count: 0 });
    expect((await store.replicated.create([t], { upsert: true, fencing: { lockId: "l-1", lockToken: second } })).value).toEqual({ ok: true, count: 1 });
  });

  it("pages in key order strictly after a tuple", async () => {
    const many = Array.from({ length: 5 }, (_, i) => rel("rbac/role", "pr-1", `t_p${i}`, "rbac/principal", "*"));
    await store.replicated.create(many, { upsert: true });
    const page1 = await store.replicated.read({ resourceId: "pr-1" }, { limit: 2 });
    const page2 = await store.replicated.read({ resourceId: "pr-1" }, { limit: 10, after: page1[1]! });
    expect([...page1, ...page2].map((r) => r.relation)).toEqual(["t_p0", "t_p1", "t_p2", "t_p3", "t_p4"]);
  });

  it("never touches a tenant's rows or objects", async () => {
    await expect(store.replicated.create([rel("rbac/workspace", managedWorkspace, "t_binding", "rbac/role_binding", "x")], { upsert: true })).rejects.toSatisfy((e: unknown) =>
      isStoreError(e, "cross-tenant"),
    );
    expect(await store.replicated.read({ resourceId: managedWorkspace })).toEqual([]);
    expect((await store.replicated.delete({ resourceId: managedWorkspace }, {})).value).toEqual({ ok: true, count: 0 });
    expect((await store.relationships.read("rep-org", { resourceId: managedWorkspace })).length).toBeGreaterThan(0);
    await expect(store.replicated.create([rel("Bad Type", "x", "t_a", "rbac/principal", "u")], { upsert: true })).rejects.toSatisfy((e: unknown) => isStoreError(e, "invalid-argument"));
  });
});
