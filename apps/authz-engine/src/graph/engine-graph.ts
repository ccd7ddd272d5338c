import { compileSchema, RelationshipGraph, type Model, type Relationship } from "@gatehouse/evaluator";
import type { Logger } from "@gatehouse/telemetry";
import { EngineError } from "../errors.js";
import type { ChangeBatch, FollowHandle, GraphSource } from "./source.js";

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
  /** Called when a reload's commit switched the schema (the new model is in use from then on). */
  onModelReplaced?: (model: Model, revision: number) => void;
}

/**
 * The in-memory relationship graph: loaded from a store snapshot, then kept current by the change
 * feed. One graph holds every tenant (ids are globally unique). Not ready until the snapshot is in.
 */
export class EngineGraph {
  private current: RelationshipGraph;
  /** Commits held back while a reload's new schema is compiled (applied after it, in order). */
  private held: ChangeBatch[] | null = null;
  private applied = -1;
  private follower: FollowHandle | null = null;
  private waiters: RevisionWaiter[] = [];
  // When the graph reached each recent revision (performance.now()), ascending by revision.
  private appliedRevisions: number[] = [];
  private appliedTimes: number[] = [];

  constructor(private readonly options: EngineGraphOptions) {
    this.current = new RelationshipGraph(options.model);
  }

  /** The graph every answer is computed on (replaced whole when a reload switches the schema). */
  get graph(): RelationshipGraph {
    return this.current;
  }

  get ready(): boolean {
    return this.applied >= 0;
  }

  /** The revision every answer right now reflects (at least). */
  get appliedRevision(): number {
    return this.applied;
  }

  async load(): Promise<void> {
    const { revision } = await this.options.source.snapshot((batch) => {
      for (const relationship of batch) this.graph.add(relationship);
    });
    this.applied = revision;
    this.recordApplied(revision);
    this.options.logger.info({ revision, relationships: this.graph.size }, "relationship snapshot loaded");
    this.follower = this.options.source.follow(
      revision,
      (batch) => this.apply(batch),
      // The follower reconnects and resumes by itself; answers stay correct, only staler.
      (error) => this.options.logger.warn({ err: error }, "change feed interrupted; resuming"),
    );
    this.releaseWaiters();
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
   * relationship; then the held commits apply to it and it replaces the old one at once.
   */
  private async switchSchema(): Promise<void> {
    try {
      const zed = await this.options.source.activeSchema!();
      if (zed !== undefined) {
        const model = compileSchema(zed);
        const next = new RelationshipGraph(model);
        for (const relationship of this.current.relationships()) next.add(relationship);
        next.revision = this.current.revision;
        this.current = next;
        this.options.onModelReplaced?.(model, this.held![0]!.revision);
        this.options.logger.info({ revision: this.held![0]!.revision }, "role configuration switched");
      }
    } catch (error) {
      this.options.logger.error({ err: error }, "could not switch to the new role configuration; keeping the old schema");
    }
    const held = this.held ?? [];
    this.held = null;
    for (const batch of held) this.applyChanges(batch);
  }

  private applyChanges(batch: ChangeBatch): void {
    for (const change of batch.changes) {
      if (change.op === "add") this.graph.add(change.relationship);
      else this.graph.remove(change.relationship);
    }
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
          reject(
            new EngineError(
              "freshness-timeout",
              `Revision ${revision} was not applied within ${timeoutMs} ms (applied: ${this.applied}).`,
            ),
          );
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
    await this.follower?.stop();
    this.follower = null;
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new EngineError("shutting-down", "The engine is shutting down."));
    }
    this.waiters = [];
  }

  /** For tests and diagnostics. */
  has(relationship: Relationship): boolean {
    return this.graph.has(relationship);
  }
}
