// SpiceDB's LookupResources re-dispatches every (object, relation) it finds from the subject, one
// depth level per step, and remembers nothing across levels: on a data cycle it recurses until
// the depth runs out, and a chain as long as the limit fails the same way, even where Check
// answers. This guard walks the same steps (the reverse walk's triggers; a step into `&` or `-`
// only where it holds, as SpiceDB's verified entrypoints) and throws SpiceDB's error in those
// cases, so lookupResources answers exactly when SpiceDB does. Facts that trigger nothing are
// reported by SpiceDB, not dispatched, so they cost no level.
import { EvaluationError } from "../errors.js";
import { NOT_FOUND } from "../graph/relationship-graph.js";
import { reverseIndexOf } from "./reverse-index.js";
import type { WalkEvaluation } from "./reverse-walk.js";

const ON_PATH = -1;

/**
 * Throws `max-depth-exceeded` if SpiceDB's reverse dispatch from `subject` towards `target` meets
 * a cycle or a dispatch at level `maxDepth` (the subject's own request is level 0).
 */
export function guardDispatchDepth(evaluation: WalkEvaluation, target: number, maxDepth: number): void {
  const { graph, subject } = evaluation;
  const index = reverseIndexOf(graph.model);
  const triggers = index.triggersFor(target);
  const slotCount = graph.model.slotCount;
  /** (node, slot) → longest chain of dispatches below it, or ON_PATH while being explored. */
  const height = new Map<number, number>();
  const fail = (node: number, slot: number, why: string): never => {
    const name = `${graph.model.typeNames[graph.nodeType[node]!]}:${graph.nodeId[node]}#${graph.model.slots[slot]!.name}`;
    throw new EvaluationError("max-depth-exceeded", `max depth ${maxDepth} exceeded: ${why} at ${name}`);
  };

  /** Dispatches (node, slot) at `level`; returns the levels it adds below itself. */
  const visit = (node: number, slot: number, level: number): number => {
    if (level >= maxDepth) fail(node, slot, "dispatch chain");
    const key = node * slotCount + slot;
    const known = height.get(key);
    if (known === ON_PATH) fail(node, slot, "cycle");
    if (known !== undefined) {
      if (level + known >= maxDepth) fail(node, slot, "dispatch chain");
      return known;
    }
    height.set(key, ON_PATH);
    let below = 0;
    const next = (n: number, s: number, verify: boolean): void => {
      if (triggers[s]!.length > 0 && (!verify || evaluation.evalSlot(n, s, 0))) below = Math.max(below, 1 + visit(n, s, level + 1));
    };
    for (const t of triggers[slot]!) {
      if (t.kind === "same") next(node, t.perm, t.verify);
      else if (t.kind === "arrow") {
        const reverse = graph.reverse[t.via]!;
        for (const r of reverse.get(node) ?? []) next(r, t.perm, t.verify);
        if (t.viaAllowsSets) for (const code of graph.usersetCodesOf(node)) for (const r of reverse.get(code) ?? []) next(r, t.perm, t.verify);
      } else {
        const code = graph.usersetCode(node, slot);
        if (code !== NOT_FOUND) for (const r of graph.reverse[t.rel]!.get(code) ?? []) next(r, t.rel, false);
      }
    }
    height.set(key, below);
    return below;
  };

  // Level 1: the stored relations naming the subject (or its type's wildcard); a subject set is itself level 0.
  for (const slot of index.relevantStored(target)) {
    if (triggers[slot]!.length === 0) continue;
    const reverse = graph.reverse[slot]!;
    if (subject.code !== NOT_FOUND) for (const r of reverse.get(subject.code) ?? []) visit(r, slot, 1);
    if (subject.wildcardNode >= 0) for (const r of reverse.get(subject.wildcardNode) ?? []) visit(r, slot, 1);
  }
  if (subject.relationSlot >= 0 && subject.node >= 0 && index.relevantTo(target)[subject.relationSlot] && triggers[subject.relationSlot]!.length > 0) {
    visit(subject.node, subject.relationSlot, 0);
  }
}
