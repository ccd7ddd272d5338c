import { RelationshipGraph, type Model, type Relationship } from "@gatehouse/evaluator";
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
}

/**
 * The in-memory relationship graph: loaded from a store snapshot, then kept current by the change
 * feed. One graph holds every tenant (ids are globally unique). Not ready until the snapshot is in.
 */
export class EngineGraph {
  readonly graph: RelationshipGraph;
  private applied = -1;
  private follower: FollowHandle | null = null;
  private waiters: RevisionWaiter[] = [];

  constructor(private readonly options: EngineGraphOptions) {
    this.graph = new RelationshipGraph(options.model);
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
    for (const change of batch.changes) {
      if (change.op === "add") this.graph.add(change.relationship);
      else this.graph.remove(change.relationship);
    }
    this.applied = batch.revision;
    this.options.onApplied?.(batch);
    this.releaseWaiters();
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
