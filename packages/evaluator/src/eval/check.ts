import type { RelationshipGraph } from "../graph/relationship-graph.js";
import { type ObjectRef, type SubjectRef, WILDCARD_ID } from "../relationship.js";
import { NOT_FOUND } from "../graph/relationship-graph.js";
import { type ClosureCache, closureCacheOf } from "./closure-cache.js";
import { DEFAULT_MAX_DEPTH, Evaluation } from "./evaluation.js";
import { resolvePermission, resolveSubject, resolveType, type ResolvedSubject } from "./subject.js";

export interface CheckOptions {
  /** Dispatch depth limit; SpiceDB's default is 50. */
  maxDepth?: number;
  /**
   * Evaluation time (ms since the epoch) for expiring relationships; defaults to the clock. Only
   * read when the graph holds expiring relationships.
   */
  now?: number;
}

/**
 * What every check of one graph needs, kept between checks: the graph's caches, one evaluation
 * (restarted per check instead of built, with its memo table) and the last names resolved (a
 * check usually names the same types and permission as the one before: a string comparison
 * instead of two map probes).
 */
class Checker {
  readonly cache: ClosureCache;
  private evaluation: Evaluation | undefined;
  /** Set while a check runs on `evaluation` (a check never starts another, but stay safe if one did). */
  private busy = false;
  private resourceType = "";
  private resourceTypeIndex = -1;
  private subjectType = "";
  private subjectTypeIndex = -1;
  private permission = "";
  private permissionType = -1;
  private permissionSlot = -1;
  /** The resource's and the subject's nodes of the running check (`RelationshipGraph.nodesOf`). */
  readonly nodes = new Int32Array(2);

  constructor(readonly graph: RelationshipGraph) {
    this.cache = closureCacheOf(graph);
  }

  typeOf(type: string): number {
    if (type !== this.resourceType) {
      this.resourceTypeIndex = resolveType(this.graph, type);
      this.resourceType = type;
    }
    return this.resourceTypeIndex;
  }

  subjectTypeOf(type: string): number {
    if (type !== this.subjectType) {
      this.subjectTypeIndex = resolveType(this.graph, type);
      this.subjectType = type;
    }
    return this.subjectTypeIndex;
  }

  slotOf(typeIndex: number, permission: string): number {
    if (permission !== this.permission || typeIndex !== this.permissionType) {
      this.permissionSlot = resolvePermission(this.graph, typeIndex, permission);
      this.permission = permission;
      this.permissionType = typeIndex;
    }
    return this.permissionSlot;
  }

  run(node: number, slot: number, subject: ResolvedSubject, maxDepth: number): boolean {
    // The subject's completed results carry over between checks (until the next write); only for the
    // default depth limit, and dropped if this check fails (the table would hold in-progress marks).
    const results = maxDepth === DEFAULT_MAX_DEPTH && subject.code !== NOT_FOUND ? this.cache.resultsFor(subject.code) : undefined;
    const reuse = !this.busy;
    const evaluation = reuse ? (this.evaluation ??= new Evaluation(this.graph, subject, maxDepth)) : new Evaluation(this.graph, subject, maxDepth);
    evaluation.restart(subject, maxDepth, results);
    this.busy = true;
    try {
      return evaluation.evalSlot(node, slot, 0);
    } catch (error) {
      if (results !== undefined) this.cache.dropResults(subject.code);
      throw error;
    } finally {
      if (reuse) this.busy = false;
      else evaluation.release();
    }
  }
}

/**
 * Per graph, weakly: a graph its owner dropped (replaced after a reload) is not kept alive. (A
 * module-level "last graph" would save this probe but keep that graph; a WeakRef to it costs
 * more per check than the probe, its deref recording the target for the current job.)
 */
const checkers = new WeakMap<RelationshipGraph, Checker>();

function checkerOf(graph: RelationshipGraph): Checker {
  let checker = checkers.get(graph);
  if (!checker) checkers.set(graph, (checker = new Checker(graph)));
  return checker;
}

/** Does `subject` hold `permission` (a permission or relation name) on `resource`? */
export function check(graph: RelationshipGraph, resource: ObjectRef, permission: string, subject: SubjectRef, options?: CheckOptions): boolean {
  if (graph.expiring > 0) graph.expire(options?.now ?? Date.now());
  const checker = checkerOf(graph);
  const typeIndex = checker.typeOf(resource.type);
  const slot = checker.slotOf(typeIndex, permission);
  // (A wildcard subject is refused before its type is looked at.)
  const subjectType = subject.id === WILDCARD_ID ? undefined : checker.subjectTypeOf(subject.type);
  // Both objects looked up together: on a large graph their cache misses overlap.
  const nodes = checker.nodes;
  if (subjectType !== undefined) graph.nodesOf(typeIndex, resource.id, subjectType, subject.id, nodes);
  const resolved = resolveSubject(graph, subject, subjectType, subjectType !== undefined ? nodes[1]! : undefined);
  // The subject set itself, even when no relationship mentions it.
  if (resolved.relationSlot === slot && resolved.typeIndex === typeIndex && subject.id === resource.id) return true;
  const node = nodes[0]!;
  // An object in no relationship holds nothing, except that its own subject sets hold what their
  // relation reaches through permissions (`edit = member` for `doc:d#member`): evaluated on node -1,
  // which is then also the subject's node.
  if (node < 0 && !(resolved.node < 0 && resolved.relationSlot >= 0 && resolved.typeIndex === typeIndex && subject.id === resource.id)) return false;
  return checker.run(node, slot, resolved, options?.maxDepth ?? DEFAULT_MAX_DEPTH);
}
