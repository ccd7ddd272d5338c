// SpiceDB's LookupResources re-dispatches every (object, relation) it finds from the subject, one
// depth level per step, and remembers nothing across levels: a chain as long as the limit fails,
// even where Check answers. This guard walks the same steps (the reverse walk's triggers; a step
// into `&` or `-` only where it holds, as SpiceDB's verified entrypoints) and throws SpiceDB's
// error there, so lookupResources refuses a chain exactly when SpiceDB does. On a data cycle
// SpiceDB recurses until the depth runs out; here a cycle adds no fact the walk does not already
// have, and the lookup answers the least fixed point, as Check does. Facts that trigger nothing are
// reported by SpiceDB, not dispatched, so they cost no level.
import { EvaluationError } from "../errors.js";
import { NOT_FOUND, type RelationshipGraph } from "../graph/relationship-graph.js";
import { reverseIndexOf, type ReverseIndex } from "./reverse-index.js";
import type { WalkEvaluation } from "./reverse-walk.js";

const ON_PATH = -1;

/** Per graph: the (subject, target) pairs that passed since the last write; bounded. */
const passed = new WeakMap<RelationshipGraph, { mutations: number; keys: Set<string> }>();
const MAX_PASSES = 50_000;

/**
 * Per target: for each slot, the most dispatch levels a fact of it can add below itself, from the
 * schema alone (Infinity when its triggers reach a cycle of slots). Data paths follow these edges,
 * so a fact whose bound keeps it under the limit needs no look at its data, and only slots on
 * recursive relations (workspace parents, nested groups) are walked.
 */
const bounds = new WeakMap<object, Map<number, Float64Array>>();
function boundsFor(index: ReverseIndex, slotCount: number, target: number): Float64Array {
  let byTarget = bounds.get(index);
  if (!byTarget) bounds.set(index, (byTarget = new Map()));
  let bound = byTarget.get(target);
  if (bound) return bound;
  const triggers = index.triggersFor(target);
  const out = new Float64Array(slotCount).fill(Number.NaN);
  const onPath = new Uint8Array(slotCount);
  const walk = (slot: number): number => {
    if (onPath[slot]) return Infinity;
    if (!Number.isNaN(out[slot]!)) return out[slot]!;
    onPath[slot] = 1;
    let most = 0;
    for (const t of triggers[slot]!) {
      const next = t.kind === "set" ? t.rel : t.perm;
      if (triggers[next]!.length > 0) most = Math.max(most, 1 + walk(next));
    }
    onPath[slot] = 0;
    out[slot] = most;
    return most;
  };
  for (let slot = 0; slot < slotCount; slot++) walk(slot);
  byTarget.set(target, (bound = out));
  return bound;
}

/**
 * Throws `max-depth-exceeded` if SpiceDB's reverse dispatch from `subject` towards `target` makes a
 * dispatch at level `maxDepth` along a path without a cycle (the subject's own request is level 0).
 */
export function guardDispatchDepth(evaluation: WalkEvaluation, target: number, maxDepth: number): void {
  const { graph, subject } = evaluation;
  // A subject's pass holds until the next write (`mutations` counts every add or remove that changes the graph).
  let passes = passed.get(graph);
  if (!passes || passes.mutations !== graph.mutations) passed.set(graph, (passes = { mutations: graph.mutations, keys: new Set() }));
  // Keyed by node and relation, not by code: every subject set that appears in no relationship
  // shares the code NOT_FOUND, and one's pass must not stand for another's.
  const passKey = `${subject.typeIndex},${subject.node},${subject.relationSlot},${subject.wildcardNode},${target},${maxDepth}`;
  if (passes.keys.has(passKey)) return;
  const index = reverseIndexOf(graph.model);
  const triggers = index.triggersFor(target);
  const slotCount = graph.model.slotCount;
  const bound = boundsFor(index, slotCount, target);
  /** (node, slot) → the deepest level it was walked from without failing, or ON_PATH while being walked. */
  const walked = new Map<number, number>();
  const fail = (node: number, slot: number, why: string): never => {
    const name = `${graph.model.typeNames[graph.nodeType[node]!]}:${graph.idOf(node)}#${graph.model.slots[slot]!.name}`;
    throw new EvaluationError("max-depth-exceeded", `max depth ${maxDepth} exceeded: ${why} at ${name}`);
  };

  /** Dispatches (n, s) at `level` if its data could reach the limit (and, into `&` / `-`, if it holds). */
  const next = (n: number, s: number, verify: boolean, level: number): void => {
    if (level + bound[s]! < maxDepth || triggers[s]!.length === 0) return;
    if (!verify || evaluation.evalSlot(n, s, 0)) visit(n, s, level);
  };
  /** Dispatches (node, slot) at `level` and everything it leads to. */
  const visit = (node: number, slot: number, level: number): void => {
    if (level >= maxDepth) fail(node, slot, "dispatch chain");
    const key = node * slotCount + slot;
    const known = walked.get(key);
    // A cycle adds no fact the path does not already have (Check answers it as the least fixed point).
    if (known === ON_PATH) return;
    // Fine from a level at least as deep: fine from here (deeper again, it is walked again).
    if (known !== undefined && level <= known) return;
    walked.set(key, ON_PATH);
    const below = level + 1;
    for (const t of triggers[slot]!) {
      if (t.kind === "same") next(node, t.perm, t.verify, below);
      else if (t.kind === "arrow") {
        const reverse = graph.reverse[t.via]!;
        const resources = reverse.get(node);
        if (resources) for (const r of resources) next(r, t.perm, t.verify, below);
        if (t.viaAllowsSets) {
          for (const code of graph.usersetCodesOf(node)) {
            const viaSet = reverse.get(code);
            if (viaSet) for (const r of viaSet) next(r, t.perm, t.verify, below);
          }
        }
      } else {
        const code = graph.usersetCode(node, slot);
        const resources = code === NOT_FOUND ? undefined : graph.reverse[t.rel]!.get(code);
        if (resources) for (const r of resources) next(r, t.rel, false, below);
      }
    }
    walked.set(key, level);
  };
  const start = (node: number, slot: number, level: number): void => next(node, slot, false, level);

  // Level 1: the stored relations naming the subject (or its type's wildcard); a subject set is itself level 0.
  for (const slot of index.relevantStored(target)) {
    const reverse = graph.reverse[slot]!;
    if (subject.code !== NOT_FOUND) for (const r of reverse.get(subject.code) ?? []) start(r, slot, 1);
    if (subject.wildcardNode >= 0) for (const r of reverse.get(subject.wildcardNode) ?? []) start(r, slot, 1);
  }
  if (subject.relationSlot >= 0 && subject.node >= 0 && index.relevantTo(target)[subject.relationSlot]) {
    start(subject.node, subject.relationSlot, 0);
  }
  if (passes.keys.size < MAX_PASSES) passes.keys.add(passKey);
}
