// Change-feed retention: the rule (nothing without a checkpoint; keep a margin before the oldest
// one), pruning, and readers positioned before the pruned range get feed-truncated instead of a
// silent gap. On PGlite and Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError, retentionHorizon, startFeedRetention, type Relationship, type Store } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const backends = await testBackends();
const host = (n: number): Relationship => ({ resourceType: "hbi/host", resourceId: `r${n}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: "w" });

describe("retention rule", () => {
  it("deletes nothing without a checkpoint, keeps the margin before the oldest one", () => {
    expect(retentionHorizon([], 0)).toBeNull();
    expect(retentionHorizon([50, 30, 40], 10)).toBe(20);
    expect(retentionHorizon([30], 30)).toBeNull();
    expect(retentionHorizon([30], 0)).toBe(30);
  });

  it("never passes the revision a running follower still needs", () => {
    expect(retentionHorizon([50], 10, 25)).toBe(25); // slow follower: keep what it has yet to read
    expect(retentionHorizon([50], 10, 45)).toBe(40); // caught up: the margin rule decides
    expect(retentionHorizon([50], 10, 0)).toBeNull();
    expect(retentionHorizon([], 0, 100)).toBeNull();
  });
});

describe.each(backends)("change-feed retention on $name", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(backend, { pollIntervalMs: 20 });
    await store.tenants.bootstrap("ret");
    for (let i = 0; i < 10; i++) await store.relationships.write("ret", { touch: [host(i)] });
  });
  afterAll(async () => {
    await store?.close();
  });

  it("the job prunes through the oldest checkpoint minus the margin; later changes stay whole", async () => {
    const head = await store.feed.headRevision();
    const before = await store.feed.changesSince(0, 10_000);
    let checkpoints: number[] = [];
    const job = startFeedRetention(store.feed, { checkpointRevisions: async () => checkpoints, marginRevisions: 2, intervalMs: 0 });
    expect(await job.runOnce()).toBe(0); // no checkpoint: nothing deleted
    expect(await store.feed.prunedThrough()).toBe(0);
    checkpoints = [head - 1, head - 3];
    expect(await job.runOnce()).toBe(head - 5);
    expect(await store.feed.prunedThrough()).toBe(head - 5);
    // A reader at the horizon or later reads exactly what it read before.
    expect(await store.feed.changesSince(head - 5)).toEqual(before.filter((c) => c.revision > head - 5));
    expect(await job.runOnce()).toBe(0); // idempotent
    await job.stop();
  });

  it("a job told the running follower's revision keeps every change after it", async () => {
    const head = await store.feed.headRevision();
    const pruned = await store.feed.prunedThrough();
    const job = startFeedRetention(store.feed, { checkpointRevisions: async () => [head], marginRevisions: 0, intervalMs: 0, neededRevision: () => pruned + 1 });
    expect(await job.runOnce()).toBe(1);
    expect(await store.feed.prunedThrough()).toBe(pruned + 1);
    expect((await store.feed.changesSince(pruned + 1, 10_000)).length).toBe(head - pruned - 1);
    await job.stop();
  });

  it("a reader positioned before the pruned range gets feed-truncated; a follower stops and says so", async () => {
    const pruned = await store.feed.prunedThrough();
    expect(pruned).toBeGreaterThan(1);
    const err = await store.feed.changesSince(pruned - 1).catch((e: unknown) => e);
    expect(isStoreError(err, "feed-truncated")).toBe(true);
    let truncated: unknown;
    const follower = store.feed.follow(0, () => undefined, { onTruncated: (e) => (truncated = e) });
    while (truncated === undefined) await new Promise((r) => setTimeout(r, 10));
    expect(isStoreError(truncated, "feed-truncated")).toBe(true);
    expect(follower.revision).toBe(0);
    await follower.stop();
  });

  it("prune never passes the head, and rejects a bad revision without deleting anything", async () => {
    const head = await store.feed.headRevision();
    await store.feed.prune(head + 1000);
    expect(await store.feed.prunedThrough()).toBe(head);
    expect(await store.feed.changesSince(head)).toEqual([]);
    const err = await store.feed.prune(-1).catch((e: unknown) => e);
    expect(isStoreError(err, "invalid-argument")).toBe(true);
    // New writes after a full prune are delivered as usual.
    const { revision } = await store.relationships.write("ret", { touch: [host(99)] });
    expect((await store.feed.changesSince(head)).map((c) => c.revision)).toEqual([revision]);
  });
});
