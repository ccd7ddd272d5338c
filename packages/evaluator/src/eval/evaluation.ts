// Check evaluation for one subject. Results of (node, slot) are memoised for the lifetime of the
// Evaluation (one request), which makes repeated sub-problems (intersections over deep workspace
// trees, lookups that verify many candidates) cheap; re-entering a (node, slot) still in progress
// is a cycle and, like exceeding the depth limit, a typed error rather than a false.
import { EvaluationError } from "../errors.js";
import type { RelationshipGraph } from "../graph/relationship-graph.js";
import type { Op } from "../model/model.js";
import { reverseWalk } from "./lookup-resources.js";
import { reverseIndexOf, type ReverseIndex } from "./reverse-index.js";
import type { ResolvedSubject } from "./subject.js";

export const DEFAULT_MAX_DEPTH = 50;

const IN_PROGRESS = 0;
const FALSE = 1;
const TRUE = 2;

/** Arrows with more tuples than this try the anchored path (see `arrow`). */
const ANCHOR_MIN_TUPLES = 16;

export class Evaluation {
  private readonly memo = new Map<number, number>();
  private readonly slotCount: number;
  private readonly index: ReverseIndex;
  /** anchor slot → nodes where the subject holds it (computed on first use). */
  private readonly anchored = new Map<number, Set<number>>();

  constructor(
    readonly graph: RelationshipGraph,
    readonly subject: ResolvedSubject,
    readonly maxDepth: number = DEFAULT_MAX_DEPTH,
  ) {
    this.slotCount = graph.model.slotCount;
    this.index = reverseIndexOf(graph.model);
  }

  /** Does `subject` hold `slot` (a relation or permission) on `node`? */
  evalSlot(node: number, slot: number, depth: number): boolean {
    const { subject } = this;
    // A subject set is always a member of itself (SpiceDB answers group:g#member ∈ group:g#member).
    if (slot === subject.relationSlot && node === subject.node) return true;
    if (depth > this.maxDepth) this.depthExceeded(node, slot);
    const s = this.graph.model.slots[slot]!;
    // Relations without subject sets are leaves: two index probes, cheaper than a memo entry.
    if (s.stored && !this.graph.forwardSets[slot]) return this.direct(node, slot, depth);
    const key = node * this.slotCount + slot;
    const state = this.memo.get(key);
    if (state !== undefined) {
      if (state === IN_PROGRESS) this.cycle(node, slot);
      return state === TRUE;
    }
    this.memo.set(key, IN_PROGRESS);
    const result = s.stored ? this.direct(node, slot, depth) : this.evalOp(s.op!, node, depth);
    this.memo.set(key, result ? TRUE : FALSE);
    return result;
  }

  evalOp(op: Op, node: number, depth: number): boolean {
    switch (op.k) {
      case "slot":
        return this.evalSlot(node, op.slot, depth + 1);
      case "arrow":
        return this.arrow(op, node, depth);
      case "union":
        for (const child of op.ops) if (this.evalOp(child, node, depth)) return true;
        return false;
      case "intersection":
        for (const child of op.ops) if (!this.evalOp(child, node, depth)) return false;
        return true;
      case "exclusion":
        return this.evalOp(op.left, node, depth) && !this.evalOp(op.right, node, depth);
      case "nil":
        return false;
    }
  }

  private direct(node: number, slot: number, depth: number): boolean {
    const { graph, subject } = this;
    const forward = graph.forward[slot]!;
    if (forward.has(node, subject.code)) return true;
    // `T:*` matches any subject of type T, subject sets of T included (SpiceDB v1.54).
    if (subject.wildcardNode >= 0 && forward.has(node, subject.wildcardNode)) return true;
    const sets = graph.forwardSets[slot]?.get(node);
    if (sets) {
      for (const code of sets) {
        const u = -code - 1;
        if (this.evalSlot(graph.usersetNode[u]!, graph.usersetSlot[u]!, depth + 1)) return true;
      }
    }
    return false;
  }

  private arrow(op: Extract<Op, { k: "arrow" }>, node: number, depth: number): boolean {
    const { graph } = this;
    const forward = graph.forward[op.tupleset]!;
    const targets = forward.get(node);
    if (!targets) return false;
    if (targets.length > ANCHOR_MIN_TUPLES) {
      const anchored = this.anchoredTargets(op, graph.nodeType[targets[0]! >= 0 ? targets[0]! : graph.usersetNode[-targets[0]! - 1]!]!);
      // Every target where the permission holds lies in the anchor set, so walk the smaller side.
      if (anchored) {
        const slot = anchored.slot;
        if (anchored.nodes.size < targets.length) {
          for (const target of anchored.nodes) if (forward.has(node, target) && this.evalSlot(target, slot, depth + 1)) return true;
        } else {
          for (const target of targets) if (anchored.nodes.has(target) && this.evalSlot(target, slot, depth + 1)) return true;
        }
        return false;
      }
    }
    for (const code of targets) {
      // An arrow walks to the object of each tuple; a subject set's relation is ignored.
      const target = code >= 0 ? code : graph.usersetNode[-code - 1]!;
      const slot = op.targetByType[graph.nodeType[target]!]!;
      if (slot >= 0 && this.evalSlot(target, slot, depth + 1)) return true;
    }
    return false;
  }

  /**
   * When an arrow's targets all have one type and its target permission is `anchor & ...`, the set
   * of nodes where the subject holds `anchor` (found by a reverse walk) bounds the targets to try.
   */
  private anchoredTargets(op: Extract<Op, { k: "arrow" }>, typeIndex: number): { slot: number; nodes: Set<number> } | undefined {
    const { graph } = this;
    const tupleset = graph.model.slots[op.tupleset]!;
    if (tupleset.allowed.length !== 1 || tupleset.allowed[0]!.relation !== undefined) return undefined;
    const slot = op.targetByType[typeIndex]!;
    const anchor = slot >= 0 ? this.index.anchorOf[slot]! : -1;
    if (anchor < 0) return undefined;
    let nodes = this.anchored.get(anchor);
    if (!nodes) this.anchored.set(anchor, (nodes = reverseWalk(this, typeIndex, anchor)));
    return { slot, nodes };
  }

  private depthExceeded(node: number, slot: number): never {
    throw new EvaluationError("max-depth-exceeded", `max depth ${this.maxDepth} exceeded at ${this.describe(node, slot)}`);
  }

  private cycle(node: number, slot: number): never {
    throw new EvaluationError("max-depth-exceeded", `max depth exceeded: cycle through ${this.describe(node, slot)}`);
  }

  describe(node: number, slot: number): string {
    const { graph } = this;
    return `${graph.model.typeNames[graph.nodeType[node]!]}:${graph.nodeId[node]}#${graph.model.slots[slot]!.name}`;
  }
}
