// Tuples replicated by another management plane.
// Part of the store's public types (types.ts re-exports every one).

import type { Relationship, Written } from "./shared.types.js";

/** Filter over replicated tuples; an absent field matches anything ('' subjectRelation = none). */
export interface ReplicatedFilter {
  resourceType?: string;
  resourceId?: string;
  relation?: string;
  subjectType?: string;
  subjectId?: string;
  subjectRelation?: string;
  /** Only these resource types (what the caller may see); absent: every type. */
  resourceTypes?: readonly string[];
}

export type ReplicatedWriteOutcome =
  | { ok: true; count: number }
  /** The fencing check named a lock token that is not the lock's current one: nothing written. */
  | { ok: false; reason: "lock-mismatch" }
  /** Create without upsert met a tuple that already exists: nothing written. */
  | { ok: false; reason: "exists"; tuple: Relationship };

/** Tuples replicated by another management plane (KesselTupleService), in their own partition. */
export interface ReplicatedRepository {
  create(tuples: Relationship[], options: { upsert: boolean; fencing?: { lockId: string; lockToken: string } }): Promise<Written<ReplicatedWriteOutcome>>;
  delete(filter: ReplicatedFilter, options: { fencing?: { lockId: string; lockToken: string } }): Promise<Written<ReplicatedWriteOutcome>>;
  /** One page in key order, strictly after `after`. */
  read(filter: ReplicatedFilter, page?: { limit?: number; after?: Relationship }): Promise<Relationship[]>;
  /** Replaces the lock's token with a new random one and returns it (fencing for later writes). */
  acquireLock(lockId: string): Promise<Written<string>>;
}
