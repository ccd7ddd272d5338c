// Request validation shared by check, lookups and explain: names resolved to model indexes and
// the subject resolved to its graph codes.
import { EvaluationError } from "../errors.js";
import type { RelationshipGraph } from "../graph/relationship-graph.js";
import { NOT_FOUND } from "../graph/relationship-graph.js";
import { formatSubject, WILDCARD_ID, type SubjectRef } from "../relationship.js";

export interface ResolvedSubject {
  ref: SubjectRef;
  typeIndex: number;
  /** Node of the subject object, or -1 if it is in no relationship. */
  node: number;
  /** Slot of the subject relation (`group#member`), or -1 for a plain subject. */
  relationSlot: number;
  /** Code to look up in relation lists: the node, the userset code, or NOT_FOUND. */
  code: number;
  /** Node of `type:*`, or -1 if no wildcard tuple of this type exists. */
  wildcardNode: number;
}

export function resolveType(graph: RelationshipGraph, type: string): number {
  const index = graph.model.typeIndex(type);
  if (index === undefined) throw new EvaluationError("unknown-type", `unknown type '${type}'`);
  return index;
}

export function resolvePermission(graph: RelationshipGraph, typeIndex: number, name: string): number {
  const slot = graph.model.slotOf(typeIndex, name);
  if (slot < 0) {
    throw new EvaluationError("unknown-permission", `'${graph.model.typeNames[typeIndex]}' has no relation or permission '${name}'`);
  }
  return slot;
}

/**
 * `knownTypeIndex`: the subject type's index when the caller has resolved it already; `knownNode`:
 * the subject object's node (or -1) when the caller has looked it up already.
 */
export function resolveSubject(graph: RelationshipGraph, subject: SubjectRef, knownTypeIndex?: number, knownNode?: number): ResolvedSubject {
  if (subject.id === WILDCARD_ID) {
    throw new EvaluationError("wildcard-subject", `cannot evaluate for the wildcard subject ${formatSubject(subject)}`);
  }
  const typeIndex = knownTypeIndex ?? resolveType(graph, subject.type);
  const relation = subject.relation === "" || subject.relation === "..." ? undefined : subject.relation;
  let relationSlot = -1;
  if (relation !== undefined) {
    relationSlot = graph.model.slotOf(typeIndex, relation);
    if (relationSlot < 0) throw new EvaluationError("unknown-relation", `'${subject.type}' has no relation or permission '${relation}'`);
  }
  const node = knownNode ?? graph.nodeOf(typeIndex, subject.id);
  const code = node < 0 ? NOT_FOUND : relationSlot < 0 ? node : graph.usersetCode(node, relationSlot);
  return { ref: subject, typeIndex, node, relationSlot, code, wildcardNode: graph.wildcardNodeOf(typeIndex) };
}
