// KesselTupleService as relations-api serves it, over the store's replicated-tuple partition: one
// store transaction per call, relation names without the stored `t_` prefix on the wire.
import type { Relationship } from "@gatehouse/evaluator";
import type { ReplicatedFilter, ReplicatedRepository, ReplicatedWriteOutcome } from "@gatehouse/store";
import { EngineError } from "../errors.js";
import { decodeCursor, encodeCursor } from "./cursor.js";

const RELATION_PREFIX = "t_";
const PAGE = 1000;

export interface Fencing {
  lockId: string;
  lockToken: string;
}

export const storedRelation = (relation: string): string => RELATION_PREFIX + relation;
export const wireRelation = (relation: string): string => (relation.startsWith(RELATION_PREFIX) ? relation.slice(RELATION_PREFIX.length) : relation);

const tupleText = (r: Relationship): string => `${r.resourceType}:${r.resourceId}#${r.relation}@${r.subjectType}:${r.subjectId}${r.subjectRelation ? `#${r.subjectRelation}` : ""}`;

/** relations-api's error texts for a write that could not apply (SpiceDB's, wrapped by its service). */
function failure(outcome: Exclude<ReplicatedWriteOutcome, { ok: true }>, prefix: string): EngineError {
  if (outcome.reason === "exists") {
    return new EngineError(
      "already-exists",
      `${prefix}could not CREATE relationship \`${tupleText(outcome.tuple)}\`, as it already existed. If this is persistent, please switch to TOUCH operations or specify a precondition`,
    );
  }
  return new EngineError("failed-precondition", `${prefix}unable to satisfy write precondition`);
}

export async function createTuples(repo: ReplicatedRepository, tuples: Relationship[], upsert: boolean, fencing: Fencing | undefined): Promise<string> {
  const written = await repo.create(tuples, { upsert, ...(fencing ? { fencing } : {}) });
  if (!written.value.ok) throw failure(written.value, "error creating tuples: error writing relationships to SpiceDB: ");
  return written.token;
}

export async function deleteTuples(repo: ReplicatedRepository, filter: ReplicatedFilter, fencing: Fencing | undefined): Promise<string> {
  const written = await repo.delete(filter, fencing ? { fencing } : {});
  if (!written.value.ok) throw failure(written.value, "error deleting tuples: error invoking DeleteRelationships in SpiceDB ");
  return written.token;
}

export async function acquireLock(repo: ReplicatedRepository, lockId: string): Promise<string> {
  return (await repo.acquireLock(lockId)).value;
}

const cursorOf = (r: Relationship): string => encodeCursor(JSON.stringify([r.resourceType, r.resourceId, r.relation, r.subjectType, r.subjectId, r.subjectRelation ?? ""]));

function afterOf(token: string): Relationship {
  let parts: unknown;
  try {
    parts = JSON.parse(decodeCursor(token));
  } catch {
    throw new EngineError("invalid-continuation-token", "The continuation token is malformed.");
  }
  if (!Array.isArray(parts) || parts.length !== 6 || !parts.every((p) => typeof p === "string")) {
    throw new EngineError("invalid-continuation-token", "The continuation token is malformed.");
  }
  const [resourceType, resourceId, relation, subjectType, subjectId, subjectRelation] = parts as string[];
  return { resourceType: resourceType!, resourceId: resourceId!, relation: relation!, subjectType: subjectType!, subjectId: subjectId!, ...(subjectRelation ? { subjectRelation } : {}) };
}

/**
 * Streams the matching tuples in key order, each with the cursor after it; `limit` bounds one
 * call (none: everything, read in pages), `continuationToken` resumes strictly after a tuple.
 */
export async function* readTuples(repo: ReplicatedRepository, filter: ReplicatedFilter, page: { limit?: number; continuationToken?: string }): AsyncGenerator<{ tuple: Relationship; cursor: string }> {
  let after = page.continuationToken ? afterOf(page.continuationToken) : undefined;
  let remaining = page.limit ?? Number.POSITIVE_INFINITY;
  while (remaining > 0) {
    const rows = await repo.read(filter, { limit: Math.min(PAGE, remaining), ...(after ? { after } : {}) });
    for (const tuple of rows) yield { tuple, cursor: cursorOf(tuple) };
    remaining -= rows.length;
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1];
  }
}
