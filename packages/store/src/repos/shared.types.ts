// Types every part of the store shares: revisions, tokens, what a write returns, a page of results.
// Part of the store's public types (types.ts re-exports every one).

import type { Relationship } from "@gatehouse/evaluator";

/**
 * A relationship tuple: `Relationship` of @gatehouse/evaluator, re-exported so there is one
 * definition (SpiceDB type names, stored relations carry the `t_` prefix).
 */
export type { Relationship };

/** Revisions are positive integers assigned in commit order (1 = first write ever). */
export type Revision = number;

/** Opaque, versioned encoding of a revision (see `tokens.ts`). */
export type ConsistencyToken = string;

/** What every write method returns: the value written, and the revision of its transaction. */
export interface Written<T> {
  value: T;
  revision: Revision;
  token: ConsistencyToken;
}

export interface Page<T> {
  data: T[];
  /** Total matching rows, ignoring limit/offset. */
  count: number;
}

export interface TokenCodec {
  /** `GH1.` + base64url JSON `{v:1, r:"<revision>", s:"<store id>"}`. */
  encode(revision: Revision): ConsistencyToken;
  /** `malformed-token` for garbage, `foreign-token` for a token of another store. */
  decode(token: ConsistencyToken): Revision;
}
