// The change feed and snapshots.
// Part of the store's public types (types.ts re-exports every one).

import type { Relationship, Revision } from "./repos/shared.types.js";

/** One committed write transaction, as seen by the change feed. */
export interface Change {
  revision: Revision;
  /** Tenant of the write; null for public data (seeded roles). */
  orgId: string | null;
  /** What kind of write produced it, e.g. `create_workspace`. */
  kind: string;
  /** Tuples that did not exist before this transaction. */
  touched: Relationship[];
  /** Tuples that existed before and were deleted. */
  deleted: Relationship[];
  committed: Date;
}

export interface Snapshot {
  /** Every change after this revision must be applied on top of the snapshot. */
  revision: Revision;
  /** Tuples in batches; consume fully (or `return()`) to release the read transaction. */
  batches: AsyncIterable<Relationship[]>;
}

export interface SnapshotOptions {
  /** Only this tenant's tuples plus public tuples; absent = all tenants. */
  orgId?: string;
  /** Tuples per batch. Default 10,000. */
  batchSize?: number;
}

export interface FollowOptions {
  /** Changes per batch at most. Default 1000. */
  batchSize?: number;
  /** Overrides the store's polling interval for this follower. */
  pollIntervalMs?: number;
  /** Called on errors the follower survives (dropped connection, failing `onBatch`). */
  onError?: (error: unknown) => void;
  /** Called once when a read of the feed succeeds again after one or more errors. */
  onResumed?: () => void;
  /**
   * Called once when the feed no longer holds the changes after the follower's position
   * (retention deleted them, `feed-truncated`); the follower has stopped. Default: `onError`.
   */
  onTruncated?: (error: unknown) => void;
}

export interface FollowHandle {
  /** Highest revision delivered to `onBatch` (and not thrown back). */
  readonly revision: Revision;
  stop(): Promise<void>;
}

export interface ChangeFeed {
  /** Head revision: the revision of the last committed write (0 for an empty store). */
  headRevision(): Promise<Revision>;
  /** Consistent snapshot of the tuples at one revision. */
  snapshot(options?: SnapshotOptions): Promise<Snapshot>;
  /** Changes after `fromRevision`, in order (for catch-up or paging). */
  changesSince(fromRevision: Revision, limit?: number): Promise<Change[]>;
  /**
   * Delivers every change after `fromRevision`, in order, never twice and never skipping, woken by
   * LISTEN/NOTIFY with polling as the fallback. `onBatch` is awaited before the next batch; if it
   * throws, the same changes are delivered again later.
   */
  follow(fromRevision: Revision, onBatch: (changes: Change[]) => void | Promise<void>, options?: FollowOptions): FollowHandle;
  /** Resolves once the head revision is ≥ `revision`; `timeout` error after `timeoutMs`. */
  waitForRevision(revision: Revision, timeoutMs: number): Promise<Revision>;
  /**
   * The highest revision retention deleted (0: none). Reading or following from a revision below
   * it fails with `feed-truncated`: the reader must start from a snapshot.
   */
  prunedThrough(): Promise<Revision>;
  /**
   * Deletes the changes up to `throughRevision` (capped at the head); returns how many. Used by
   * the retention job (retention.ts).
   */
  prune(throughRevision: Revision): Promise<number>;
}
