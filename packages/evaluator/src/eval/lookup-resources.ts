// lookupResources: a reverse walk from the subject. Facts (node, slot) known true are propagated
// backwards through subject sets, arrows and computed permissions, restricted to slots that can
// reach the target. Candidates inside `&` or `-` are verified with a check that shares one memo.
import type { RelationshipGraph } from "../graph/relationship-graph.js";
import type { Model } from "../model/model.js";
import type { SubjectRef } from "../relationship.js";
import { check } from "./check.js";
import { guardDispatchDepth } from "./dispatch-depth.js";
import { type IdsInOrder, NodesInIdOrder, SortedIdList } from "./ids-in-order.js";
import { DEFAULT_MAX_DEPTH, Evaluation } from "./evaluation.js";
import { reverseIndexOf } from "./reverse-index.js";
import { reverseWalk, reverseWalkUnordered } from "./reverse-walk.js";
import { resolvePermission, resolveSubject, resolveType } from "./subject.js";

/** Nodes of `resourceType` on which `subject` holds `permission`, as graph nodes. */
export function lookupResourceNodes(graph: RelationshipGraph, resourceType: string, permission: string, subject: SubjectRef): Set<number> {
  return new Set(lookupNodes(graph, resourceType, permission, subject));
}

function lookupNodes(graph: RelationshipGraph, resourceType: string, permission: string, subject: SubjectRef): number[] | Int32Array {
  const typeIndex = resolveType(graph, resourceType);
  const target = resolvePermission(graph, typeIndex, permission);
  const resolved = resolveSubject(graph, subject);
  const evaluation = new Evaluation(graph, resolved, DEFAULT_MAX_DEPTH);
  // SpiceDB's lookup fails on the long chains its reverse dispatch meets: so does this one (a cycle adds nothing).
  guardDispatchDepth(evaluation, target, DEFAULT_MAX_DEPTH);
  const plan = arrowIntersectionOf(graph.model, target);
  // A subject set on the listed type itself could hold a branch by self-membership: the general walk handles it.
  const nodes = plan && !(resolved.relationSlot >= 0 && resolved.typeIndex === typeIndex) ? arrowIntersection(evaluation, plan) : reverseWalkUnordered(evaluation, typeIndex, target);
  evaluation.release();
  return nodes;
}

/**
 * `permission p = a->x & a->y` (each branch an arrow over the same relation `a`, or a computed
 * permission that is itself such an arrow, as in `view & t_workspace->patch_system_view` with
 * `view = t_workspace->inventory_host_view`), where `a` holds plain objects of one type.
 */
interface ArrowIntersection {
  tupleset: number;
  /** Target slot of each branch, on the tupleset's object type. */
  targets: number[];
  targetType: number;
}

const MAX_BRANCHES = 8;
const arrowIntersections = new WeakMap<Model, Map<number, ArrowIntersection | null>>();

function arrowIntersectionOf(model: Model, slot: number): ArrowIntersection | undefined {
  let bySlot = arrowIntersections.get(model);
  if (!bySlot) arrowIntersections.set(model, (bySlot = new Map()));
  let plan = bySlot.get(slot);
  if (plan === undefined) {
    plan = planArrowIntersection(model, slot) ?? null;
    bySlot.set(slot, plan);
  }
  return plan ?? undefined;
}

function planArrowIntersection(model: Model, slot: number): ArrowIntersection | undefined {
  const op = model.slots[slot]!.op;
  if (op?.k !== "intersection" || op.ops.length > MAX_BRANCHES) return undefined;
  const { plainTypeOf } = reverseIndexOf(model);
  let tupleset = -1;
  let targetType = -1;
  const targets: number[] = [];
  for (let branch of op.ops) {
    if (branch.k === "slot") {
      const s = model.slots[branch.slot]!;
      if (s.stored || s.op?.k !== "arrow") return undefined;
      branch = s.op;
    }
    if (branch.k !== "arrow") return undefined;
    const type = plainTypeOf[branch.tupleset]!;
    if (type < 0 || (tupleset >= 0 && branch.tupleset !== tupleset)) return undefined;
    tupleset = branch.tupleset;
    targetType = type;
    const target = branch.targetByType[type]!;
    if (target < 0) return undefined;
    targets.push(target);
  }
  return { tupleset, targets, targetType };
}

/**
 * Objects holding an arrow intersection: for each branch, the objects of the tupleset's type where
 * the subject holds the branch's target (one reverse walk each, not a check per candidate); then
 * the resources pointing at objects that qualify for every branch, through the reverse index. A
 * resource with several tuples qualifies when its objects together cover every branch.
 */
function arrowIntersection(evaluation: Evaluation, plan: ArrowIntersection): number[] {
  const { graph } = evaluation;
  const { targets, tupleset } = plan;
  const all = (1 << targets.length) - 1;
  const branches: number[][] = [];
  let total = 0;
  for (const target of targets) {
    const nodes = reverseWalk(evaluation, plan.targetType, target);
    if (nodes.length === 0) return [];
    branches.push(nodes);
    total += nodes.length;
  }
  // Per-node marks: typed arrays over the graph for big walks, a Map and a Set for small ones.
  const big = total >= SMALL_INTERSECTION;
  const maskArray = big ? new Uint8Array(graph.nodeType.length) : undefined;
  const maskMap = big ? undefined : new Map<number, number>();
  branches.forEach((nodes, i) => {
    if (maskArray) for (const n of nodes) maskArray[n]! |= 1 << i;
    else for (const n of nodes) maskMap!.set(n, (maskMap!.get(n) ?? 0) | (1 << i));
  });
  const maskOf = (n: number): number => (maskArray ? maskArray[n]! : (maskMap!.get(n) ?? 0));
  const seenArray = big ? new Uint8Array(graph.nodeType.length) : undefined;
  const seenSet = big ? undefined : new Set<number>();
  const reverse = graph.reverse[tupleset]!;
  const forward = graph.forward[tupleset]!;
  const result: number[] = [];
  const take = (r: number): void => {
    if (seenArray) {
      if (seenArray[r] === 1) return;
      seenArray[r] = 1;
    } else {
      if (seenSet!.has(r)) return;
      seenSet!.add(r);
    }
    result.push(r);
  };
  // Every qualifying resource points at some object holding the first branch.
  for (const object of branches[0]!) {
    const resources = reverse.get(object);
    if (!resources) continue;
    if (maskOf(object) === all) {
      for (const r of resources) take(r);
      continue;
    }
    for (const r of resources) {
      const objects = forward.get(r)!;
      if (objects.length < 2) continue;
      let covered = 0;
      for (const o of objects) covered |= maskOf(o);
      if (covered === all) take(r);
    }
  }
  return result;
}

/** Intersections whose branch walks found fewer objects than this mark them in a Map, not a graph-sized array. */
const SMALL_INTERSECTION = 2_048;

/**
 * Per graph and type: the type's nodes sorted by id and each node's rank. Kept incrementally: objects
 * are never forgotten by the graph (a removed tuple leaves its node in place, and the walk simply
 * never reports it), so the order only grows. Nodes interned since the last use are found by
 * scanning `nodeType` from where the previous scan stopped, sorted among themselves and merged in.
 */
interface SortedType {
  /** Nodes of the graph (all types) already scanned. */
  scanned: number;
  /** Ids in sorted order, and the node of each. */
  ids: string[];
  nodes: number[];
  /** node → rank in `ids` (or -1 for nodes of other types); covers nodes below `scanned`. */
  rank: Int32Array;
}
const sortedTypes = new WeakMap<RelationshipGraph, Map<number, SortedType>>();
/** Results at least this large are ordered through the per-type rank instead of a string sort. */
const RANK_SORT_FROM = 2_000;
/** Up to this many new ids are inserted in place; more are merged in one pass. */
const SPLICE_UP_TO = 64;

const byId =
  (ids: string[]) =>
  (a: number, b: number): number =>
    ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0;

/** The per-type order of `typeIndex`, brought up to date with the nodes interned since its last use. */
export function sortedTypeOf(graph: RelationshipGraph, typeIndex: number): SortedType {
  let byType = sortedTypes.get(graph);
  if (!byType) sortedTypes.set(graph, (byType = new Map()));
  let sorted = byType.get(typeIndex);
  if (!sorted) byType.set(typeIndex, (sorted = { scanned: 0, ids: [], nodes: [], rank: new Int32Array(0) }));
  const { nodeType } = graph;
  const total = nodeType.length;
  if (sorted.scanned === total) return sorted;
  // The new nodes of this type, sorted among themselves.
  const fresh: number[] = [];
  for (let n = sorted.scanned; n < total; n++) if (nodeType[n] === typeIndex) fresh.push(n);
  let rank = sorted.rank;
  if (rank.length < total) {
    // Grow with headroom so a stream of single additions does not copy the array every time.
    const grown = new Int32Array(Math.max(total, Math.ceil(rank.length * 1.25) + 1024)).fill(-1);
    grown.set(rank);
    rank = grown;
  }
  sorted.scanned = total;
  sorted.rank = rank;
  if (fresh.length === 0) return sorted;
  const freshIds = fresh.map((n) => graph.idOf(n));
  const order = fresh.map((_, i) => i).sort(byId(freshIds));
  const old = sorted.ids;
  const oldNodes = sorted.nodes;
  if (old.length === 0) {
    sorted.ids = order.map((i) => freshIds[i]!);
    sorted.nodes = order.map((i) => fresh[i]!);
    for (let r = 0; r < sorted.nodes.length; r++) rank[sorted.nodes[r]!] = r;
    return sorted;
  }
  if (fresh.length <= SPLICE_UP_TO) {
    // A few new ids (the usual write): insert each in place; ranks change only from the first insertion on.
    let from = old.length;
    for (const i of order) {
      const at = lowerBound(old, freshIds[i]!);
      old.splice(at, 0, freshIds[i]!);
      oldNodes.splice(at, 0, fresh[i]!);
      if (at < from) from = at;
    }
    for (let r = from; r < oldNodes.length; r++) rank[oldNodes[r]!] = r;
    return sorted;
  }
  // Many: merge the two sorted runs (arrays built by push stay packed).
  const ids: string[] = [];
  const nodes: number[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length || j < order.length) {
    if (j < order.length && (i >= old.length || freshIds[order[j]!]! < old[i]!)) {
      ids.push(freshIds[order[j]!]!);
      nodes.push(fresh[order[j]!]!);
      j++;
    } else {
      ids.push(old[i]!);
      nodes.push(oldNodes[i]!);
      i++;
    }
  }
  for (let r = 0; r < nodes.length; r++) rank[nodes[r]!] = r;
  sorted.ids = ids;
  sorted.nodes = nodes;
  return sorted;
}

function lowerBound(sorted: string[], id: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function sortedIds(graph: RelationshipGraph, typeIndex: number, nodes: number[] | Int32Array): string[] {
  if (nodes.length < RANK_SORT_FROM) return Array.from(nodes, (n) => graph.idOf(n)).sort();
  const sorted = sortedTypeOf(graph, typeIndex);
  const count = sorted.ids.length;
  const marks = new Uint8Array(count);
  for (const n of nodes) marks[sorted.rank[n]!] = 1;
  const out: string[] = [];
  for (let r = 0; r < count; r++) if (marks[r] === 1) out.push(sorted.ids[r]!);
  return out;
}

/**
 * The ids of `lookupResources`, read in order by index as far as the caller asks (a listing streams
 * its first page before the rest is ordered): a small answer is sorted at once; a large one is
 * ordered by the nodes' id bytes, lazily (`NodesInIdOrder`), and an id is decoded only when read.
 * When the type's order is already kept, a large answer comes out in it (no comparison at all).
 * Building the type's order from scratch is a comparator sort of every object of the type, more
 * than the lazy order costs up to a first page, so it is never built here.
 */
export function lookupResourceIds(graph: RelationshipGraph, resourceType: string, permission: string, subject: SubjectRef, options?: { now?: number }): IdsInOrder {
  if (graph.expiring > 0) graph.expire(options?.now ?? Date.now());
  const typeIndex = resolveType(graph, resourceType);
  const resolved = resolveSubject(graph, subject);
  if (resolved.node < 0 && resolved.relationSlot >= 0) {
    return new SortedIdList(resolved.typeIndex === typeIndex && check(graph, { type: resourceType, id: subject.id }, permission, subject) ? [subject.id] : []);
  }
  const nodes = lookupNodes(graph, resourceType, permission, subject);
  if (nodes.length < RANK_SORT_FROM) return new SortedIdList(Array.from(nodes, (n) => graph.idOf(n)).sort());
  const kept = sortedTypes.get(graph)?.get(typeIndex);
  if (kept && kept.ids.length > 0) return new NodesInIdOrder(graph, nodesByRank(graph, typeIndex, nodes), true);
  return new NodesInIdOrder(graph, nodes instanceof Int32Array ? nodes : Int32Array.from(nodes), false);
}

/** `nodes` (of `typeIndex`) in the type's kept order. */
function nodesByRank(graph: RelationshipGraph, typeIndex: number, nodes: ArrayLike<number>): Int32Array {
  const sorted = sortedTypeOf(graph, typeIndex);
  const count = sorted.ids.length;
  const marks = new Uint8Array(count);
  for (let i = 0; i < nodes.length; i++) marks[sorted.rank[nodes[i]!]!] = 1;
  const out = new Int32Array(nodes.length);
  let k = 0;
  for (let r = 0; r < count; r++) if (marks[r] === 1) out[k++] = sorted.nodes[r]!;
  return out;
}

/** Sorted ids of the objects of `resourceType` on which `subject` holds `permission`. */
export function lookupResources(graph: RelationshipGraph, resourceType: string, permission: string, subject: SubjectRef, options?: { now?: number }): string[] {
  if (graph.expiring > 0) graph.expire(options?.now ?? Date.now());
  const typeIndex = resolveType(graph, resourceType);
  const resolved = resolveSubject(graph, subject);
  // A subject set whose object is in no relationship reaches nothing but its own object (as in check).
  if (resolved.node < 0 && resolved.relationSlot >= 0) {
    return resolved.typeIndex === typeIndex && check(graph, { type: resourceType, id: subject.id }, permission, subject) ? [subject.id] : [];
  }
  return sortedIds(graph, typeIndex, lookupNodes(graph, resourceType, permission, subject));
}
