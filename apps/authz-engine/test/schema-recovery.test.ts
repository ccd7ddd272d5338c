// The engine's schema across reloads it did not see in the feed, and the ordering of a schema
// switch against a recovery. A start or a recovery reads the active role configuration and loads
// on its schema (a reload whose commit retention deleted, or older than the loaded revision, is
// not missed), restoring only checkpoints of that schema. A switch that a recovery overtakes gives
// up: nothing older than the reloaded state is installed, no commit is applied twice, nothing
// is applied or released while not ready. Store-backed cases run on PGlite and Postgres; the
// orderings use a scripted source so that every interleaving is exact.
import { check, formatRelationship, type Model, type Relationship } from "@gatehouse/evaluator";
import { compileRoleSchema } from "@gatehouse/role-config";
import { openTestStore, testBackends, type TestStore } from "@gatehouse/store/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureConsistency } from "../src/commands/consistency.js";
import type { EngineContext } from "../src/commands/context.js";
import { memoryCheckpointStore, readCheckpointHeader, schemaHash, type CheckpointRejection, type CheckpointStore } from "../src/graph/checkpoint.js";
import { EngineGraph } from "../src/graph/engine-graph.js";
import type { ChangeBatch, FollowHandle, GraphSource } from "../src/graph/source.js";
import { storeGraphSource } from "../src/graph/store-source.js";
import { followAfter, hostIn, readGrant, stageSchema } from "./helpers.js";

/** The stage schema plus one host permission: a reload to it adds `name` (nothing removed). */
const withPermission = (name: string) => stageSchema.replace("definition hbi/host {\n", `definition hbi/host {\n\tpermission ${name} = view\n`);
const zedA = stageSchema;
const zedB = withPermission("gh_reload_b");
const zedC = withPermission("gh_reload_c");
const modelA = compileRoleSchema(zedA);
const hashA = schemaHash(modelA);
const hashB = schemaHash(compileRoleSchema(zedB));
const hashC = schemaHash(compileRoleSchema(zedC));

const alice = { type: "rbac/principal", id: "redhat/alice" };
/** Whether the engine answers `permission` (only the schema that defines it does) and grants it to alice on `host`. */
const answers = (engine: EngineGraph, host: string, permission: string): boolean | "unknown permission" => {
  try {
    return check(engine.graph, { type: "hbi/host", id: host }, permission, alice);
  } catch {
    return "unknown permission";
  }
};
const contents = (engine: EngineGraph) => [...engine.graph.relationships()].map(formatRelationship).sort();

const until = async (condition: () => boolean, what: string) => {
  while (!condition()) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};
/** Lets every pending promise callback and timer of this turn run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

interface Observed {
  replaced: { hash: string; revision: number }[];
  applied: number[];
  rejected: CheckpointRejection[];
}

function observe(): Observed {
  return { replaced: [], applied: [], rejected: [] };
}

function engineOn(source: GraphSource, seen: Observed, extra: { checkpoints?: CheckpointStore; storeId?: string; model?: Model; keepStartSchema?: boolean } = {}): EngineGraph {
  return new EngineGraph({
    model: extra.model ?? modelA,
    source,
    logger: createSilentLogger(),
    recoveryRetryMs: 10,
    ...(extra.keepStartSchema ? { keepStartSchema: true } : {}),
    onModelReplaced: (model, revision) => seen.replaced.push({ hash: schemaHash(model), revision }),
    onApplied: (batch) => seen.applied.push(batch.revision),
    ...(extra.checkpoints ? { checkpoints: { store: extra.checkpoints, storeId: extra.storeId ?? "scripted", intervalMs: 0, onRejected: (r) => seen.rejected.push(r) } } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// With a store: the reload's commit is gone from the feed, or older than the loaded revision.

const backends = await testBackends();

/** The store's source; the first follow starts only when `followGate` opens (a stalled replica). */
function stalledSource(store: TestStore, followGate: Promise<void>, counts = { snapshots: 0 }): GraphSource {
  const real = storeGraphSource(store);
  return {
    ...real,
    snapshot(onBatch) {
      counts.snapshots++;
      return real.snapshot(onBatch);
    },
    follow: followAfter(real, followGate),
  };
}

describe.each(backends)("the active schema at start and recovery on $name", (backend) => {
  let store: TestStore;
  let defaultWorkspace = "";
  const engines: EngineGraph[] = [];
  let host = 0;
  const addHost = async () => {
    const id = `sr-h${++host}`;
    return { id, revision: (await store.relationships.write("sr-a", { touch: [hostIn(id, defaultWorkspace)] })).revision };
  };
  const activate = async (schemaZed: string) =>
    (await store.roles.seedSystemRoles([], { activate: { hash: schemaHash(compileRoleSchema(schemaZed)), dir: "test", loadedAt: new Date(), schemaZed } })).revision;
  const track = (engine: EngineGraph) => (engines.push(engine), engine);

  beforeAll(async () => {
    store = await openTestStore(backend, { pollIntervalMs: 20 });
    defaultWorkspace = (await store.tenants.bootstrap("sr-a")).value.defaultWorkspaceId;
    await store.relationships.write("sr-a", { touch: readGrant(defaultWorkspace, "alice") });
    await addHost();
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.close();
  });
  afterAll(async () => {
    await store?.close();
  });

  it("a recovery past a pruned reload loads on the reloaded schema and tells the server", async () => {
    await activate(zedA);
    const followGate = gate();
    const seen = observe();
    const engine = track(engineOn(stalledSource(store, followGate.wait), seen));
    await engine.load();
    const behind = engine.appliedRevision;
    const reload = await activate(zedB);
    const { id, revision: head } = await addHost();
    await store.feed.prune(head - 1);
    expect(await store.feed.prunedThrough()).toBeGreaterThanOrEqual(reload);

    followGate.open();
    await until(() => engine.ready && engine.appliedRevision >= head, "the engine has reloaded");
    expect(engine.appliedRevision).toBeGreaterThan(behind);
    expect(schemaHash(engine.graph.model)).toBe(hashB);
    expect(seen.replaced).toEqual([{ hash: hashB, revision: engine.appliedRevision }]);
    expect(answers(engine, id, "gh_reload_b")).toBe(true);
  });

  it("a recovery restores only a checkpoint of the active schema; one of another schema is refused and counted", async () => {
    await activate(zedA);
    const checkpoints = memoryCheckpointStore(4);
    const followGate = gate();
    const counts = { snapshots: 0 };
    const seen = observe();
    const engine = track(engineOn(stalledSource(store, followGate.wait, counts), seen, { checkpoints, storeId: store.storeId }));
    await engine.load();
    await activate(zedB);
    await addHost();
    // A replica on the reloaded schema checkpoints; then one that kept the old schema (its
    // switch failed) checkpoints later: the newest checkpoint is of the wrong schema.
    const onB = track(engineOn(storeGraphSource(store), observe(), { checkpoints, storeId: store.storeId, model: compileRoleSchema(zedB) }));
    await onB.load();
    await onB.writeCheckpoint();
    const good = onB.appliedRevision;
    await addHost();
    const stale = track(engineOn(storeGraphSource(store), observe(), { checkpoints, storeId: store.storeId, keepStartSchema: true }));
    await stale.load();
    await stale.writeCheckpoint();
    expect(stale.appliedRevision).toBeGreaterThan(good);
    const { id, revision: head } = await addHost();
    await store.feed.prune(good - 1);

    const snapshotsBefore = counts.snapshots;
    followGate.open();
    await until(() => engine.ready && engine.appliedRevision >= head, "the engine has reloaded");
    expect(seen.rejected).toEqual(["schema-mismatch"]);
    expect(counts.snapshots).toBe(snapshotsBefore); // restored from the checkpoint of the active schema
    expect(schemaHash(engine.graph.model)).toBe(hashB);
    expect(seen.replaced.map((r) => r.hash)).toEqual([hashB]);
    expect(answers(engine, id, "gh_reload_b")).toBe(true);
    const fresh = track(engineOn(storeGraphSource(store), observe()));
    await fresh.load();
    await fresh.waitFor(head, 5000);
    expect(contents(engine)).toEqual(contents(fresh));
  });

  it("a start loads on the active schema, unless the schema was given directly", async () => {
    await activate(zedB);
    const { id } = await addHost();
    const seen = observe();
    const engine = track(engineOn(storeGraphSource(store), seen));
    await engine.load();
    expect(schemaHash(engine.graph.model)).toBe(hashB);
    expect(seen.replaced).toEqual([{ hash: hashB, revision: engine.appliedRevision }]);
    expect(answers(engine, id, "gh_reload_b")).toBe(true);

    const given = observe();
    const pinned = track(engineOn(storeGraphSource(store), given, { keepStartSchema: true }));
    await pinned.load();
    expect(schemaHash(pinned.graph.model)).toBe(hashA);
    expect(given.replaced).toEqual([]);
    // A reload after the start still switches it.
    const reload = await activate(zedC);
    await pinned.waitFor(reload, 5000);
    expect(schemaHash(pinned.graph.model)).toBe(hashC);
    expect(given.replaced).toEqual([{ hash: hashC, revision: reload }]);
  });

  it("a reload committed while the start reads the snapshot is not missed", async () => {
    await activate(zedA);
    const real = storeGraphSource(store);
    let reload = 0;
    let snapshots = 0;
    const source: GraphSource = {
      ...real,
      // The first snapshot begins after the reload's commit, so the feed after it never shows the reload.
      async snapshot(onBatch) {
        if (snapshots++ === 0) reload = await activate(zedB);
        return real.snapshot(onBatch);
      },
    };
    const seen = observe();
    const engine = track(engineOn(source, seen));
    await engine.load();
    expect(engine.appliedRevision).toBeGreaterThanOrEqual(reload);
    expect(snapshots).toBe(2);
    expect(schemaHash(engine.graph.model)).toBe(hashB);
    expect(seen.replaced).toEqual([{ hash: hashB, revision: engine.appliedRevision }]);
  });
});

// ---------------------------------------------------------------------------------------------
// Without a store: a source whose feed, snapshot and active-schema reads the test releases by hand.

const key = (r: Relationship) => formatRelationship(r);

/**
 * An in-memory source. `commit` appends to the feed and delivers to live followers; `truncate`
 * stops them with `feed-truncated`; `holdActiveRead` makes the next `activeSchema()` answer the
 * schema active at the time of the call only when the test releases it (a slow read);
 * `holdSnapshot` holds the next snapshot (after taking its revision) until released.
 */
class ScriptedSource implements GraphSource {
  active: string | undefined;
  private readonly log: ChangeBatch[] = [];
  private readonly state = new Map<string, Relationship>();
  private head = 0;
  private followers: { next: number; onCommit: (batch: ChangeBatch) => void; onTruncated?: (error: unknown) => void; live: boolean }[] = [];
  private activeHold: Promise<void> | null = null;
  private snapshotHold: Promise<void> | null = null;
  private pruned = 0;
  activeReads = 0;
  snapshots = 0;

  constructor(initial: Relationship[], active?: string) {
    this.active = active;
    this.commit({ add: initial });
  }

  get revision(): number {
    return this.head;
  }

  relationships(): string[] {
    return [...this.state.keys()].sort();
  }

  commit(change: { add?: Relationship[]; remove?: Relationship[]; activate?: string }): number {
    const revision = ++this.head;
    if (change.activate !== undefined) this.active = change.activate;
    const batch: ChangeBatch = {
      revision,
      changes: [...(change.remove ?? []).map((relationship) => ({ op: "remove" as const, relationship })), ...(change.add ?? []).map((relationship) => ({ op: "add" as const, relationship }))],
      ...(change.activate !== undefined ? { kind: "role_config" } : {}),
    };
    for (const c of batch.changes) {
      if (c.op === "add") this.state.set(key(c.relationship), c.relationship);
      else this.state.delete(key(c.relationship));
    }
    this.log.push(batch);
    this.deliver();
    return revision;
  }

  /** Retention passed every live follower (and every change so far): each stops and reports it. */
  truncate(): void {
    this.pruned = this.head;
    for (const follower of this.followers) {
      if (!follower.live) continue;
      follower.live = false;
      follower.onTruncated?.(new Error("feed truncated"));
    }
  }

  /** A batch reaching a follower that has already reported truncation (a late wake-up). */
  deliverLate(revision: number): void {
    const batch = this.log.find((b) => b.revision === revision)!;
    for (const follower of this.followers) follower.onCommit(batch);
  }

  holdActiveRead(): () => void {
    const { wait, open } = gate();
    this.activeHold = wait;
    return open;
  }

  holdSnapshot(): () => void {
    const { wait, open } = gate();
    this.snapshotHold = wait;
    return open;
  }

  private deliver(): void {
    for (const follower of this.followers) {
      while (follower.live && follower.next < this.head) {
        const batch = this.log[follower.next]!; // revision r sits at index r - 1
        follower.next = batch.revision;
        follower.onCommit(batch);
      }
    }
  }

  async snapshot(onBatch: (relationships: Relationship[]) => void): Promise<{ revision: number }> {
    this.snapshots++;
    const revision = this.head;
    const relationships = [...this.state.values()];
    const hold = this.snapshotHold;
    this.snapshotHold = null;
    if (hold) await hold;
    onBatch(relationships);
    return { revision };
  }

  follow(fromRevision: number, onCommit: (batch: ChangeBatch) => void, _onTransientError: (error: unknown) => void, onTruncated?: (error: unknown) => void): FollowHandle {
    const follower = { next: fromRevision, onCommit, live: true, ...(onTruncated ? { onTruncated } : {}) };
    this.followers.push(follower);
    queueMicrotask(() => this.deliver());
    return { stop: () => void (follower.live = false) };
  }

  async headRevision(): Promise<number> {
    return this.head;
  }

  async prunedThrough(): Promise<number> {
    return this.pruned;
  }

  async activeSchema(): Promise<string | undefined> {
    this.activeReads++;
    const answer = this.active;
    const hold = this.activeHold;
    this.activeHold = null;
    if (hold) await hold;
    return answer;
  }

  encodeToken(revision: number): string {
    return String(revision);
  }

  decodeToken(token: string): number {
    return Number(token);
  }
}

describe("a schema switch and a recovery overlapping", () => {
  const engines: EngineGraph[] = [];
  let n = 0;
  const host = () => hostIn(`race-h${++n}`, "race-ws");
  const start = async (source: ScriptedSource, seen: Observed, checkpoints?: CheckpointStore) => {
    const engine = engineOn(source, seen, checkpoints ? { checkpoints } : {});
    engines.push(engine);
    await engine.load();
    return engine;
  };
  const notReady = (engine: EngineGraph) => () => ensureConsistency({ graph: engine } as EngineContext, { kind: "minimize-latency" });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.close();
  });

  it("a recovery that overtakes a switch wins: the switch's older schema read is dropped, held commits are applied once", async () => {
    const source = new ScriptedSource([...readGrant("race-ws", "alice"), host()], zedA);
    const seen = observe();
    const engine = await start(source, seen);
    const releaseSwitchRead = source.holdActiveRead();
    const toB = source.commit({ activate: zedB });
    source.commit({ add: [host()] });
    expect(source.activeReads).toBe(3); // the start's two reads, then the switch's
    expect(engine.appliedRevision).toBe(toB - 1); // held behind the reload

    // Another reload lands, retention passes the follower, and the recovery loads on C.
    source.commit({ activate: zedC, add: [host()] });
    source.truncate();
    await until(() => engine.ready, "the engine has reloaded");
    const installed = engine.graph;
    const reloadedAt = engine.appliedRevision;
    expect(reloadedAt).toBe(source.revision);
    expect(schemaHash(engine.graph.model)).toBe(hashC);
    const after = source.commit({ add: [host()] });
    await engine.waitFor(after, 1000);

    // The switch's read (it saw B, the schema before C) finally answers: nothing may change.
    releaseSwitchRead();
    await settle();
    expect(engine.graph).toBe(installed);
    expect(schemaHash(engine.graph.model)).toBe(hashC);
    expect(seen.replaced).toEqual([{ hash: hashC, revision: reloadedAt }]);
    expect(seen.applied).toEqual([after]); // the held commits came with the reloaded state, not again
    expect(contents(engine)).toEqual(source.relationships());
    expect(answers(engine, `race-h${n}`, "gh_reload_c")).toBe(true);
  });

  it("a switch that answers while the recovery loads applies nothing, releases no waiter, and the recovery installs the active schema", async () => {
    const source = new ScriptedSource([...readGrant("race-ws", "alice"), host()], zedA);
    const seen = observe();
    const engine = await start(source, seen);
    const behind = engine.appliedRevision;
    const releaseSwitchRead = source.holdActiveRead();
    source.commit({ activate: zedB });
    const held = source.commit({ add: [host()] });
    expect(source.activeReads).toBe(3);
    let released = false;
    void engine.waitFor(held, 5000).then(() => (released = true));

    const releaseSnapshot = source.holdSnapshot();
    source.truncate();
    await until(() => source.snapshots === 2, "the recovery reads the snapshot");
    releaseSwitchRead();
    await settle();
    expect(engine.recovering).toBe(true);
    expect(engine.appliedRevision).toBe(behind);
    expect(released).toBe(false);
    expect(seen.applied).toEqual([]);
    expect(seen.replaced).toEqual([]);
    expect(notReady(engine)).toThrow(expect.objectContaining({ code: "not-ready" }));

    releaseSnapshot();
    await until(() => engine.ready, "the engine has reloaded");
    await settle();
    expect(released).toBe(true);
    expect(schemaHash(engine.graph.model)).toBe(hashB);
    expect(seen.replaced).toEqual([{ hash: hashB, revision: source.revision }]);
    expect(seen.applied).toEqual([]);
    expect(contents(engine)).toEqual(source.relationships());
  });

  it("a reload's batch that reaches the stopped follower during the recovery starts no switch; the recovery loads on its schema", async () => {
    const source = new ScriptedSource([...readGrant("race-ws", "alice"), host()], zedA);
    const seen = observe();
    const engine = await start(source, seen);
    const behind = engine.appliedRevision;
    const releaseSnapshot = source.holdSnapshot();
    source.truncate();
    await until(() => source.snapshots === 2, "the recovery reads the snapshot");
    // Committed after the snapshot's revision was taken; it reaches the stopped follower late.
    const late = source.commit({ activate: zedB, add: [host()] });
    let released = false;
    void engine.waitFor(late, 5000).then(() => (released = true));
    source.deliverLate(late);
    await settle();
    expect(engine.appliedRevision).toBe(behind);
    expect(released).toBe(false);
    expect(seen.replaced).toEqual([]);
    expect(source.activeReads).toBe(3); // the start's two, the recovery's first; no switch

    releaseSnapshot();
    // The read after the snapshot sees the reload, so the recovery loads again, on B.
    await until(() => engine.ready, "the engine has reloaded");
    await settle();
    expect(engine.appliedRevision).toBe(late);
    expect(released).toBe(true);
    expect(seen.applied).toEqual([]);
    expect(schemaHash(engine.graph.model)).toBe(hashB);
    expect(seen.replaced).toEqual([{ hash: hashB, revision: late }]);
    expect(contents(engine)).toEqual(source.relationships());
  });

  it("a checkpoint names the schema and revision of the graph it encodes, and none is written while reloading", async () => {
    const checkpoints = memoryCheckpointStore(8);
    const source = new ScriptedSource([...readGrant("race-ws", "alice"), host()], zedA);
    const engine = await start(source, observe(), checkpoints);
    // During a switch the graph is still the old schema's at the revision before the reload.
    const releaseSwitchRead = source.holdActiveRead();
    const toB = source.commit({ activate: zedB });
    expect(source.activeReads).toBe(3);
    await engine.writeCheckpoint();
    releaseSwitchRead();
    await engine.waitFor(toB, 1000);
    await engine.writeCheckpoint();
    // While reloading, nothing is written (the graph in place is the stale one).
    const stale = source.commit({ add: [host()] });
    await engine.waitFor(stale, 1000);
    const releaseSnapshot = source.holdSnapshot();
    source.truncate();
    source.commit({ add: [host()] });
    await until(() => source.snapshots === 2, "the recovery reads the snapshot");
    await engine.writeCheckpoint();
    releaseSnapshot();
    await until(() => engine.ready, "the engine has reloaded");
    await engine.writeCheckpoint();

    const headers = await Promise.all(
      (await checkpoints.list()).map(async (ref) => {
        const bytes = await checkpoints.read(ref.key);
        for (const hash of [hashA, hashB]) {
          try {
            return readCheckpointHeader(bytes, { storeId: "scripted", schemaHash: hash }).header;
          } catch {}
        }
        throw new Error(`checkpoint ${ref.key} names neither schema`);
      }),
    );
    expect(headers.map((h) => [h.revision, h.schemaHash]).reverse()).toEqual([
      [toB - 1, hashA],
      [toB, hashB],
      [source.revision, hashB],
    ]);
  });
});
