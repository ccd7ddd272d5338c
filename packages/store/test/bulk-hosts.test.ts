// Bulk host reports on every backend: the same rows and placements as one report per host, one
// revision and one change-feed entry for the lot, and bad input refused with nothing changed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostWorkspace as placement, isStoreError, type Store } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const backends = await testBackends();

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isStoreError(error) ? error.code : error).toBe(code);
}

describe.each(backends)("bulk host reports on $name", (backend) => {
  let store: Store;
  let a: string;
  let b: string;
  beforeAll(async () => {
    store = await openTestStore(backend, { pollIntervalMs: 50 });
    const tenant = (await store.tenants.bootstrap("bulk-a")).value;
    await store.tenants.bootstrap("bulk-b");
    a = tenant.defaultWorkspaceId;
    b = (await store.workspaces.create("bulk-a", { name: "bulk-child", parentId: a })).value.id;
  });
  afterAll(async () => {
    await store?.close();
  });

  it("writes every host and its placement in one revision whose change carries them all", async () => {
    const head = await store.feed.headRevision();
    const hosts = Array.from({ length: 250 }, (_, i) => ({ id: `bulk-h${i}`, workspaceId: i % 2 === 0 ? a : b }));
    const written = await store.hosts.reportMany("bulk-a", hosts);
    expect(written.value).toEqual({ created: 250, moved: 0, unchanged: 0 });
    expect(written.revision).toBe(head + 1);
    expect((await store.hosts.list("bulk-a", { workspaceId: b })).count).toBe(125);
    const [change] = await store.feed.changesSince(head);
    expect(change?.touched).toHaveLength(250);
    expect(change?.touched).toContainEqual(placement("bulk-h1", b));
  });

  it("moves a host as a single report does (the old placement removed) and leaves the unchanged ones alone", async () => {
    const head = await store.feed.headRevision();
    const written = await store.hosts.reportMany("bulk-a", [
      { id: "bulk-h0", workspaceId: b },
      { id: "bulk-h1", workspaceId: b },
    ]);
    expect(written.value).toEqual({ created: 0, moved: 1, unchanged: 1 });
    expect(await store.relationships.read("bulk-a", { resourceType: "hbi/host", resourceId: "bulk-h0" })).toEqual([placement("bulk-h0", b)]);
    const [change] = await store.feed.changesSince(head);
    expect(change?.deleted).toEqual([placement("bulk-h0", a)]);
    const again = await store.hosts.reportMany("bulk-a", [{ id: "bulk-h0", workspaceId: b }]);
    expect(again.value).toEqual({ created: 0, moved: 0, unchanged: 1 });
    expect(await store.feed.headRevision()).toBe(written.revision);
  });

  it("refuses an unknown workspace, another tenant's host, a duplicate or a malformed id, changing nothing", async () => {
    const head = await store.feed.headRevision();
    const fresh = { id: "bulk-new", workspaceId: a };
    await expectCode(store.hosts.reportMany("bulk-a", [fresh, { id: "bulk-x", workspaceId: "00000000-0000-4000-8000-00000000dead" }]), "not-found");
    await store.hosts.report("bulk-b", "bulk-theirs", (await store.tenants.get("bulk-b")).defaultWorkspaceId);
    const afterB = await store.feed.headRevision();
    await expectCode(store.hosts.reportMany("bulk-a", [fresh, { id: "bulk-theirs", workspaceId: a }]), "cross-tenant");
    await expectCode(store.hosts.reportMany("bulk-a", [fresh, fresh]), "invalid-argument");
    await expectCode(store.hosts.reportMany("bulk-a", [fresh, { id: "no spaces", workspaceId: a }]), "invalid-argument");
    await expectCode(store.hosts.reportMany("bulk-a", []), "invalid-argument");
    expect(afterB).toBe(head + 1);
    expect(await store.feed.headRevision()).toBe(afterB);
    await expectCode(store.hosts.get("bulk-a", "bulk-new"), "not-found");
  });
});
