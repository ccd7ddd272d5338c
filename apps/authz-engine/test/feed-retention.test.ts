// Change-feed retention seen from a starting replica: a checkpoint older than what the feed still
// holds cannot be replayed forward, so it is refused (`feed-truncated`, counted) and the start
// falls back to the snapshot with the same graph as a fresh replica. A running engine whose
// follower falls behind the retention reloads by itself (not ready meanwhile, counted) and then
// answers as a fresh engine; a feed outage that is not truncation never reloads. On PGlite and
// Postgres.
import { formatRelationship } from "@gatehouse/evaluator";
import { compileRoleSchema } from "@gatehouse/role-config";
import { startFeedRetention } from "@gatehouse/store";
import { openTestStore, testBackends, type TestStore } from "@gatehouse/store/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureConsistency } from "../src/commands/consistency.js";
import type { EngineContext } from "../src/commands/context.js";
import { memoryCheckpointStore, type CheckpointRejection, type CheckpointStore } from "../src/graph/checkpoint.js";
import { EngineGraph, type RecoveryReason } from "../src/graph/engine-graph.js";
import type { GraphSource } from "../src/graph/source.js";
import { storeGraphSource } from "../src/graph/store-source.js";
import { followAfter, hostIn, readGrant, stageSchema } from "./helpers.js";

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

/** A gate a test opens by hand. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/**
 * The store's source, except that the first follow starts only once `followGate` opens (a
 * follower stalled while retention runs) and every snapshot after the first waits for
 * `reloadGate` (so the test can look at the engine while it reloads).
 */
function stalledSource(store: TestStore, followGate: Promise<void>, reloadGate: Promise<void>): GraphSource {
  const real = storeGraphSource(store);
  let snapshots = 0;
  return {
    ...real,
    async snapshot(onBatch) {
      if (snapshots++ > 0) await reloadGate;
      return real.snapshot(onBatch);
    },
    follow: followAfter(real, followGate),
  };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

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

  it("a running engine whose follower fell behind the retention reloads, is not ready meanwhile, then answers as a fresh engine", async () => {
    const t = await store.tenants.get("ret-a");
    const followGate = gate();
    const reloadGate = gate();
    const recoveries: RecoveryReason[] = [];
    const recovered: number[] = [];
    const engine = new EngineGraph({
      model,
      source: stalledSource(store, followGate.wait, reloadGate.wait),
      logger: createSilentLogger(),
      recoveryRetryMs: 10,
      onRecovery: (reason) => recoveries.push(reason),
      onRecovered: (_reason, revision) => recovered.push(revision),
    });
    engines.push(engine);
    await engine.load();
    const behind = engine.appliedRevision;
    for (let i = 10; i < 14; i++) await store.relationships.write("ret-a", { touch: [hostIn(`h${i}`, t.defaultWorkspaceId)] });
    await store.relationships.write("ret-a", { delete: [hostIn("h10", t.defaultWorkspaceId)] });
    const head = await store.feed.headRevision();
    await store.feed.prune(head - 1);
    expect(await store.feed.prunedThrough()).toBeGreaterThan(behind);
    // A consistency request for the head waits through the recovery instead of failing.
    const fresh = engine.waitFor(head, 10_000);

    followGate.open();
    await until(() => engine.recovering);
    expect(engine.ready).toBe(false);
    expect(recoveries).toEqual(["feed-truncated"]);
    expect(engine.appliedRevision).toBe(behind); // the old graph still in place, not yet replaced
    // Even a minimize_latency request is refused (retryable) rather than answered from it.
    expect(() => ensureConsistency({ graph: engine } as EngineContext, { kind: "minimize-latency" })).toThrow(expect.objectContaining({ code: "not-ready" }));

    reloadGate.open();
    await fresh;
    await until(() => engine.ready);
    expect(engine.recovering).toBe(false);
    expect(recovered).toEqual([head]);
    const reference = await start(store, undefined);
    engines.push(reference);
    expect(contents(engine)).toEqual(contents(reference));
    // And it follows again: a later write reaches it.
    await store.relationships.write("ret-a", { touch: [hostIn("h20", t.defaultWorkspaceId)] });
    await engine.waitFor(await store.feed.headRevision(), 5000);
    expect(engine.has(hostIn("h20", t.defaultWorkspaceId))).toBe(true);
    expect(recoveries).toEqual(["feed-truncated"]);
  });

  it("a feed outage that is not truncation does not reload: the engine stays ready and catches up", async () => {
    const t = await store.tenants.get("ret-a");
    const outage = gate();
    const recoveries: RecoveryReason[] = [];
    const real = storeGraphSource(store);
    let errors = 0;
    const source: GraphSource = {
      ...real,
      // The first follower reports a broken connection until the outage ends, then reads again.
      follow(from, onCommit, onTransientError, onTruncated) {
        let stopped = false;
        let handle: { stop(): Promise<void> | void } | undefined;
        const timer = setInterval(() => {
          errors++;
          onTransientError(new Error("connection terminated"));
        }, 5);
        void outage.wait.then(() => {
          clearInterval(timer);
          if (!stopped) handle = real.follow(from, onCommit, onTransientError, onTruncated);
        });
        return {
          async stop() {
            stopped = true;
            clearInterval(timer);
            await handle?.stop();
          },
        };
      },
    };
    const engine = new EngineGraph({ model, source, logger: createSilentLogger(), onRecovery: (reason) => recoveries.push(reason) });
    engines.push(engine);
    await engine.load();
    await store.relationships.write("ret-a", { touch: [hostIn("h30", t.defaultWorkspaceId)] });
    await until(() => errors >= 3);
    expect(engine.ready).toBe(true);
    outage.open();
    await engine.waitFor(await store.feed.headRevision(), 5000);
    expect(recoveries).toEqual([]);
    expect(engine.ready).toBe(true);
  });
});
