// Held placements (ReportResource into a workspace not created yet) on every backend: placed in the
// transaction that parents the workspace, only for the reporter's own tenant, invalid input rejected.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError, workspaceParent, type Relationship, type Store } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const backends = await testBackends();
const hostTuple = (hostId: string, workspaceId: string): Relationship => ({
  resourceType: "hbi/host",
  resourceId: hostId,
  relation: "t_workspace",
  subjectType: "rbac/workspace",
  subjectId: workspaceId,
});

describe.each(backends)("held placements on $name", (backend) => {
  let store: Store;
  let defaultA: string;
  beforeAll(async () => {
    store = await openTestStore(backend, { pollIntervalMs: 50 });
    defaultA = (await store.tenants.bootstrap("place-a")).value.defaultWorkspaceId;
    await store.tenants.bootstrap("place-b");
  });
  afterAll(async () => {
    await store?.close();
  });

  it("holds without a revision and places in the parenting write, which carries the tuple in its change", async () => {
    const ws = randomUUID();
    const head = await store.feed.headRevision();
    const held = await store.placements.hold({ resourceType: "hbi/host", resourceId: "h-1", workspaceId: ws, reporterOrg: "place-a" });
    expect(held.value).toBe(true);
    expect(held.revision).toBe(head);
    const written = await store.relationships.write("place-a", { touch: [workspaceParent(ws, { type: "workspace", id: defaultA })] });
    expect(written.value.touched).toBe(2);
    expect(await store.relationships.read("place-a", { resourceType: "hbi/host", resourceId: "h-1" })).toEqual([hostTuple("h-1", ws)]);
    expect(await store.placements.get("hbi/host", "h-1")).toBeUndefined();
    const changes = await store.feed.changesSince(written.revision - 1);
    expect(changes.at(-1)?.touched).toContainEqual(hostTuple("h-1", ws));
  });

  it("drops a report of another tenant's reporter unplaced, and places an anonymous one", async () => {
    const ws = randomUUID();
    await store.placements.hold({ resourceType: "hbi/host", resourceId: "h-2", workspaceId: ws, reporterOrg: "place-b" });
    await store.placements.hold({ resourceType: "acm/cluster", resourceId: "c-1", workspaceId: ws, reporterOrg: null });
    await store.relationships.write("place-a", { touch: [workspaceParent(ws, { type: "workspace", id: defaultA })] });
    expect(await store.relationships.read("place-a", { resourceType: "hbi/host", resourceId: "h-2" })).toEqual([]);
    expect(await store.relationships.read("place-b", { resourceType: "hbi/host", resourceId: "h-2" })).toEqual([]);
    expect(await store.relationships.read("place-a", { resourceType: "acm/cluster", resourceId: "c-1" })).toHaveLength(1);
    expect(await store.placements.get("hbi/host", "h-2")).toBeUndefined();
  });

  it("answers false for a workspace that exists, and releases only the reporter's own reports", async () => {
    expect((await store.placements.hold({ resourceType: "hbi/host", resourceId: "h-3", workspaceId: defaultA, reporterOrg: "place-a" })).value).toBe(false);
    const ws = randomUUID();
    await store.placements.hold({ resourceType: "hbi/host", resourceId: "h-3", workspaceId: ws, reporterOrg: "place-a" });
    expect((await store.placements.release("hbi/host", "h-3", "place-b")).value).toBe(false);
    expect((await store.placements.release("hbi/host", "h-3", "place-a")).value).toBe(true);
    expect((await store.placements.release("hbi/host", "h-3", null)).value).toBe(false);
  });

  it("holds each reporter tenant's report of one resource apart; a tenant's direct placement drops only its own and keeps the resource", async () => {
    const [wsA, wsB] = [randomUUID(), randomUUID()];
    await store.placements.hold({ resourceType: "acm/cluster", resourceId: "c-5", workspaceId: wsA, reporterOrg: "place-a" });
    const heldA = await store.placements.get("acm/cluster", "c-5", "place-a");
    await store.placements.hold({ resourceType: "acm/cluster", resourceId: "c-5", workspaceId: wsB, reporterOrg: "place-b" });
    expect(await store.placements.get("acm/cluster", "c-5", "place-a")).toEqual(heldA);
    expect(await store.placements.get("acm/cluster", "c-5", "place-b")).toMatchObject({ workspaceId: wsB });
    expect(await store.placements.get("acm/cluster", "c-5", null)).toBeUndefined();
    // Tenant B places the resource in a workspace of its own: its held report goes, A's stays.
    const defaultB = (await store.tenants.get("place-b")).defaultWorkspaceId;
    await store.relationships.write("place-b", { touch: [{ ...hostTuple("c-5", defaultB), resourceType: "acm/cluster" }] });
    expect(await store.placements.get("acm/cluster", "c-5", "place-b")).toBeUndefined();
    expect(await store.placements.get("acm/cluster", "c-5", "place-a")).toEqual(heldA);
    // A's workspace appears: the resource is B's by then, so A's report is dropped, never placed in both.
    await store.relationships.write("place-a", { touch: [workspaceParent(wsA, { type: "workspace", id: defaultA })] });
    expect(await store.relationships.read("place-a", { resourceType: "acm/cluster", resourceId: "c-5" })).toEqual([]);
    expect(await store.relationships.read("place-b", { resourceType: "acm/cluster", resourceId: "c-5" })).toHaveLength(1);
    expect(await store.placements.get("acm/cluster", "c-5")).toBeUndefined();
  });

  it("places a resource held by two tenants in the first tenant whose workspace appears, never in both", async () => {
    const [wsA, wsB] = [randomUUID(), randomUUID()];
    await store.placements.hold({ resourceType: "acm/cluster", resourceId: "c-6", workspaceId: wsA, reporterOrg: "place-a" });
    await store.placements.hold({ resourceType: "acm/cluster", resourceId: "c-6", workspaceId: wsB, reporterOrg: "place-b" });
    const defaultB = (await store.tenants.get("place-b")).defaultWorkspaceId;
    await store.relationships.write("place-a", { touch: [workspaceParent(wsA, { type: "workspace", id: defaultA })] });
    await store.relationships.write("place-b", { touch: [workspaceParent(wsB, { type: "workspace", id: defaultB })] });
    expect(await store.relationships.read("place-a", { resourceType: "acm/cluster", resourceId: "c-6" })).toHaveLength(1);
    expect(await store.relationships.read("place-b", { resourceType: "acm/cluster", resourceId: "c-6" })).toEqual([]);
    expect(await store.placements.get("acm/cluster", "c-6")).toBeUndefined();
  });

  it("rejects bad input and holds nothing", async () => {
    for (const bad of [
      { resourceType: "Host", resourceId: "h-4", workspaceId: randomUUID(), reporterOrg: null },
      { resourceType: "hbi/host", resourceId: "", workspaceId: randomUUID(), reporterOrg: null },
      { resourceType: "hbi/host", resourceId: "h-4", workspaceId: "with space", reporterOrg: null },
      { resourceType: "hbi/host", resourceId: "h-4", workspaceId: randomUUID(), reporterOrg: "bad org!" },
    ]) {
      await expect(store.placements.hold(bad)).rejects.toSatisfy((e: unknown) => isStoreError(e, "invalid-argument"));
    }
    expect(await store.placements.get("hbi/host", "h-4")).toBeUndefined();
  });
});
