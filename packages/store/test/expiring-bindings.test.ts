// Time-bound grants: a binding subject's expiry is stored on its row and on its t_subject tuple,
// travels through the change feed and snapshots, and a later write without one clears it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError, type Relationship, type Store } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const backends = await testBackends();
// The store judges expiries by this clock, never the machine's: a slow run cannot turn a future
// expiry into a past one.
let clock = Date.UTC(2030, 0, 1);
const now = () => clock;
let orgCounter = 0;
const newOrg = () => `exp${process.pid}x${++orgCounter}`;

const subjectTuples = (tuples: Relationship[], bindingId: string) => tuples.filter((t) => t.resourceType === "rbac/role_binding" && t.resourceId === bindingId && t.relation === "t_subject");

async function snapshotTuples(store: Store): Promise<Relationship[]> {
  const snap = await store.feed.snapshot();
  const out: Relationship[] = [];
  for await (const batch of snap.batches) out.push(...batch);
  return out;
}

describe.each(backends)("expiring role-binding subjects on $name", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(backend, { now });
    await store.roles.seedSystemRoles([{ name: "Hosts viewer", access: [{ permission: "inventory:hosts:read" }] }]);
  });
  afterAll(async () => {
    await store?.close();
  });

  async function setup() {
    const org = newOrg();
    await store.tenants.bootstrap(org);
    await store.principals.upsert(org, [{ userId: "u1", username: "alice" }]);
    const ws = (await store.workspaces.create(org, { name: "Prod" })).value;
    const viewer = (await store.roles.list(org, { kinds: ["seeded"], limit: -1 })).data.find((r) => r.name === "Hosts viewer")!;
    return { org, ws, viewer, subject: { type: "principal" as const, id: "u1" } };
  }

  it("stores the expiry on the subject and its tuple, in the feed and the snapshot", async () => {
    const { org, ws, viewer, subject } = await setup();
    const expiresAt = new Date(now() + 3_600_000);
    const before = await store.feed.headRevision();
    const { value, revision } = await store.roleBindings.batchCreate(org, [{ resource: { type: "workspace", id: ws.id }, subject, roleId: viewer.id, expiresAt }]);
    expect(value[0]!.subjects).toEqual([{ type: "principal", id: "u1", expiresAt }]);
    expect((await store.roleBindings.get(org, value[0]!.id)).subjects[0]!.expiresAt).toEqual(expiresAt);

    const [tuple] = subjectTuples(await snapshotTuples(store), value[0]!.id);
    expect(tuple!.expiresAt).toBe(expiresAt.getTime());
    const changes = (await store.feed.changesSince(before)).filter((c) => c.revision === revision);
    expect(subjectTuples(changes[0]!.touched, value[0]!.id)[0]!.expiresAt).toBe(expiresAt.getTime());

    // Written again with a later expiry: the tuple is touched again with it.
    const later = new Date(expiresAt.getTime() + 60_000);
    const again = await store.roleBindings.replaceRolesOfSubject(org, { type: "workspace", id: ws.id }, subject, [viewer.id], { expiresAt: later });
    const touched = (await store.feed.changesSince(revision)).find((c) => c.revision === again.revision)!.touched;
    expect(subjectTuples(touched, value[0]!.id)[0]!.expiresAt).toBe(later.getTime());

    // Written again without one: it no longer expires, and followers are told so.
    const forever = await store.roleBindings.replaceRolesOfSubject(org, { type: "workspace", id: ws.id }, subject, [viewer.id]);
    const cleared = (await store.feed.changesSince(again.revision)).find((c) => c.revision === forever.revision)!.touched;
    expect(subjectTuples(cleared, value[0]!.id)[0]!.expiresAt).toBeUndefined();
    expect((await store.roleBindings.get(org, value[0]!.id)).subjects[0]!.expiresAt).toBeUndefined();
    // The same request once more writes no tuple.
    await store.roleBindings.replaceRolesOfSubject(org, { type: "workspace", id: ws.id }, subject, [viewer.id]);
    expect((await store.feed.changesSince(forever.revision)).flatMap((c) => [...c.touched, ...c.deleted])).toEqual([]);
  });

  it("refuses a past or invalid expiry and changes nothing", async () => {
    const { org, ws, viewer, subject } = await setup();
    const head = await store.feed.headRevision();
    const grant = { resource: { type: "workspace" as const, id: ws.id }, subject, roleId: viewer.id };
    for (const expiresAt of [new Date(now() - 1000), new Date(now()), new Date(Number.NaN)]) {
      const error = await store.roleBindings.batchCreate(org, [{ ...grant, expiresAt }]).catch((e: unknown) => e);
      expect(isStoreError(error) && error.code).toBe("invalid-argument");
      const put = await store.roleBindings.replaceRolesOfSubject(org, grant.resource, subject, [viewer.id], { expiresAt }).catch((e: unknown) => e);
      expect(isStoreError(put) && put.code).toBe("invalid-argument");
    }
    expect(await store.feed.headRevision()).toBe(head);
    expect((await store.roleBindings.list(org, { subject, limit: -1 })).count).toBe(0);
  });

  it("removes expired subjects, their tuples and emptied bindings in one write per tenant", async () => {
    const { org, ws, viewer, subject } = await setup();
    await store.principals.upsert(org, [{ userId: "u2", username: "bob" }]);
    const soon = new Date(now() + 200);
    const resource = { type: "workspace" as const, id: ws.id };
    const { value } = await store.roleBindings.batchCreate(org, [
      { resource, subject, roleId: viewer.id, expiresAt: soon },
      { resource, subject: { type: "principal", id: "u2" }, roleId: viewer.id },
    ]);
    const bindingId = value[0]!.id;
    const before = await store.feed.headRevision();
    expect((await store.roleBindings.removeExpired(new Date(soon.getTime() - 1))).removed).toBe(0);
    expect(await store.feed.headRevision()).toBe(before);

    // Nothing has expired by the store's clock either, until it reaches the expiry.
    expect((await store.roleBindings.removeExpired()).removed).toBe(0);
    clock = soon.getTime();
    const swept = await store.roleBindings.removeExpired();
    expect(swept.removed).toBe(1);
    expect((await store.roleBindings.get(org, bindingId)).subjects).toEqual([{ type: "principal", id: "u2" }]);
    expect(subjectTuples(await store.relationships.read(org), bindingId).map((t) => t.subjectId)).toEqual(["redhat/u2"]);
    const [change] = (await store.feed.changesSince(before)).filter((c) => c.orgId === org);
    expect(change!.kind).toBe("expire_role_bindings");
    expect(subjectTuples(change!.deleted, bindingId).map((t) => t.subjectId)).toEqual(["redhat/u1"]);

    // The last subject expiring takes the binding with it.
    await store.roleBindings.replaceRolesOfSubject(org, resource, { type: "principal", id: "u2" }, [viewer.id], { expiresAt: new Date(now() + 100) });
    expect((await store.roleBindings.removeExpired(new Date(now() + 100))).removed).toBeGreaterThanOrEqual(1);
    expect((await store.roleBindings.list(org, { resource, limit: -1 })).count).toBe(0);
    expect(subjectTuples(await store.relationships.read(org), bindingId)).toEqual([]);
  });
});
