// Relationship tuples and their canonical text form:
//   rbac/workspace:w1#t_parent@rbac/workspace:root
//   rbac/role_binding:rb#t_subject@rbac/group:g#member
//   rbac/role:r#t_inventory_hosts_read@rbac/principal:*
import { EvaluationError } from "./errors.js";

export interface Relationship {
  resourceType: string;
  resourceId: string;
  relation: string;
  subjectType: string;
  subjectId: string;
  subjectRelation?: string;
  /**
   * Expiry (milliseconds since the epoch) for relations declared `with expiration`: from that
   * instant on the relationship no longer exists (SpiceDB's `use expiration`).
   */
  expiresAt?: number;
}

export interface ObjectRef {
  type: string;
  id: string;
}

export interface SubjectRef {
  type: string;
  id: string;
  relation?: string;
}

export const WILDCARD_ID = "*";

// SpiceDB's object id rule (section 3 of the zed contract), plus the wildcard.
const OBJECT_ID = /^[a-zA-Z0-9/_|\-=+]{1,1024}$/;

export function isValidObjectId(id: string): boolean {
  return OBJECT_ID.test(id);
}

export function formatRelationship(r: Relationship): string {
  const subject = `${r.subjectType}:${r.subjectId}${r.subjectRelation ? `#${r.subjectRelation}` : ""}`;
  return `${r.resourceType}:${r.resourceId}#${r.relation}@${subject}`;
}

export function formatSubject(s: SubjectRef): string {
  return `${s.type}:${s.id}${s.relation ? `#${s.relation}` : ""}`;
}

const RELATIONSHIP = /^([^:#@\s]+):([^#@\s]+)#([^@\s]+)@([^:#@\s]+):([^#@\s]+)(?:#([^#@\s]+))?$/;

/** Input quoted in an error is cut to this many characters. */
const QUOTED_MAX = 120;
const quote = (text: string): string => JSON.stringify(text.length > QUOTED_MAX ? `${text.slice(0, QUOTED_MAX)}…` : text);

/**
 * The SpiceDB construct a trailing `[...]` of relationship text (or of a subject id read from it)
 * carries: an expiration (`[expiration:2030-01-01T00:00:00Z]`) or a caveat (`[name]`,
 * `[name:{...}]`), described for an error; undefined when there is none.
 */
export function bracketedConstruct(text: string): string | undefined {
  const open = text.indexOf("[");
  if (open < 0) return undefined;
  const inside = text.slice(open + 1);
  if (/^expiration\s*:/.test(inside)) return "an expiration ('[expiration:…]'): give the expiry as expiresAt, not in the text";
  const name = /^([a-z][a-z0-9_]*(?:\/[a-z][a-z0-9_]*)*)/.exec(inside)?.[1];
  if (name) return `a caveat ('[${name.slice(0, 64)}…]'): caveats are not supported`;
  return undefined;
}

export function parseRelationship(s: string): Relationship {
  const construct = bracketedConstruct(s);
  if (construct) throw new EvaluationError("invalid-relationship", `relationship ${quote(s)} carries ${construct}`);
  const m = RELATIONSHIP.exec(s.trim());
  if (!m) {
    throw new EvaluationError("invalid-relationship", `cannot parse relationship ${quote(s)}: expected type:id#relation@type:id[#relation]`);
  }
  const [, resourceType, resourceId, relation, subjectType, subjectId, subjectRelation] = m as unknown as string[];
  const r: Relationship = {
    resourceType: resourceType!,
    resourceId: resourceId!,
    relation: relation!,
    subjectType: subjectType!,
    subjectId: subjectId!,
  };
  if (subjectRelation !== undefined) r.subjectRelation = subjectRelation;
  return r;
}
