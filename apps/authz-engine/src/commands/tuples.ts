// KesselTupleService as relations-api serves it, over the store's replicated-tuple partition: one
// store transaction per call, relation names without the stored `t_` prefix on the wire. Who may
// replicate what is decided here, so every transport serving the tuple service inherits it.
import type { Relationship } from "@gatehouse/evaluator";
import type { ReplicatedFilter, ReplicatedRepository, ReplicatedWriteOutcome } from "@gatehouse/store";
import { EngineError } from "../errors.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import type { WriteCaller, WritePolicy } from "./write-policy.js";

/** What a tuple command runs against: the partition and the rule deciding who may replicate. */
export interface TupleScope {
  repo: ReplicatedRepository;
  writePolicy: WritePolicy;
  caller: WriteCaller | null;
}

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

export async function createTuples({ repo, writePolicy, caller }: TupleScope, tuples: Relationship[], upsert: boolean, fencing: Fencing | undefined): Promise<string> {
  writePolicy.authorizeReplication(caller, [...new Set(tuples.map((t) => t.resourceType))]);
  const written = await repo.create(tuples, { upsert, ...(fencing ? { fencing } : {}) });
  if (!written.value.ok) throw failure(written.value, "error creating tuples: error writing relationships to SpiceDB: ");
  return written.token;
}

export async function deleteTuples({ repo, writePolicy, caller }: TupleScope, filter: ReplicatedFilter, fencing: Fencing | undefined): Promise<string> {
  writePolicy.authorizeReplication(caller, filter.resourceType ? [filter.resourceType] : "*");
  const written = await repo.delete(filter, fencing ? { fencing } : {});
  if (!written.value.ok) throw failure(written.value, "error deleting tuples: error invoking DeleteRelationships in SpiceDB ");
  return written.token;
}

export async function acquireLock({ repo, writePolicy, caller }: TupleScope, lockId: string): Promise<string> {
  // A lock fences every replicated write out, so it takes the right to write every type.
  writePolicy.authorizeReplication(caller, "*");
  return (await repo.acquireLock(lockId)).value;
}

/**
 * Reads are scoped like writes: only replicators read the partition, and only the resource types
 * they may replicate (another replicator's types are not theirs to see). Lock tokens are never
 * read (the store keeps them out of every filter).
 */
function readableFilter(filter: ReplicatedFilter, scope: ReadonlySet<string> | "*"): ReplicatedFilter {
  if (scope === "*") return filter;
  if (filter.resourceType !== undefined && !scope.has(filter.resourceType)) {
    throw new EngineError("permission-denied", "the caller may not read tuples of this resource type");
  }
  return { ...filter, resourceTypes: [...scope] };
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
export async function* readTuples(
  { repo, writePolicy, caller }: TupleScope,
  requested: ReplicatedFilter,
  page: { limit?: number; continuationToken?: string },
): AsyncGenerator<{ tuple: Relationship; cursor: string }> {
  const filter = readableFilter(requested, writePolicy.replicationScope(caller));
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
