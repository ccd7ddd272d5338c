import { RelationshipGraph, type Model, type Relationship } from "@gatehouse/evaluator";
import { compileRoleSchema } from "@gatehouse/role-config";
import type { Logger } from "@gatehouse/telemetry";
import { EngineError } from "../errors.js";
import { CheckpointError, encodeCheckpoint, loadCheckpoint, schemaHash, type CheckpointRejection, type CheckpointStore } from "./checkpoint.js";
import type { ChangeBatch, FollowHandle, GraphSource, RelationshipChange } from "./source.js";

interface RevisionWaiter {
  revision: number;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface EngineGraphOptions {
  model: Model;
  source: GraphSource;
  logger: Logger;
  /** Called after each applied commit (metrics). */
  onApplied?: (batch: ChangeBatch) => void;
  /** How many recent revisions `appliedAt` remembers. Default 4096. */
  appliedTimesKept?: number;
  /**
   * Called when the graph moved to another schema (the new model is in use from then on): a
   * reload's commit, or a start or recovery that found another active role configuration.
   */
  onModelReplaced?: (model: Model, revision: number) => void;
  /**
   * `model` was given directly: keep it at start even when the source records another active
   * schema. Only a reload after the start (its commit, or a change found by a recovery) switches.
   */
  keepStartSchema?: boolean;
  /** Start from the newest usable checkpoint, and write checkpoints periodically. */
  checkpoints?: CheckpointOptions;
  /** The follower could not go on and the graph is reloaded (metrics); `reason` is the cause. */
  onRecovery?: (reason: RecoveryReason) => void;
  /** The recovery finished: the reloaded graph is in use and ready again. */
  onRecovered?: (reason: RecoveryReason, revision: number) => void;
  /** Wait between failed reload attempts during a recovery. Default 1000 ms. */
  recoveryRetryMs?: number;
  /** A committed change the graph refused was skipped (metrics: it is a defect upstream of the graph). */
  onRefused?: (change: RelationshipChange, revision: number) => void;
  /**
   * The graph names every object it was ever told of (about 60 B each) until it is built again, so
   * fresh ids reported and deleted all day would grow it without end. It is rebuilt from its own
   * relationships (dropping the objects none names) once it names this many objects and twice as
   * many as after its last build: a cost proportional to the graph, paid after as many new ids.
   * Default 1,000,000.
   */
  rebuildAtObjects?: number;
}

/** Why the graph was reloaded while running: retention deleted changes the follower still needed. */
export type RecoveryReason = "feed-truncated";

/** A loaded graph and everything that must be installed with it, at once. */
interface LoadedState {
  graph: RelationshipGraph;
  revision: number;
  model: Model;
  schemaHash: string;
  /** The active schema text the state was loaded under (undefined: none recorded, or no source API). */
  activeZed: string | undefined;
  /** The checkpoint it came from, if any. */
  checkpointRevision?: number;
}

export interface CheckpointOptions {
  store: CheckpointStore;
  /** The store's id; checkpoints of another store are refused. */
  storeId: string;
  /** Write a checkpoint this often once the graph has moved past the last one; 0 = only read them. */
  intervalMs: number;
  /** A checkpoint could not be used (the start falls back to an older one or the snapshot). */
  onRejected?: (reason: CheckpointRejection) => void;
  onWritten?: (written: { revision: number; bytes: number; seconds: number }) => void;
}

/**
 * The in-memory relationship graph: loaded from a store snapshot, then kept current by the change
 * feed. One graph holds every tenant (ids are globally unique). Not ready until the snapshot is in.
 */
export class EngineGraph {
  private current: RelationshipGraph;
  /** Objects the graph named when it was last built (see `rebuildAtObjects`). */
  private builtObjects = 0;
  /** Commits held back while a reload's new schema is compiled (applied after it, in order). */
  private held: ChangeBatch[] | null = null;
  private applied = -1;
  private follower: FollowHandle | null = null;
  private waiters: RevisionWaiter[] = [];
  // When the graph reached each recent revision (performance.now()), ascending by revision.
  private appliedRevisions: number[] = [];
  private appliedTimes: number[] = [];
  private checkpointTimer: NodeJS.Timeout | null = null;
  private checkpointRevision = -1;
  /** The feed's head when the start's load finished: not ready before it is applied. */
  private readyAt = 0;
  private checkpointWriting: Promise<void> | null = null;
  /** Of the schema the graph is on: checkpoints carry it, so one written before a reload is never read after it. */
  private schemaHash: string;
  /** The schema the graph is on (the start model until a reload switches it). */
  private model: Model;
  /** The active schema text the graph has taken into account (compared, never compiled twice). */
  private activeZed: string | undefined;
  /**
   * Bumped whenever a reload takes over the graph (and at close): a schema switch or a follower
   * started under an older epoch finds it changed and gives up, so it never installs a graph
   * or applies commits the reload already covers.
   */
  private epoch = 0;
  /** Set while a truncated feed forces a reload: not ready, answers refused (see `ready`). */
  private reloading = false;
  private closed = false;

  constructor(private readonly options: EngineGraphOptions) {
    this.model = options.model;
    this.current = new RelationshipGraph(options.model);
    this.schemaHash = schemaHash(options.model);
  }

  /**
   * The graph every answer is computed on: replaced when a checkpoint is loaded at start, and
   * whole when a role-configuration reload switches the schema.
   */
  get graph(): RelationshipGraph {
    return this.current;
  }

  /**
   * Loaded, following, and caught up with the feed's head as it was when the load finished (a
   * checkpoint or a lagging replica's snapshot can be many commits old: a replica that answered
   * before replaying them would be routed traffic it is still too busy and too stale to serve);
   * false while a recovery reloads it (its answers could be arbitrarily stale).
   */
  get ready(): boolean {
    return this.applied >= 0 && this.applied >= this.readyAt && !this.reloading;
  }

  /** True while the graph is reloaded after the follower fell behind the feed's retention. */
  get recovering(): boolean {
    return this.reloading;
  }

  /** The revision every answer right now reflects (at least). */
  get appliedRevision(): number {
    return this.applied;
  }

  async load(): Promise<void> {
    // A schema given directly wins over the one recorded at start; a later change does not.
    if (this.options.keepStartSchema) this.activeZed = await this.readActiveSchema();
    this.install(await this.loadState());
    try {
      this.readyAt = await this.options.source.headRevision();
      if (this.applied < this.readyAt) this.options.logger.info({ applied: this.applied, head: this.readyAt }, "replaying the change feed up to its head before taking traffic");
    } catch (error) {
      // The feed will tell how far it goes; meanwhile readiness does not wait for a head it cannot read.
      this.options.logger.warn({ err: error }, "the change feed's head could not be read; ready without waiting for it");
    }
    const interval = this.options.checkpoints?.intervalMs ?? 0;
    if (interval > 0) {
      this.checkpointTimer = setInterval(() => {
        if (this.applied > this.checkpointRevision && !this.reloading) void this.writeCheckpoint();
      }, interval);
      this.checkpointTimer.unref();
    }
  }

  /**
   * A new graph from the newest usable checkpoint, else the snapshot, on the active schema; the
   * engine's state is untouched (`install` puts it in place). The start and every recovery load
   * here, so neither can miss a reload whose commit is no longer in the feed (or is older than
   * the loaded revision): the active schema is read first and again after the load, and a change
   * in between loads again (the second read is newer than the loaded revision, so any later
   * reload comes through the feed).
   */
  private async loadState(): Promise<LoadedState> {
    for (;;) {
      const started = performance.now();
      const activeZed = await this.readActiveSchema();
      let model = this.model;
      let hash = this.schemaHash;
      if (activeZed !== undefined && activeZed !== this.activeZed) {
        const compiled = compileRoleSchema(activeZed);
        const compiledHash = schemaHash(compiled);
        if (compiledHash !== hash) {
          model = compiled;
          hash = compiledHash;
        }
      }
      let state: LoadedState;
      const restored = await this.restoreCheckpoint(model, hash);
      if (restored) {
        this.options.logger.info(
          { revision: restored.revision, relationships: restored.graph.size, ms: Math.round(performance.now() - started), from: restored.key },
          "relationship checkpoint loaded; replaying the change feed after it",
        );
        state = { graph: restored.graph, revision: restored.revision, model, schemaHash: hash, activeZed, checkpointRevision: restored.revision };
      } else {
        const graph = new RelationshipGraph(model);
        // A bulk load: the pairs are kept in a few large arrays and every index is built from them
        // at `compact`, instead of per-key lists (which at 100M relationships held several times the graph).
        graph.startBulk();
        const { revision } = await this.options.source.snapshot((batch) => {
          for (const relationship of batch) graph.add(relationship);
        });
        graph.compact();
        this.options.logger.info({ revision, relationships: graph.size, ms: Math.round(performance.now() - started) }, "relationship snapshot loaded");
        state = { graph, revision, model, schemaHash: hash, activeZed };
      }
      if ((await this.readActiveSchema()) === activeZed) return state;
      this.options.logger.info("role configuration reloaded while the graph was loading; loading again");
    }
  }

  /** The active role configuration's schema text; undefined when none is recorded or the source cannot tell. */
  private async readActiveSchema(): Promise<string | undefined> {
    return this.options.source.activeSchema ? await this.options.source.activeSchema() : undefined;
  }

  /**
   * Puts a loaded state in place in one synchronous step (graph, revision, schema together, so a
   * checkpoint written afterwards names the schema of the graph it encodes), follows the feed
   * after it and releases the waiters it satisfies.
   */
  private install(state: LoadedState): void {
    const replaced = state.model !== this.model;
    this.current = state.graph;
    this.builtObjects = state.graph.nodeCount;
    this.model = state.model;
    this.schemaHash = state.schemaHash;
    if (state.activeZed !== undefined) this.activeZed = state.activeZed;
    if (state.checkpointRevision !== undefined) this.checkpointRevision = state.checkpointRevision;
    this.applied = state.revision;
    this.recordApplied(state.revision);
    this.reloading = false;
    if (replaced) {
      this.options.logger.info({ revision: state.revision }, "graph loaded on the active role configuration's schema");
      this.options.onModelReplaced?.(state.model, state.revision);
    }
    this.follow(state.revision);
    this.releaseWaiters();
  }

  private follow(revision: number): void {
    // A follower of an earlier epoch has been replaced: whatever it still delivers is ignored.
    const epoch = this.epoch;
    this.follower = this.options.source.follow(
      revision,
      (batch) => {
        if (epoch === this.epoch) this.apply(batch);
      },
      // The follower reconnects and resumes by itself; answers stay correct, only staler.
      (error) => this.options.logger.warn({ err: error }, "change feed interrupted; resuming"),
      (error) => {
        if (epoch === this.epoch) void this.recover("feed-truncated", error);
      },
    );
  }

  /**
   * The follower stopped for good (retention deleted changes it still needed): reload from the
   * newest usable checkpoint or the snapshot and follow from there. Not ready meanwhile; the old
   * graph is kept only until the new one replaces it (two graphs for the length of the load).
   */
  private async recover(reason: RecoveryReason, error: unknown): Promise<void> {
    if (this.reloading || this.closed) return;
    this.reloading = true;
    // A schema switch in flight gives up; the commits it held are older than the reloaded state
    // or are replayed after it by the new follower, so each is applied exactly once.
    this.epoch++;
    this.held = null;
    this.follower = null; // it has stopped itself
    this.options.onRecovery?.(reason);
    this.options.logger.warn({ reason, err: error, applied: this.applied }, "change feed cannot be followed further; reloading the graph");
    const retryMs = this.options.recoveryRetryMs ?? 1000;
    while (!this.closed) {
      try {
        const state = await this.loadState();
        if (this.closed) return;
        this.install(state);
        this.options.logger.info({ reason, revision: state.revision, relationships: state.graph.size }, "graph reloaded; following the change feed again");
        this.options.onRecovered?.(reason, state.revision);
        return;
      } catch (failure) {
        this.options.logger.warn({ reason, err: failure }, "graph reload failed; retrying");
        await new Promise((resolve) => setTimeout(resolve, retryMs).unref());
      }
    }
  }

  /**
   * The newest checkpoint that is intact, of this store and of the given schema; each one refused is
   * logged and counted. Null (start from the snapshot) when there is none.
   */
  private async restoreCheckpoint(model: Model, hash: string): Promise<{ graph: RelationshipGraph; revision: number; key: string } | null> {
    const options = this.options.checkpoints;
    if (!options) return null;
    const expect = { storeId: options.storeId, schemaHash: hash };
    let refs;
    try {
      refs = await options.store.list();
    } catch (error) {
      this.rejectCheckpoint("unreadable", options.store.location, error);
      return null;
    }
    let pruned = 0;
    try {
      pruned = (await this.options.source.prunedThrough?.()) ?? 0;
    } catch (error) {
      this.rejectCheckpoint("unreadable", "change feed", error);
      return null;
    }
    for (const ref of refs) {
      if (ref.revision < pruned) {
        this.rejectCheckpoint("feed-truncated", ref.key, new Error(`the change feed keeps no changes up to revision ${pruned}`));
        continue;
      }
      try {
        const { graph, header } = await loadCheckpoint(options.store, ref.key, model, expect);
        return { graph, revision: header.revision, key: ref.key };
      } catch (error) {
        this.rejectCheckpoint(error instanceof CheckpointError ? error.reason : "unreadable", ref.key, error);
      }
    }
    return null;
  }

  private rejectCheckpoint(reason: CheckpointRejection, where: string, error: unknown): void {
    this.options.logger.warn({ reason, checkpoint: where, err: error }, "checkpoint not usable; falling back");
    this.options.checkpoints?.onRejected?.(reason);
  }

  /**
   * Writes a checkpoint of the graph at the applied revision (no-op without a checkpoint store).
   * Encoding is synchronous, so the checkpoint is exactly the applied revision's state; the write
   * itself is asynchronous. One write at a time; failures are logged, never thrown. Nothing is
   * written while a recovery reloads: the graph still in place is the stale one being replaced.
   */
  writeCheckpoint(): Promise<void> {
    const options = this.options.checkpoints;
    if (!options || this.applied < 0 || this.reloading) return Promise.resolve();
    if (this.checkpointWriting) return this.checkpointWriting;
    const started = performance.now();
    const revision = this.applied;
    const bytes = encodeCheckpoint(this.graph, { storeId: options.storeId, schemaHash: this.schemaHash, revision });
    this.checkpointWriting = options.store
      .write(revision, bytes)
      .then(() => {
        // A recovery may have restored a newer checkpoint meanwhile.
        this.checkpointRevision = Math.max(this.checkpointRevision, revision);
        const seconds = (performance.now() - started) / 1000;
        options.onWritten?.({ revision, bytes: bytes.length, seconds });
        this.options.logger.info({ revision, bytes: bytes.length, ms: Math.round(seconds * 1000), to: options.store.location }, "relationship checkpoint written");
      })
      .catch((error: unknown) => this.options.logger.warn({ err: error, to: options.store.location }, "relationship checkpoint not written"))
      .finally(() => {
        this.checkpointWriting = null;
      });
    return this.checkpointWriting;
  }

  private apply(batch: ChangeBatch): void {
    // The feed is in commit order; a replayed or older batch is already reflected.
    if (batch.revision <= this.applied) return;
    if (this.held) {
      this.held.push(batch);
      return;
    }
    if (batch.kind === "role_config" && this.options.source.activeSchema) {
      this.held = [batch];
      void this.switchSchema();
      return;
    }
    this.applyChanges(batch);
  }

  /**
   * A reload committed: its revision and later ones wait (answers stay at the previous revision,
   * on the old schema) until the new schema is compiled and a graph on it holds every
   * relationship; then the held commits apply to it and it replaces the old one at once. If a
   * recovery starts while the schema is read, the switch gives up: the recovery's load reads the
   * active schema itself and its follower replays the held commits.
   */
  private async switchSchema(): Promise<void> {
    const epoch = this.epoch;
    let zed: string | undefined;
    let failure: unknown;
    try {
      zed = await this.options.source.activeSchema!();
    } catch (error) {
      failure = error;
    }
    if (epoch !== this.epoch) return;
    const held = this.held!;
    const revision = held[0]!.revision;
    try {
      if (failure !== undefined) throw failure;
      if (zed !== undefined) {
        const model = compileRoleSchema(zed);
        this.rebuild(model);
        this.model = model;
        this.schemaHash = schemaHash(model);
        this.activeZed = zed;
        this.options.onModelReplaced?.(model, revision);
        this.options.logger.info({ revision }, "role configuration switched");
      }
    } catch (error) {
      this.options.logger.error({ err: error }, "could not switch to the new role configuration; keeping the old schema");
    }
    this.held = null;
    for (const batch of held) this.applyChanges(batch);
  }

  /** Builds the graph again from its relationships on `model`: only the objects they name are kept. */
  private rebuild(model: Model): void {
    const next = new RelationshipGraph(model);
    next.startBulk();
    for (const relationship of this.current.relationships()) next.add(relationship);
    next.compact();
    next.revision = this.current.revision;
    this.current = next;
    this.builtObjects = next.nodeCount;
  }

  /** Rebuilds the graph when the objects it names have doubled since its last build (`rebuildAtObjects`). */
  private releaseObjects(revision: number): void {
    const objects = this.current.nodeCount;
    if (objects < Math.max(this.options.rebuildAtObjects ?? 1_000_000, 2 * this.builtObjects)) return;
    const started = performance.now();
    this.rebuild(this.model);
    const ms = Math.round(performance.now() - started);
    this.options.logger.info({ revision, objects, kept: this.current.nodeCount, ms }, "graph rebuilt to release objects no relationship names");
  }

  private applyChanges(batch: ChangeBatch): void {
    for (const change of batch.changes) {
      try {
        if (change.op === "add") this.graph.add(change.relationship);
        else this.graph.remove(change.relationship);
      } catch (error) {
        // A committed change this schema refuses can never apply: retrying it would stall every
        // tenant's answers behind it, so it is skipped and reported (writes are validated before
        // they commit; reaching here is a defect to fix where the change was written).
        this.options.logger.error({ err: error, revision: batch.revision }, "committed change refused by the graph; skipped");
        this.options.onRefused?.(change, batch.revision);
      }
    }
    this.releaseObjects(batch.revision);
    this.applied = batch.revision;
    this.recordApplied(batch.revision);
    this.options.onApplied?.(batch);
    this.releaseWaiters();
  }

  private recordApplied(revision: number): void {
    const kept = this.options.appliedTimesKept ?? 4096;
    this.appliedRevisions.push(revision);
    this.appliedTimes.push(performance.now());
    if (this.appliedRevisions.length >= 2 * kept) {
      this.appliedRevisions.splice(0, this.appliedRevisions.length - kept);
      this.appliedTimes.splice(0, this.appliedTimes.length - kept);
    }
  }

  /**
   * When (`performance.now()`, this process's monotonic clock) the graph first reflected
   * `revision`, i.e. the time a Check with that revision's token could first be answered.
   * Undefined if it is not applied yet or too old to be remembered.
   */
  appliedAt(revision: number): number | undefined {
    const revisions = this.appliedRevisions;
    if (revision > this.applied || revisions.length === 0 || revision < revisions[0]!) return undefined;
    // First remembered revision >= the one asked for (revisions may skip numbers).
    let lo = 0;
    let hi = revisions.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (revisions[mid]! < revision) lo = mid + 1;
      else hi = mid;
    }
    return this.appliedTimes[lo];
  }

  /** Resolves once the graph reflects `revision`; rejects with freshness-timeout after `timeoutMs`. */
  waitFor(revision: number, timeoutMs: number): Promise<void> {
    if (revision <= this.applied) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: RevisionWaiter = {
        revision,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(new EngineError("freshness-timeout", `Revision ${revision} was not applied within ${timeoutMs} ms (applied: ${this.applied}).`));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const pending: RevisionWaiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.revision <= this.applied) {
        clearTimeout(waiter.timer);
        waiter.resolve();
      } else pending.push(waiter);
    }
    this.waiters = pending;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.epoch++;
    if (this.checkpointTimer) clearInterval(this.checkpointTimer);
    this.checkpointTimer = null;
    await this.checkpointWriting;
    await this.follower?.stop();
    this.follower = null;
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new EngineError("shutting-down", "The engine is shutting down."));
    }
    this.waiters = [];
  }

  /**
   * Puts `graph`, the state at `revision`, in place of the current one in one synchronous step (no
   * answer sees a mix of the two): the same state moved into shared memory, or a newer one
   * (threads/: the first thread reloaded). An older state is refused.
   */
  adopt(graph: RelationshipGraph, revision: number): void {
    if (revision < this.applied) throw new EngineError("internal", `A graph of revision ${revision} cannot replace the graph at revision ${this.applied}.`);
    graph.revision = revision;
    this.current = graph;
    if (revision === this.applied) return;
    this.applied = revision;
    this.recordApplied(revision);
    this.releaseWaiters();
  }

  /** For tests and diagnostics. */
  has(relationship: Relationship): boolean {
    return this.graph.has(relationship);
  }
}
