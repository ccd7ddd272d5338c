import type { RelationshipGraph } from "../graph/relationship-graph.js";
import type { ObjectRef, SubjectRef } from "../relationship.js";
import { NOT_FOUND } from "../graph/relationship-graph.js";
import { closureCacheOf } from "./closure-cache.js";
import { DEFAULT_MAX_DEPTH, Evaluation } from "./evaluation.js";
import { resolvePermission, resolveSubject, resolveType } from "./subject.js";

export interface CheckOptions {
  /** Dispatch depth limit; SpiceDB's default is 50. */
  maxDepth?: number;
  /**
   * Evaluation time (ms since the epoch) for expiring relationships; defaults to the clock. Only
   * read when the graph holds expiring relationships.
   */
  now?: number;
}

/** Does `subject` hold `permission` (a permission or relation name) on `resource`? */
export function check(graph: RelationshipGraph, resource: ObjectRef, permission: string, subject: SubjectRef, options?: CheckOptions): boolean {
  if (graph.expiring > 0) graph.expire(options?.now ?? Date.now());
  const typeIndex = resolveType(graph, resource.type);
  const slot = resolvePermission(graph, typeIndex, permission);
  const resolved = resolveSubject(graph, subject);
  // The subject set itself, even when no relationship mentions it.
  if (resolved.relationSlot === slot && resolved.typeIndex === typeIndex && subject.id === resource.id) return true;
  const node = graph.nodeOf(typeIndex, resource.id);
  // An object in no relationship holds nothing, except that its own subject sets hold what their
  // relation reaches through permissions (`edit = member` for `doc:d#member`): evaluated on node -1,
  // which is then also the subject's node.
  if (node < 0 && !(resolved.node < 0 && resolved.relationSlot >= 0 && resolved.typeIndex === typeIndex && subject.id === resource.id)) return false;
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  // The subject's completed results carry over between checks (until the next write); only for the
  // default depth limit, and dropped if this check fails (the table would hold in-progress marks).
  if (maxDepth === DEFAULT_MAX_DEPTH && resolved.code !== NOT_FOUND) {
    const cache = closureCacheOf(graph);
    const evaluation = new Evaluation(graph, resolved, maxDepth, cache.resultsFor(resolved.code));
    try {
      return evaluation.evalSlot(node, slot, 0);
    } catch (error) {
      cache.dropResults(resolved.code);
      throw error;
    }
  }
  const evaluation = new Evaluation(graph, resolved, maxDepth);
  const allowed = evaluation.evalSlot(node, slot, 0);
  evaluation.release();
  return allowed;
}
