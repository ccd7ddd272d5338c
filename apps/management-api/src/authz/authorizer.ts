import { check, isValidObjectId, lookupResources, RelationshipGraph, type Model, type Relationship } from "@gatehouse/evaluator";
import type { Change, FollowHandle, Store } from "@gatehouse/store";
import type { Logger } from "@gatehouse/telemetry";
import { DomainError } from "../domain/errors.js";

/** The permission a caller needs, on Gatehouse's own schema. */
export interface AccessCheck {
  resourceType: "rbac/workspace" | "rbac/tenant";
  resourceId: string;
  permission: string;
}

/**
 * Decides who may do what by evaluating Gatehouse's own schema over its own tuples
 * (dogfooding). The graph is loaded from a store snapshot and kept current by the change feed;
 * `catchUp` gives a caller read-your-writes across requests.
 */
export class Authorizer {
  /** Read-only use outside (explain, parity); only the change feed writes it, and a reload replaces it whole. */
  graph: RelationshipGraph;
  private follower: FollowHandle | null = null;
  private applied = 0;

  constructor(
    private readonly store: Store,
    model: Model,
    private readonly logger: Logger,
    /**
     * The time (epoch ms) against which time-bound grants are judged: pass the store's clock, so
     * an answer and the store agree on what has expired. Default `Date.now`.
     */
    readonly now: () => number = Date.now,
  ) {
    this.graph = new RelationshipGraph(model);
  }

  get revision(): number {
    return this.applied;
  }

  async start(): Promise<void> {
    const snapshot = await this.store.feed.snapshot();
    for await (const batch of snapshot.batches) for (const tuple of batch) this.addTuple(tuple);
    this.setRevision(snapshot.revision);
    // One error line per outage (the follower retries every poll), one info line when it ends.
    let failing = false;
    this.follower = this.store.feed.follow(snapshot.revision, (changes) => this.apply(changes), {
      onError: (error) => {
        if (failing) return;
        failing = true;
        this.logger.error({ err: error }, "change feed unreadable: permissions stay as of the last change applied until it can be read again");
      },
      onResumed: () => {
        failing = false;
        this.logger.info({ revision: this.applied }, "change feed readable again");
      },
    });
  }

  async stop(): Promise<void> {
    await this.follower?.stop();
    this.follower = null;
  }

  /**
   * Pulls changes up to `revision` from the feed now instead of waiting for the follower, so a
   * caller's next request sees its own write. Safe alongside the follower: changes at or below
   * the applied revision are skipped and both paths apply contiguous, ordered prefixes.
   */
  async catchUp(revision: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.applied < revision) {
      const changes = await this.store.feed.changesSince(this.applied, 1000);
      if (changes.length > 0) {
        this.apply(changes);
        continue;
      }
      // The write committed but is not yet visible to this reader: retry briefly.
      if (Date.now() >= deadline) {
        throw new DomainError("internal", [{ message: "Timed out waiting for the write to become visible.", field: "detail" }]);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  // A principal id the schema cannot name (e.g. a user id with '@') holds nothing.
  check(principalId: string, access: AccessCheck): boolean {
    if (!isValidObjectId(principalId) || !isValidObjectId(access.resourceId)) return false;
    return check(this.graph, { type: access.resourceType, id: access.resourceId }, access.permission, { type: "rbac/principal", id: principalId }, { now: this.now() });
  }

  /** Ids of every workspace on which the principal holds `permission`. */
  workspacesWith(principalId: string, permission: string): Set<string> {
    if (!isValidObjectId(principalId)) return new Set();
    return new Set(lookupResources(this.graph, "rbac/workspace", permission, { type: "rbac/principal", id: principalId }, { now: this.now() }));
  }

  /**
   * Switches to another schema: a new graph is built from a store snapshot and brought up to the
   * revision this one reached, then swapped in at once, so every answer is either wholly the old
   * schema's or wholly the new one's.
   */
  async replaceModel(model: Model): Promise<void> {
    const next = new RelationshipGraph(model);
    const snapshot = await this.store.feed.snapshot();
    for await (const batch of snapshot.batches) for (const tuple of batch) this.addTuple(tuple, next);
    let at = snapshot.revision;
    while (at < this.applied) {
      const changes = await this.store.feed.changesSince(at, 1000);
      if (changes.length === 0) break;
      for (const change of changes) {
        for (const tuple of change.deleted) this.removeTuple(tuple, next);
        for (const tuple of change.touched) this.addTuple(tuple, next);
        at = change.revision;
      }
    }
    // No await from the last check to here: the follower cannot slip a change in between.
    this.graph = next;
    this.setRevision(Math.max(at, this.applied));
  }

  private apply(changes: Change[]): void {
    for (const change of changes) {
      if (change.revision <= this.applied) continue;
      for (const tuple of change.deleted) this.removeTuple(tuple);
      for (const tuple of change.touched) this.addTuple(tuple);
      this.setRevision(change.revision);
    }
  }

  // Tuples of types this schema does not know (e.g. other reporters) are not ours to judge.
  private addTuple(tuple: Relationship, graph = this.graph): void {
    try {
      graph.add(tuple);
    } catch (error) {
      this.logger.debug({ err: error, tuple }, "tuple ignored by the authorization graph");
    }
  }

  private removeTuple(tuple: Relationship, graph = this.graph): void {
    try {
      graph.remove(tuple);
    } catch {
      // Unknown to the schema, so never added.
    }
  }

  private setRevision(revision: number): void {
    this.applied = Math.max(this.applied, revision);
    this.graph.revision = this.applied;
  }
}
