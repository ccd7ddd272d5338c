// Request validation following the buf.validate rules of kessel.inventory.v1beta2 (contract §3).
// Each validator also normalises the request into the engine's own shapes, so commands never see
// wire types. A violation is an EngineError "invalid-argument" naming the field and the rule.
import type { Consistency, RepresentationType, RequestPagination, ResourceReference, SubjectReference } from "@gatehouse/proto";
import { EngineError, invalidArgument } from "../errors.js";
import { FIELD_LIMITS, isWellFormedText, UTF8_RULE } from "../limits.js";
import type { ConsistencyRequirement, ObjectRef, SubjectRef } from "../commands/types.js";

const NAME_PATTERN = /^[A-Za-z0-9_]+$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INSTANCE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9._-]{0,255}$/;
export const MAX_BULK_ITEMS = 1000;
/**
 * The tuple service's lock tuples hold fencing tokens: AcquireLock writes them, fenced writes
 * compare them, and no check or lookup of the inventory service answers about them (a
 * StreamedListSubjects would otherwise hand out the current token). Answered as an unknown type.
 */
const INTERNAL_DEFINITIONS: ReadonlySet<string> = new Set(["kessel/lock", "kessel/lockversion"]);

function queryable(definition: string): string {
  if (INTERNAL_DEFINITIONS.has(definition)) throw new EngineError("unknown-type", `unknown type '${definition}'`);
  return definition;
}

/** A string no longer than `max`, and valid UTF-8 (never quoted back: the message names the field and the rule). */
export function boundedString(value: string, field: string, max: number): string {
  if (value.length > max) throw invalidArgument(field, "string.max_len", `value length must be at most ${max} characters`);
  if (!isWellFormedText(value)) throw invalidArgument(field, UTF8_RULE.rule, UTF8_RULE.detail);
  return value;
}

export function requireString(value: string | undefined, field: string, max: number = FIELD_LIMITS.id): string {
  if (value === undefined || value.length === 0) {
    throw invalidArgument(field, "string.min_len", "value length must be at least 1 characters");
  }
  return boundedString(value, field, max);
}

export function requireName(value: string | undefined, field: string, pattern: RegExp = NAME_PATTERN): string {
  const name = requireString(value, field, FIELD_LIMITS.name);
  if (!pattern.test(name)) {
    throw invalidArgument(field, "string.pattern", `value does not match regex pattern \`${pattern.source}\``);
  }
  return name;
}

/**
 * Type names are case-insensitive: inventory-api lower-cases resource and reporter types before
 * use (`HBI`, `Workspace`), and the schema's definitions are lower-case.
 */
export function typeName(value: string): string {
  return value.toLowerCase();
}

/** Ids and relations are trimmed as upstream does; what is left must be non-empty. */
export function requireTrimmed(value: string | undefined, field: string, max: number = FIELD_LIMITS.id): string {
  const trimmed = requireString(value, field, max).trim();
  if (trimmed.length === 0) throw invalidArgument(field, "string.not_blank", "value must not be blank");
  return trimmed;
}

/** A relation (permission) name: trimmed, non-empty and without inner whitespace. */
export function requireRelation(value: string | undefined, field: string): string {
  const relation = requireTrimmed(value, field, FIELD_LIMITS.name);
  if (/\s/.test(relation)) throw invalidArgument(field, "string.no_whitespace", "value must not contain whitespace");
  return relation;
}

export function requireMessage<T>(value: T | undefined, field: string): T {
  if (value === undefined || value === null) throw invalidArgument(field, "required", "value is required");
  return value;
}

/**
 * The names of a reference's fields under `field`, built once per distinct field: validation names
 * the field it refuses, and building those names on every call (most of which refuse nothing) was
 * a measurable part of a bulk check. Field names come from code (at most MAX_BULK_ITEMS per form).
 */
export interface RefFields {
  self: string;
  resourceType: string;
  resourceId: string;
  reporter: string;
  reporterType: string;
  instanceId: string;
}
export interface SubjectFields {
  self: string;
  resource: RefFields;
  relation: string;
}
const FIELD_NAME_CACHE_MAX = 16_384;
function cachedNames<T>(cache: Map<string, T>, field: string, make: (field: string) => T): T {
  let names = cache.get(field);
  if (names === undefined) {
    names = make(field);
    if (cache.size < FIELD_NAME_CACHE_MAX) cache.set(field, names);
  }
  return names;
}
const refFieldNames = new Map<string, RefFields>();
/** The field names of a reference at `field` (made once per distinct field). */
export const refFields = (field: string): RefFields => cachedNames(refFieldNames, field, makeRefFieldNames);
const makeRefFieldNames = (field: string): RefFields => ({
  self: field,
  resourceType: `${field}.resource_type`,
  resourceId: `${field}.resource_id`,
  reporter: `${field}.reporter`,
  reporterType: `${field}.reporter.type`,
  instanceId: `${field}.reporter.instance_id`,
});
const subjectFieldNames = new Map<string, SubjectFields>();
/** The field names of a subject reference at `field` (made once per distinct field). */
export const subjectFields = (field: string): SubjectFields => cachedNames(subjectFieldNames, field, makeSubjectFieldNames);
const makeSubjectFieldNames = (field: string): SubjectFields => ({ self: field, resource: refFields(`${field}.resource`), relation: `${field}.relation` });

/**
 * Definition names of type pairs already found valid, the most recent first: reporter type and
 * resource type (both as sent) → `<reporter>/<type>`. A request names few pairs (a bulk check's
 * objects and subjects: two), so a short list compared by string equality (no hashing of fresh
 * strings) finds them; a pair not in it is validated in full and put first.
 */
const KNOWN_PAIRS = 8;
const knownReporters: string[] = [];
const knownResources: string[] = [];
const knownDefinitions: string[] = [];

function knownDefinition(reporterType: string, resourceType: string): string | undefined {
  for (let i = 0; i < knownDefinitions.length; i++) {
    if (knownReporters[i] === reporterType && knownResources[i] === resourceType) return knownDefinitions[i];
  }
  return undefined;
}

function rememberDefinition(reporterType: string, resourceType: string, definition: string): void {
  knownReporters.unshift(reporterType);
  knownResources.unshift(resourceType);
  knownDefinitions.unshift(definition);
  if (knownDefinitions.length > KNOWN_PAIRS) {
    knownReporters.pop();
    knownResources.pop();
    knownDefinitions.pop();
  }
}

/** `<reporter>/<type>`, the stored definition name; the reporter is required in practice (contract §5.2). */
function definitionName(resourceType: string, reporterType: string | undefined, field: string): string {
  const reporter = typeName(requireName(reporterType, field));
  return queryable(`${reporter}/${typeName(resourceType)}`);
}

/** `field`: the reference's field name, or its names from `refFields` (a caller validating many). */
export function resourceRef(ref: ResourceReference | undefined, field: string | RefFields): ObjectRef {
  const names = typeof field === "string" ? refFields(field) : field;
  const value = requireMessage(ref, names.self);
  const known = value.reporter === undefined ? undefined : knownDefinition(value.reporter.type, value.resourceType);
  // A known pair passed every check on its two names: the others run in the same order as below.
  if (known === undefined) requireName(value.resourceType, names.resourceType);
  const id = requireTrimmed(value.resourceId, names.resourceId);
  const reporter = requireMessage(value.reporter, names.reporter);
  // Present-but-empty instance ids (what ts-proto useOptionals=all clients send) mean "not given".
  const instanceId = reporter.instanceId;
  if (instanceId !== undefined) boundedString(instanceId, names.instanceId, FIELD_LIMITS.reporterInstanceId);
  if (instanceId !== undefined && instanceId !== "" && !UUID_PATTERN.test(instanceId) && !INSTANCE_NAME_PATTERN.test(instanceId)) {
    throw invalidArgument(names.instanceId, "string.uuid_or_name", "value must be a UUID or a name");
  }
  if (known !== undefined) return { type: known, id };
  const type = definitionName(value.resourceType, reporter.type, names.reporterType);
  rememberDefinition(reporter.type, value.resourceType, type);
  return { type, id };
}

/** `field`: the subject's field name, or its names from `subjectFields`. */
export function subjectRef(ref: SubjectReference | undefined, field: string | SubjectFields): SubjectRef {
  const names = typeof field === "string" ? subjectFields(field) : field;
  const value = requireMessage(ref, names.self);
  const object = resourceRef(value.resource, names.resource);
  // An empty relation is "no relation" (contract §4).
  // Bounded before anything else is done with it (an 80 kB relation must not be echoed anywhere).
  const relation = boundedString(value.relation ?? "", names.relation, FIELD_LIMITS.name).trim();
  return relation ? { ...object, relation: requireRelation(relation, names.relation) } : object;
}

export function representationType(value: RepresentationType | undefined, field: string): { definition: string; resourceType: string; reporterType: string } {
  const type = requireMessage(value, field);
  const resourceType = typeName(requireName(type.resourceType, `${field}.resource_type`));
  const reporterType = typeName(requireName(type.reporterType, `${field}.reporter_type`));
  return { definition: queryable(`${reporterType}/${resourceType}`), resourceType, reporterType };
}

export interface ConsistencyRules {
  /** Bulk and list RPCs reject at_least_as_acknowledged (contract §5.1). */
  allowAcknowledged: boolean;
}

export function consistency(value: Consistency | undefined, field: string, rules: ConsistencyRules): ConsistencyRequirement {
  if (value === undefined) return { kind: "minimize-latency" };
  const set = [value.minimizeLatency, value.atLeastAsFresh, value.atLeastAsAcknowledged].filter((v) => v !== undefined);
  if (set.length === 0) throw invalidArgument(`${field}.requirement`, "oneof.required", "exactly one field is required in oneof");
  if (set.length > 1) throw invalidArgument(`${field}.requirement`, "oneof", "only one field may be set in oneof");
  if (value.minimizeLatency !== undefined) {
    if (value.minimizeLatency !== true) throw invalidArgument(`${field}.minimize_latency`, "bool.const", "value must equal true");
    return { kind: "minimize-latency" };
  }
  if (value.atLeastAsFresh !== undefined) {
    const token = requireString(value.atLeastAsFresh.token, `${field}.at_least_as_fresh.token`, FIELD_LIMITS.token);
    return { kind: "at-least-as-fresh", token };
  }
  if (value.atLeastAsAcknowledged !== true) {
    throw invalidArgument(`${field}.at_least_as_acknowledged`, "bool.const", "value must equal true");
  }
  if (!rules.allowAcknowledged) {
    throw invalidArgument(`${field}.at_least_as_acknowledged`, "consistency.unsupported", "inventory-managed consistency tokens aren't available");
  }
  // No per-resource acknowledged token is kept, so the safe reading is "fully consistent".
  return { kind: "fully-consistent" };
}

export function pagination(value: RequestPagination | undefined, field: string): { limit?: number; continuationToken?: string } {
  if (value === undefined) return {};
  if (!(value.limit > 0)) throw invalidArgument(`${field}.limit`, "uint32.gt", "value must be greater than 0");
  // A present-but-empty token means "from the start" (contract §4, §11).
  boundedString(value.continuationToken ?? "", `${field}.continuation_token`, FIELD_LIMITS.token);
  return value.continuationToken ? { limit: value.limit, continuationToken: value.continuationToken } : { limit: value.limit };
}

export function bulkItems<T>(items: T[], field: string): T[] {
  if (items.length < 1) throw invalidArgument(field, "repeated.min_items", "value must contain at least 1 item(s)");
  if (items.length > MAX_BULK_ITEMS) {
    throw invalidArgument(field, "repeated.max_items", `value must contain no more than ${MAX_BULK_ITEMS} item(s)`);
  }
  return items;
}
