// lookupResources: a reverse walk from the subject. Facts (node, slot) known true are propagated
// backwards through subject sets, arrows and computed permissions, restricted to slots that can
// reach the target. Candidates inside `&` or `-` are verified with a check that shares one memo.
import type { RelationshipGraph } from "../graph/relationship-graph.js";
import { NOT_FOUND } from "../graph/relationship-graph.js";
import type { SubjectRef } from "../relationship.js";
import { DEFAULT_MAX_DEPTH, Evaluation } from "./evaluation.js";
import { reverseIndexOf } from "./reverse-index.js";
import { resolvePermission, resolveSubject, resolveType } from "./subject.js";

/** Nodes of `resourceType` on which `subject` holds `permission`, as graph nodes. */
export function lookupResourceNodes(graph: RelationshipGraph, resourceType: string, permission: string, subject: SubjectRef): Set<number> {
  return new Set(lookupNodes(graph, resourceType, permission, subject));
}

function lookupNodes(graph: RelationshipGraph, resourceType: string, permission: string, subject: SubjectRef): number[] {
  const typeIndex = resolveType(graph, resourceType);
  const target = resolvePermission(graph, typeIndex, permission);
  const resolved = resolveSubject(graph, subject);
  return reverseWalk(new Evaluation(graph, resolved, DEFAULT_MAX_DEPTH), typeIndex, target);
}

/** Facts of one slot: a Set while small, a byte per graph node once large (walks reaching 100k hosts). */
const BITMAP_AFTER = 512;

class SlotFacts {
  readonly nodes: number[] = [];
  private set: Set<number> | undefined = new Set();
  private bits: Uint8Array | undefined;

  constructor(private readonly nodeCount: number) {}

  /** Adds the node; false if it was present. */
  add(node: number): boolean {
    const { bits } = this;
    if (bits) {
      if (bits[node] === 1) return false;
      bits[node] = 1;
    } else {
      const set = this.set!;
      if (set.has(node)) return false;
      set.add(node);
      if (set.size > BITMAP_AFTER) {
        const fresh = new Uint8Array(this.nodeCount);
        for (const n of set) fresh[n] = 1;
        this.bits = fresh;
        this.set = undefined;
      }
    }
    this.nodes.push(node);
    return true;
  }

  has(node: number): boolean {
    return this.bits ? this.bits[node] === 1 : this.set!.has(node);
  }
}

/**
 * The reverse walk itself; `evaluation` (bound to the subject) verifies intersections and exclusions.
 * Returns the distinct nodes of `typeIndex` holding `target`, in discovery order.
 */
export function reverseWalk(evaluation: Evaluation, typeIndex: number, target: number): number[] {
  const { graph, subject: resolved } = evaluation;
  const index = reverseIndexOf(graph.model);
  const triggers = index.triggersFor(target);
  const nodeCount = graph.nodeType.length;
  const facts = new Map<number, SlotFacts>();
  const queueNode: number[] = [];
  const queueSlot: number[] = [];

  const factsOf = (slot: number): SlotFacts => {
    let f = facts.get(slot);
    if (!f) facts.set(slot, (f = new SlotFacts(nodeCount)));
    return f;
  };
  const addFact = (node: number, slot: number, into: SlotFacts): void => {
    // Facts that trigger nothing (the target's own objects, usually) are recorded, never queued.
    if (into.add(node) && triggers[slot]!.length > 0) {
      queueNode.push(node);
      queueSlot.push(slot);
    }
  };

  // Seeds: stored relations that name the subject directly or through the wildcard of its type.
  const seedCodes: number[] = [];
  if (resolved.code !== NOT_FOUND) seedCodes.push(resolved.code);
  if (resolved.wildcardNode >= 0) seedCodes.push(resolved.wildcardNode);
  for (const slot of index.relevantStored(target)) {
    for (const code of seedCodes) {
      const resources = graph.reverse[slot]!.get(code);
      if (resources) for (const resource of resources) addFact(resource, slot, factsOf(slot));
    }
  }
  if (resolved.relationSlot >= 0 && resolved.node >= 0 && index.relevantTo(target)[resolved.relationSlot]) {
    addFact(resolved.node, resolved.relationSlot, factsOf(resolved.relationSlot));
  }

  for (let head = 0; head < queueNode.length; head++) {
    const node = queueNode[head]!;
    const slot = queueSlot[head]!;
    for (const t of triggers[slot]!) {
      if (t.kind === "same") {
        const out = factsOf(t.perm);
        if (!out.has(node) && (!t.verify || evaluation.evalSlot(node, t.perm, 0))) addFact(node, t.perm, out);
      } else if (t.kind === "arrow") {
        const reverse = graph.reverse[t.via]!;
        const out = factsOf(t.perm);
        const perm = t.perm;
        const resources = reverse.get(node);
        if (resources) {
          if (t.verify) {
            for (const resource of resources) if (!out.has(resource) && evaluation.evalSlot(resource, perm, 0)) addFact(resource, perm, out);
          } else {
            for (const resource of resources) addFact(resource, perm, out);
          }
        }
        if (t.viaAllowsSets) {
          for (const code of graph.usersetCodesOf(node)) {
            for (const resource of reverse.get(code) ?? []) if (!out.has(resource) && (!t.verify || evaluation.evalSlot(resource, perm, 0))) addFact(resource, perm, out);
          }
        }
      } else {
        const code = graph.usersetCode(node, slot);
        if (code !== NOT_FOUND) {
          const resources = graph.reverse[t.rel]!.get(code);
          if (resources) {
            const out = factsOf(t.rel);
            for (const resource of resources) addFact(resource, t.rel, out);
          }
        }
      }
    }
  }
  const result: number[] = [];
  const found = facts.get(target);
  if (found) for (const n of found.nodes) if (graph.nodeType[n] === typeIndex) result.push(n);
  // A subject set holds itself (group:g#member on group:g#member).
  if (resolved.relationSlot === target && resolved.typeIndex === typeIndex && resolved.node >= 0 && !found?.has(resolved.node)) result.push(resolved.node);
  return result;
}

/** Per graph and type: nodes sorted by id and each node's rank, rebuilt when objects of the type are added. */
interface SortedType {
  count: number;
  /** Ids in sorted order. */
  ids: string[];
  /** node → rank in `ids` (or -1 for nodes of other types). */
  rank: Int32Array;
}
const sortedTypes = new WeakMap<RelationshipGraph, Map<number, SortedType>>();
/** Results at least this large are ordered through the per-type rank instead of a string sort. */
const RANK_SORT_FROM = 2_000;

function sortedIds(graph: RelationshipGraph, typeIndex: number, nodes: number[]): string[] {
  if (nodes.length < RANK_SORT_FROM) return nodes.map((n) => graph.nodeId[n]!).sort();
  let byType = sortedTypes.get(graph);
  if (!byType) sortedTypes.set(graph, (byType = new Map()));
  let sorted = byType.get(typeIndex);
  const count = graph.objectCount(typeIndex);
  if (!sorted || sorted.count !== count) {
    const ofType = graph.nodesOfType(typeIndex);
    const ids = ofType.map((n) => graph.nodeId[n]!);
    const order = ofType.map((_, i) => i).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
    const rank = new Int32Array(graph.nodeType.length).fill(-1);
    order.forEach((i, r) => (rank[ofType[i]!] = r));
    sorted = { count, ids: order.map((i) => ids[i]!), rank };
    byType.set(typeIndex, sorted);
  }
  const marks = new Uint8Array(count);
  for (const n of nodes) marks[sorted.rank[n]!] = 1;
  const out: string[] = [];
  for (let r = 0; r < count; r++) if (marks[r] === 1) out.push(sorted.ids[r]!);
  return out;
}

/** Sorted ids of the objects of `resourceType` on which `subject` holds `permission`. */
export function lookupResources(graph: RelationshipGraph, resourceType: string, permission: string, subject: SubjectRef): string[] {
  const typeIndex = resolveType(graph, resourceType);
  return sortedIds(graph, typeIndex, lookupNodes(graph, resourceType, permission, subject));
}
