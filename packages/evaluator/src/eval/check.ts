import type { RelationshipGraph } from "../graph/relationship-graph.js";
import type { ObjectRef, SubjectRef } from "../relationship.js";
import { DEFAULT_MAX_DEPTH, Evaluation } from "./evaluation.js";
import { resolvePermission, resolveSubject, resolveType } from "./subject.js";

export interface CheckOptions {
  /** Dispatch depth limit; SpiceDB's default is 50. */
  maxDepth?: number;
}

/** Does `subject` hold `permission` (a permission or relation name) on `resource`? */
export function check(
  graph: RelationshipGraph,
  resource: ObjectRef,
  permission: string,
  subject: SubjectRef,
  options?: CheckOptions,
): boolean {
  const typeIndex = resolveType(graph, resource.type);
  const slot = resolvePermission(graph, typeIndex, permission);
  const resolved = resolveSubject(graph, subject);
  // The subject set itself, even when no relationship mentions it.
  if (resolved.relationSlot === slot && resolved.typeIndex === typeIndex && subject.id === resource.id) return true;
  const node = graph.nodeOf(typeIndex, resource.id);
  if (node < 0) return false;
  return new Evaluation(graph, resolved, options?.maxDepth ?? DEFAULT_MAX_DEPTH).evalSlot(node, slot, 0);
}
