// The reverse walk shared by lookupResources and the checker's anchor closures: facts (node, slot)
// known true are propagated backwards from the subject. It lives apart from both so that
// evaluation.ts and lookup-resources.ts do not import each other.
import type { Values } from "../graph/adjacency.js";
import { NOT_FOUND, type RelationshipGraph } from "../graph/relationship-graph.js";
import { reverseIndexOf, type Trigger } from "./reverse-index.js";
import type { ResolvedSubject } from "./subject.js";

/** What the walk needs of an Evaluation (bound to the subject): it verifies intersections and exclusions. */
export interface WalkEvaluation {
  readonly graph: RelationshipGraph;
  readonly subject: ResolvedSubject;
  evalSlot(node: number, slot: number, depth: number): boolean;
}

/** Facts of one slot: a scanned list while tiny, then a Set, then a byte per graph node once large (walks reaching 100k hosts). */
const SCAN_UP_TO = 16;
const BITMAP_AFTER = 512;

class SlotFacts {
  readonly nodes: number[] = [];
  private set: Set<number> | undefined;
  private bits: Uint8Array | undefined;

  constructor(private readonly nodeCount: number) {}

  /** Adds the node; false if it was present. */
  add(node: number): boolean {
    const { bits } = this;
    if (bits) {
      if (bits[node] === 1) return false;
      bits[node] = 1;
    } else if (this.set) {
      const set = this.set;
      if (set.has(node)) return false;
      set.add(node);
      if (set.size > BITMAP_AFTER) {
        const fresh = new Uint8Array(this.nodeCount);
        for (const n of set) fresh[n] = 1;
        this.bits = fresh;
        this.set = undefined;
      }
    } else {
      if (this.nodes.includes(node)) return false;
      if (this.nodes.length >= SCAN_UP_TO) this.set = new Set(this.nodes).add(node);
    }
    this.nodes.push(node);
    return true;
  }

  has(node: number): boolean {
    return this.bits ? this.bits[node] === 1 : this.set ? this.set.has(node) : this.nodes.includes(node);
  }
}

/**
 * The reverse walk itself; `evaluation` (bound to the subject) verifies intersections and exclusions.
 * Returns the distinct nodes of `typeIndex` holding `target`, in discovery order.
 */
export function reverseWalk(evaluation: WalkEvaluation, typeIndex: number, target: number): number[] {
  return new ReverseWalk(evaluation, target, false).run(typeIndex) as number[];
}

/**
 * The same nodes in no particular order, found for less: when the target triggers nothing (the
 * listed objects lead nowhere, as hosts), the objects an arrow reaches (every host of a workspace
 * holding the permission) are not recorded one by one as facts; their lists are kept whole and
 * copied, without repeats, into the answer at the end.
 */
export function reverseWalkUnordered(evaluation: WalkEvaluation, typeIndex: number, target: number): Int32Array | number[] {
  return new ReverseWalk(evaluation, target, true).run(typeIndex);
}

/** One walk's state (a class rather than closures: a subject's first check runs one of these). */
class ReverseWalk {
  private readonly graph: RelationshipGraph;
  private readonly triggers: Trigger[][];
  private readonly facts = new Map<number, SlotFacts>();
  private readonly queueNode: number[] = [];
  private readonly queueSlot: number[] = [];
  /** The slot whose arrow-reached objects are kept as whole lists (`leaves`), or -1. */
  private readonly leafSlot: number;
  private readonly leaves: Values[] = [];

  constructor(
    private readonly evaluation: WalkEvaluation,
    private readonly target: number,
    deferLeaves: boolean,
  ) {
    this.graph = evaluation.graph;
    this.triggers = reverseIndexOf(this.graph.model).triggersFor(target);
    this.leafSlot = deferLeaves && this.triggers[target]!.length === 0 ? target : -1;
  }

  private factsOf(slot: number): SlotFacts {
    let f = this.facts.get(slot);
    if (!f) this.facts.set(slot, (f = new SlotFacts(this.graph.nodeType.length)));
    return f;
  }

  private addFact(node: number, slot: number, into: SlotFacts): void {
    // Facts that trigger nothing (the target's own objects, usually) are recorded, never queued.
    if (into.add(node) && this.triggers[slot]!.length > 0) {
      this.queueNode.push(node);
      this.queueSlot.push(slot);
    }
  }

  run(typeIndex: number): number[] | Int32Array {
    const { evaluation, graph, target, triggers, queueNode, queueSlot } = this;
    const resolved = evaluation.subject;
    const index = reverseIndexOf(graph.model);
    // Seeds: stored relations that name the subject directly or through the wildcard of its type.
    for (const slot of index.relevantStored(target)) {
      const reverse = graph.reverse[slot]!;
      if (resolved.code !== NOT_FOUND) {
        const resources = reverse.get(resolved.code);
        if (resources) {
          const out = this.factsOf(slot);
          for (const resource of resources) this.addFact(resource, slot, out);
        }
      }
      if (resolved.wildcardNode >= 0) {
        const resources = reverse.get(resolved.wildcardNode);
        if (resources) {
          const out = this.factsOf(slot);
          for (const resource of resources) this.addFact(resource, slot, out);
        }
      }
    }
    if (resolved.relationSlot >= 0 && resolved.node >= 0 && index.relevantTo(target)[resolved.relationSlot]) {
      this.addFact(resolved.node, resolved.relationSlot, this.factsOf(resolved.relationSlot));
    }

    for (let head = 0; head < queueNode.length; head++) {
      const node = queueNode[head]!;
      const slot = queueSlot[head]!;
      for (const t of triggers[slot]!) {
        if (t.kind === "same") {
          const out = this.factsOf(t.perm);
          if (!out.has(node) && (!t.verify || evaluation.evalSlot(node, t.perm, 0))) this.addFact(node, t.perm, out);
        } else if (t.kind === "arrow") {
          const reverse = graph.reverse[t.via]!;
          const out = this.factsOf(t.perm);
          const perm = t.perm;
          const resources = reverse.get(node);
          if (resources) {
            if (t.verify) {
              for (const resource of resources) if (!out.has(resource) && evaluation.evalSlot(resource, perm, 0)) this.addFact(resource, perm, out);
            } else if (perm === this.leafSlot) {
              this.leaves.push(resources);
            } else {
              for (const resource of resources) this.addFact(resource, perm, out);
            }
          }
          if (t.viaAllowsSets) {
            for (const code of graph.usersetCodesOf(node)) {
              for (const resource of reverse.get(code) ?? []) if (!out.has(resource) && (!t.verify || evaluation.evalSlot(resource, perm, 0))) this.addFact(resource, perm, out);
            }
          }
        } else {
          const code = graph.usersetCode(node, slot);
          if (code !== NOT_FOUND) {
            const resources = graph.reverse[t.rel]!.get(code);
            if (resources) {
              const out = this.factsOf(t.rel);
              for (const resource of resources) this.addFact(resource, t.rel, out);
            }
          }
        }
      }
    }
    const result: number[] = [];
    const found = this.facts.get(target);
    if (found) for (const n of found.nodes) if (graph.nodeType[n] === typeIndex) result.push(n);
    // A subject set holds itself (group:g#member on group:g#member).
    if (resolved.relationSlot === target && resolved.typeIndex === typeIndex && resolved.node >= 0 && !found?.has(resolved.node)) result.push(resolved.node);
    return this.leaves.length === 0 ? result : this.withLeaves(result, typeIndex);
  }

  /** `result` and the deferred lists, each node once. */
  private withLeaves(result: number[], typeIndex: number): Int32Array {
    const { leaves } = this;
    const nodeType = this.graph.nodeType;
    let total = result.length;
    for (const list of leaves) total += list.length;
    const out = new Int32Array(total);
    const seen = new Uint8Array(nodeType.length);
    let k = 0;
    for (const n of result) {
      seen[n] = 1;
      out[k++] = n;
    }
    for (const list of leaves) {
      for (let i = 0; i < list.length; i++) {
        const n = list[i]!;
        if (seen[n] === 0 && nodeType[n] === typeIndex) {
          seen[n] = 1;
          out[k++] = n;
        }
      }
    }
    return k === total ? out : out.slice(0, k);
  }
}
