// kessel.relations.v1beta1.KesselTupleService: wire → command → wire. Validation follows the
// buf.validate rules of relations-api's protos; filters follow its SpiceDB-backed rules and texts.
import type { relations } from "@gatehouse/proto";
import type { Relationship } from "@gatehouse/evaluator";
import type { ReplicatedFilter, ReplicatedRepository } from "@gatehouse/store";
import { acquireLock, createTuples, deleteTuples, readTuples, storedRelation, wireRelation, type Fencing, type TupleScope } from "../commands/tuples.js";
import type { EngineContext } from "../commands/context.js";
import { EngineError, invalidArgument } from "../errors.js";
import type { CallContext, StreamWriter } from "../grpc/calls.js";
import { boundedString, requireMessage, requireString } from "../grpc/validation.js";
import { FIELD_LIMITS } from "../limits.js";

type WireRelationship = relations.Relationship;
/** The store's bound on one call (packages/store's replicated repository). */
const MAX_TUPLES = 10_000;

/** Tuple-service text reaches the store's SQL: no NUL (Postgres text cannot hold it; SpiceDB's id rules refuse it too). */
function storable(value: string, field: string): string {
  if (value.includes("\u0000")) throw invalidArgument(field, "string.no_nul", "value must not contain NUL characters");
  return value;
}
const requireStorable = (value: string | undefined, field: string, max: number = FIELD_LIMITS.id): string => storable(requireString(value, field, max), field);
const boundedStorable = (value: string, field: string, max: number): string => storable(boundedString(value, field, max), field);

function objectType(value: relations.ObjectType | undefined, field: string): string {
  const type = requireMessage(value, field);
  return `${requireStorable(type.namespace, `${field}.namespace`, FIELD_LIMITS.name)}/${requireStorable(type.name, `${field}.name`, FIELD_LIMITS.name)}`;
}

function objectRef(value: relations.ObjectReference | undefined, field: string): { type: string; id: string } {
  const ref = requireMessage(value, field);
  return { type: objectType(ref.type, `${field}.type`), id: requireStorable(ref.id, `${field}.id`) };
}

function toStored(tuple: WireRelationship, field: string): Relationship {
  const resource = objectRef(tuple.resource, `${field}.resource`);
  const relation = requireStorable(tuple.relation, `${field}.relation`, FIELD_LIMITS.name);
  const subjectRef = requireMessage(tuple.subject, `${field}.subject`);
  const subject = objectRef(subjectRef.subject, `${field}.subject.subject`);
  return {
    resourceType: resource.type,
    resourceId: resource.id,
    relation: storedRelation(relation),
    subjectType: subject.type,
    subjectId: subject.id,
    // Subject relations name permissions (e.g. a group's `member`): never prefixed.
    ...(subjectRef.relation ? { subjectRelation: boundedStorable(subjectRef.relation, `${field}.subject.relation`, FIELD_LIMITS.name) } : {}),
  };
}

function toWire(tuple: Relationship): WireRelationship {
  const type = (name: string) => {
    const slash = name.indexOf("/");
    return slash < 0 ? { namespace: "", name } : { namespace: name.slice(0, slash), name: name.slice(slash + 1) };
  };
  return {
    resource: { type: type(tuple.resourceType), id: tuple.resourceId },
    relation: wireRelation(tuple.relation),
    subject: { subject: { type: type(tuple.subjectType), id: tuple.subjectId }, ...(tuple.subjectRelation ? { relation: tuple.subjectRelation } : {}) },
  };
}

/** relations-api's rule (SpiceDB needs namespace and type together) with its exact texts. */
function pairedType(namespace: string | undefined, name: string | undefined, which: "resource" | "subject"): string | undefined {
  const where = which === "subject" ? " in subjectFilter" : "";
  if (namespace && !name) throw invalidFilter(`due to a spicedb limitation, if ${which} namespace is specified${where} then ${which} type must also be specified`);
  if (!namespace && name) throw invalidFilter(`due to a spicedb limitation, if ${which} type is specified${where} then ${which} namespace must also be specified`);
  return namespace && name ? `${namespace}/${name}` : undefined;
}

function invalidFilter(message: string): EngineError {
  return new EngineError("invalid-argument", message, { field: "filter", rule: "filter.paired_type" });
}

function toFilter(value: relations.RelationTupleFilter | undefined): ReplicatedFilter {
  const filter = requireMessage(value, "filter");
  // Every string is bounded before use (never echoed: the message names the field and the limit).
  const bound = (text: string | undefined, field: string, max: number = FIELD_LIMITS.name) => (text === undefined ? undefined : boundedStorable(text, `filter.${field}`, max));
  bound(filter.resourceNamespace, "resource_namespace");
  bound(filter.resourceType, "resource_type");
  bound(filter.resourceId, "resource_id", FIELD_LIMITS.id);
  bound(filter.relation, "relation");
  if (filter.subjectFilter) {
    bound(filter.subjectFilter.subjectNamespace, "subject_filter.subject_namespace");
    bound(filter.subjectFilter.subjectType, "subject_filter.subject_type");
    bound(filter.subjectFilter.subjectId, "subject_filter.subject_id", FIELD_LIMITS.id);
    bound(filter.subjectFilter.relation, "subject_filter.relation");
  }
  const out: ReplicatedFilter = {};
  const resourceType = pairedType(filter.resourceNamespace, filter.resourceType, "resource");
  if (resourceType) out.resourceType = resourceType;
  if (filter.resourceId) out.resourceId = filter.resourceId;
  if (filter.relation) out.relation = storedRelation(filter.relation);
  const subject = filter.subjectFilter;
  if (subject) {
    const subjectType = pairedType(subject.subjectNamespace, subject.subjectType, "subject");
    if (subjectType) out.subjectType = subjectType;
    if (subject.subjectId) out.subjectId = subject.subjectId;
    // Absent: any subject relation; present but empty: subjects without one.
    if (subject.relation !== undefined) out.subjectRelation = subject.relation;
  }
  return out;
}

function fencing(value: relations.FencingCheck | undefined): Fencing | undefined {
  if (value === undefined) return undefined;
  return { lockId: requireStorable(value.lockId, "fencing_check.lock_id"), lockToken: requireStorable(value.lockToken, "fencing_check.lock_token", FIELD_LIMITS.token) };
}

export function tupleHandlers(repo: ReplicatedRepository, ctx: EngineContext) {
  const scope = (context: CallContext): TupleScope => ({ repo, writePolicy: ctx.writePolicy, caller: context.identity });
  return {
    async createTuples(request: relations.CreateTuplesRequest, context: CallContext): Promise<relations.CreateTuplesResponse> {
      // Counted before each tuple is looked at: an oversized call costs nothing.
      if (request.tuples.length > MAX_TUPLES) throw invalidArgument("tuples", "repeated.max_items", `value must contain no more than ${MAX_TUPLES} item(s)`);
      const tuples = request.tuples.map((t, i) => toStored(t, `tuples[${i}]`));
      const token = await createTuples(scope(context), tuples, request.upsert, fencing(request.fencingCheck));
      return { consistencyToken: { token } };
    },

    async deleteTuples(request: relations.DeleteTuplesRequest, context: CallContext): Promise<relations.DeleteTuplesResponse> {
      const filter = toFilter(request.filter);
      if (Object.keys(filter).length === 0) throw invalidArgument("filter", "filter.not_empty", "at least one filter field must be set");
      const token = await deleteTuples(scope(context), filter, fencing(request.fencingCheck));
      return { consistencyToken: { token } };
    },

    async acquireLock(request: relations.AcquireLockRequest, context: CallContext): Promise<relations.AcquireLockResponse> {
      const lockId = requireStorable(request.lockId, "lock_id");
      return { lockToken: await acquireLock(scope(context), lockId) };
    },

    async readTuples(request: relations.ReadTuplesRequest, context: CallContext, write: StreamWriter<relations.ReadTuplesResponse>): Promise<void> {
      const filter = toFilter(request.filter);
      const page: { limit?: number; continuationToken?: string } = {};
      if (request.pagination) {
        if (!(request.pagination.limit > 0)) throw invalidArgument("pagination.limit", "uint32.gt", "value must be greater than 0");
        page.limit = request.pagination.limit;
        if (request.pagination.continuationToken) page.continuationToken = boundedStorable(request.pagination.continuationToken, "pagination.continuation_token", FIELD_LIMITS.token);
      }
      const consistency = request.consistency;
      if (consistency !== undefined) {
        if (consistency.minimizeLatency === undefined && consistency.atLeastAsFresh === undefined) {
          throw invalidArgument("consistency.requirement", "oneof.required", "exactly one field is required in oneof");
        }
        // The store is read directly (always current); a token is still checked to be ours.
        if (consistency.atLeastAsFresh !== undefined) ctx.source.decodeToken(requireStorable(consistency.atLeastAsFresh.token, "consistency.at_least_as_fresh.token", FIELD_LIMITS.token));
      }
      const consistencyToken = { token: ctx.source.encodeToken(await ctx.source.headRevision()) };
      for await (const { tuple, cursor } of readTuples(scope(context), filter, page)) {
        if (context.cancelled()) return;
        const pending = write({ tuple: toWire(tuple), pagination: { continuationToken: cursor }, consistencyToken });
        if (pending) await pending;
      }
    },
  };
}
