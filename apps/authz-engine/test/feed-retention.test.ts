// Change-feed retention seen from a starting replica: a checkpoint older than what the feed still
// holds cannot be replayed forward, so it is refused (`feed-truncated`, counted) and the start
// falls back to the snapshot with the same graph as a fresh replica. On PGlite and Postgres.
import { formatRelationship } from "@gatehouse/evaluator";
import { compileRoleSchema } from "@gatehouse/role-config";
import { startFeedRetention } from "@gatehouse/store";
import { openTestStore, testBackends, type TestStore } from "@gatehouse/store/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryCheckpointStore, type CheckpointRejection, type CheckpointStore } from "../src/graph/checkpoint.js";
import { EngineGraph } from "../src/graph/engine-graph.js";
import { storeGraphSource } from "../src/graph/store-source.js";
import { hostIn, readGrant, stageSchema } from "./helpers.js";

const model = compileRoleSchema(stageSchema);
const backends = await testBackends();

async function start(store: TestStore, checkpoints: CheckpointStore | undefined, rejected: CheckpointRejection[] = []): Promise<EngineGraph> {
  const engine = new EngineGraph({
    model,
    source: storeGraphSource(store),
    logger: createSilentLogger(),
    ...(checkpoints ? { checkpoints: { store: checkpoints, storeId: store.storeId, intervalMs: 0, onRejected: (r) => rejected.push(r) } } : {}),
  });
  await engine.load();
  await engine.waitFor(await store.feed.headRevision(), 5000);
  return engine;
}

const contents = (engine: EngineGraph) => [...engine.graph.relationships()].map(formatRelationship).sort();

describe.each(backends)("feed retention and checkpoints on $name", (backend) => {
  let store: TestStore;
  const engines: EngineGraph[] = [];
  beforeAll(async () => {
    store = await openTestStore(backend, { pollIntervalMs: 20 });
    const t = (await store.tenants.bootstrap("ret-a")).value;
    await store.relationships.write("ret-a", { touch: [...readGrant(t.defaultWorkspaceId, "alice"), hostIn("h1", t.defaultWorkspaceId)] });
  });
  afterAll(async () => {
    for (const e of engines) await e.close();
    await store?.close();
  });

  it("a checkpoint the feed no longer covers is refused and the start reads the snapshot", async () => {
    const checkpoints = memoryCheckpointStore(2);
    const writer = await start(store, checkpoints);
    engines.push(writer);
    await writer.writeCheckpoint();
    const old = (await checkpoints.list())[0]!.revision;
    const t = await store.tenants.get("ret-a");
    for (let i = 2; i < 6; i++) await store.relationships.write("ret-a", { touch: [hostIn(`h${i}`, t.defaultWorkspaceId)] });
    // Retention as a job would run it if the oldest checkpoint mattering were the head.
    const head = await store.feed.headRevision();
    const job = startFeedRetention(store.feed, { checkpointRevisions: async () => [head], marginRevisions: 1, intervalMs: 0 });
    expect(await job.runOnce()).toBeGreaterThan(0);
    expect(await store.feed.prunedThrough()).toBeGreaterThan(old);

    const rejected: CheckpointRejection[] = [];
    const restarted = await start(store, checkpoints, rejected);
    engines.push(restarted);
    expect(rejected).toEqual(["feed-truncated"]);
    const fresh = await start(store, undefined);
    engines.push(fresh);
    expect(contents(restarted)).toEqual(contents(fresh));
    expect(restarted.appliedRevision).toBe(head);
  });
});
