// Check evaluation for one subject. Results of (node, slot) are memoised for the lifetime of the
// Evaluation (one request), which makes repeated sub-problems (intersections over deep workspace
// trees, lookups that verify many candidates) cheap. On cyclic data the answer is the least fixed
// point (what a finite derivation proves): re-entering a (node, slot) still in progress reads false
// provisionally, Tarjan-style, and the answers that read it are settled once their cycle's first
// entry completes. Only a cycle through a subtracted operand that the answer depends on, and
// exceeding the depth limit, are typed errors.
import { EvaluationError } from "../errors.js";
import { NOT_FOUND, type RelationshipGraph } from "../graph/relationship-graph.js";
import { AnchorClosure, closureCacheOf, sortedHas } from "./closure-cache.js";
import type { Op, Slot } from "../model/model.js";
import { acquireMemo, releaseMemo, type Memo } from "./memo.js";
import { reverseWalk } from "./reverse-walk.js";
import { reverseIndexOf, type ReverseIndex } from "./reverse-index.js";
import type { ResolvedSubject } from "./subject.js";

export const DEFAULT_MAX_DEPTH = 50;

/** Per graph: which slots are leaves (stored relations that allow no subject sets); fixed at construction. */
const leaves = new WeakMap<RelationshipGraph, Uint8Array>();
function leafSlotsOf(graph: RelationshipGraph): Uint8Array {
  let leaf = leaves.get(graph);
  if (!leaf) {
    leaf = Uint8Array.from(graph.model.slots, (s, slot) => (s.stored && !graph.forwardSets[slot] ? 1 : 0));
    leaves.set(graph, leaf);
  }
  return leaf;
}

/** Being evaluated; above the state, the entry's serial (the order entries were entered in). */
const IN_PROGRESS = 0;
const FALSE = 1;
const TRUE = 2;
/**
 * Not an answer, evaluated again if reached again: evaluation failed below this entry (a cycle
 * through a subtracted operand, or the depth limit), or it read false from an entry in progress
 * that later turned out true.
 */
const UNDECIDED = 3;
/**
 * Evaluation ran out of depth below this entry and met no cycle: reached again at that depth or
 * deeper it runs out again (less room, the same branches), so it fails at once instead; reached
 * with more room it is evaluated again.
 */
const OUT_OF_DEPTH = 4;
/**
 * False while an entry it depends on (its cycle's first entry, still in progress) is assumed
 * false; above the state, its serial. Settled when that entry completes: false if nothing in the
 * cycle turned out true, else undecided.
 */
const PROVISIONAL = 5;

/**
 * A memo entry is a state in the low bits and, for TRUE / FALSE / OUT_OF_DEPTH, the depth it was
 * reached at above them; for IN_PROGRESS / PROVISIONAL, its serial.
 */
const STATE_MASK = 7;
const DEPTH_SHIFT = 3;
/** `low` when nothing read depends on an entry in progress. */
const NO_CYCLE = 0x0fffffff;

/** Re-evaluations of undecided entries allowed per request before giving up with the depth error. */
const UNDECIDED_BUDGET = 10_000;

/**
 * Depth overflows and cycles through a subtracted operand are "undecided" (SpiceDB's max-depth
 * error): a union holding a true branch is true and an intersection holding a false branch is false
 * whatever the undecided branches would give; otherwise the error stands. An exclusion is false
 * once its base is false or its subtracted side true.
 */
function isUndecided(error: unknown): error is EvaluationError {
  return error instanceof EvaluationError && error.code === "max-depth-exceeded";
}

/** `arrow`: the target slot depends on each object's type. */
const BY_TYPE = -2;

/** Arrows with more tuples than this try the anchored path (see `arrow`). */
const ANCHOR_MIN_TUPLES = 1;

export class Evaluation {
  /** This request's memo: the subject's results table (`check`), else acquired from the pool on first use. */
  private memo: Memo | undefined;
  /** The pooled memo, kept across `restart`s while another table stands in for it. */
  private own: Memo | undefined;
  private readonly slotCount: number;
  private readonly index: ReverseIndex;
  private readonly slots: readonly Slot[];
  /** Per slot: a stored relation without subject sets (a leaf: two index probes, no memo entry). */
  private readonly leaf: Uint8Array;
  /** anchor slot → nodes where the subject holds it (computed on first use); the last one inline. */
  private lastAnchor = -1;
  private lastClosure: AnchorClosure | undefined;
  /** The one before (a check usually needs one or two anchors; a Map only beyond that). */
  private otherAnchor = -1;
  private otherClosure: AnchorClosure | undefined;
  private anchored: Map<number, AnchorClosure> | undefined;
  private undecidedRetries = 0;
  /** Cycles through a subtracted operand met so far: an entry that failed without meeting one failed for depth alone. */
  private cycles = 0;
  /** Serial of the last memo entry entered (the order of entry, as Tarjan's index). */
  private serial = 0;
  /**
   * The lowest serial of an entry in progress (or provisional) that what was read since the
   * enclosing entry started depends on; NO_CYCLE when none (the usual, acyclic case).
   */
  private low = NO_CYCLE;
  /**
   * Provisional entries awaiting their cycle's first entry: serial, node, slot, depth for each, in
   * the order they completed, so those below an entry are the ones past its serial at the end.
   */
  private readonly provisional: number[] = [];
  /**
   * The highest serial of an entry that turned out true while depending on an entry in progress
   * (provisional answers below it are void): one below an entry has a serial above the entry's.
   */
  private trueInCycle = 0;

  constructor(
    readonly graph: RelationshipGraph,
    public subject: ResolvedSubject,
    public maxDepth: number = DEFAULT_MAX_DEPTH,
  ) {
    this.slotCount = graph.model.slotCount;
    this.index = reverseIndexOf(graph.model);
    this.slots = graph.model.slots;
    this.leaf = leafSlotsOf(graph);
  }

  /**
   * Starts another request on this evaluation (`check` keeps one per graph instead of building one
   * per call): everything of the previous request is forgotten. `memo`: a table that outlives the
   * request (the subject's completed results), used as it is; otherwise the evaluation's own,
   * cleared.
   */
  restart(subject: ResolvedSubject, maxDepth: number, memo: Memo | undefined): void {
    this.subject = subject;
    this.maxDepth = maxDepth;
    if (memo !== undefined) this.memo = memo;
    else {
      this.memo = this.own;
      this.own?.clear();
    }
    this.lastAnchor = -1;
    this.lastClosure = undefined;
    this.otherAnchor = -1;
    this.otherClosure = undefined;
    this.anchored = undefined;
    this.undecidedRetries = 0;
    this.cycles = 0;
    this.serial = 0;
    this.low = NO_CYCLE;
    this.provisional.length = 0;
    this.trueInCycle = 0;
  }

  /**
   * Hands the memo back to the pool; the evaluation must not be used afterwards. Optional (an
   * unreleased memo is simply garbage collected); `check` reuses its own.
   */
  release(): void {
    if (this.own) releaseMemo(this.own);
    this.own = this.memo = undefined;
  }

  /** Does `subject` hold `slot` (a relation or permission) on `node`? */
  evalSlot(node: number, slot: number, depth: number): boolean {
    const { subject } = this;
    // A subject set is always a member of itself (SpiceDB answers group:g#member ∈ group:g#member).
    if (slot === subject.relationSlot && node === subject.node) return true;
    // SpiceDB fails a dispatch made with no depth remaining: the root has `maxDepth`, so depth `maxDepth` fails.
    if (depth >= this.maxDepth) this.depthExceeded(node, slot);
    const s = this.slots[slot]!;
    if (s.stored) {
      // A direct or wildcard tuple answers at any depth below the limit, before the memo: the
      // evaluation of a stored relation returns at once on one, so such an entry is never in
      // progress, undecided or out of depth. Relations without subject sets (leaves) end here.
      if (this.hasTuple(node, slot)) return true;
      if (this.leaf[slot] === 1) return false;
    } else if (s.op!.k === "slot" && this.graph.nodeType[node] !== subject.typeIndex) {
      // A permission that only names another (`view = member`) is an alias in SpiceDB's check: no
      // dispatch, no depth, and no memo entry of its own (the named slot's entry stands for it).
      // Not when the subject is of the resource's type (a set of that very permission, another
      // relation's set, or a plain object of that type): SpiceDB's dispatcher then dispatches the
      // alias (the same resource and subject must pass), which costs a level.
      return this.evalSlot(node, s.op!.slot, depth);
    }
    const memo = this.memo ?? (this.memo = this.own = acquireMemo());
    // Counted only for entries evaluated (not for answers found), so it stays far below 2^28.
    const serial = this.serial + 1;
    // One probe finds the entry or marks it in progress; its position takes the result without another.
    const position = memo.claim(node, slot, IN_PROGRESS | (serial << DEPTH_SHIFT));
    const layout = memo.layout;
    const entry = memo.found;
    if (entry >= 0) {
      const state = entry & STATE_MASK;
      if (state === IN_PROGRESS || state === PROVISIONAL) {
        // A cycle: read false for now; whoever reads it depends on that entry's outcome.
        const at = entry >>> DEPTH_SHIFT;
        if (at < this.low) this.low = at;
        return false;
      }
      // A result holds at the depth it was reached and above; deeper, SpiceDB (which counts depth on
      // every path) may run out of depth below it, so it is evaluated again there. Likewise an entry
      // that ran out of depth fails at once at its depth or deeper, and is tried again with more room.
      if (state === OUT_OF_DEPTH || state === UNDECIDED) {
        if (state === OUT_OF_DEPTH && depth >= entry >>> DEPTH_SHIFT) this.depthExceeded(node, slot);
        if (++this.undecidedRetries > UNDECIDED_BUDGET) {
          this.cycles++;
          this.depthExceeded(node, slot);
        }
      } else if (depth <= entry >>> DEPTH_SHIFT) return state === TRUE;
      memo.update(position, layout, node, slot, IN_PROGRESS | (serial << DEPTH_SHIFT));
    }
    this.serial = serial;
    const cycles = this.cycles;
    const outerLow = this.low;
    this.low = NO_CYCLE;
    let result: boolean;
    try {
      result = s.stored ? this.viaSets(node, slot, depth) : this.evalOp(s.op!, node, depth);
    } catch (error) {
      // What was assumed below is void: the provisional answers there are evaluated again if reached.
      this.settleProvisional(serial, true);
      memo.set(node, slot, this.cycles === cycles ? OUT_OF_DEPTH | (depth << DEPTH_SHIFT) : UNDECIDED);
      if (outerLow < this.low) this.low = outerLow;
      throw error;
    }
    const low = this.low;
    if (low >= serial) {
      // Depends on no entry entered before this one: an answer. The answers below that assumed this
      // entry false hold if nothing in the cycle turned out true.
      if (this.provisional.length !== 0) this.settleProvisional(serial, result || this.trueInCycle > serial);
      // (Settling rewrites existing entries only: the position still stands.)
      memo.update(position, layout, node, slot, (result ? TRUE : FALSE) | (depth << DEPTH_SHIFT));
      this.low = outerLow;
    } else if (result) {
      // A true answer is proved (the operators are monotone apart from exclusion, which refuses
      // to assume): it stands, but false answers below that assumed otherwise do not.
      if (serial > this.trueInCycle) this.trueInCycle = serial;
      memo.update(position, layout, node, slot, TRUE | (depth << DEPTH_SHIFT));
      this.low = outerLow;
    } else {
      memo.update(position, layout, node, slot, PROVISIONAL | (serial << DEPTH_SHIFT));
      this.provisional.push(serial, node, slot, depth);
      this.low = Math.min(outerLow, low);
    }
    return result;
  }

  /**
   * Settles the provisional answers below the entry `serial`: false once their cycle's first entry is
   * false and nothing in between turned out true, else (`again`) evaluated again if reached.
   */
  private settleProvisional(serial: number, again: boolean): void {
    const { provisional } = this;
    const memo = this.memo!;
    let end = provisional.length;
    while (end > 0 && provisional[end - 4]! > serial) {
      end -= 4;
      memo.set(provisional[end + 1]!, provisional[end + 2]!, again ? UNDECIDED : FALSE | (provisional[end + 3]! << DEPTH_SHIFT));
    }
    provisional.length = end;
  }

  /**
   * The slow path of a union-like (`stopOn` true) or intersection-like (`stopOn` false) loop whose
   * fast path threw: every branch again, each on its own, undecided ones set aside. Branches already
   * decided are memo hits; the hot path stays a plain loop inside one try block.
   */
  private settle(error: unknown, count: number, run: (i: number) => boolean, stopOn: boolean): boolean {
    if (!isUndecided(error)) throw error;
    for (let i = 0; i < count; i++) {
      try {
        if (run(i) === stopOn) return stopOn;
      } catch (again) {
        if (!isUndecided(again)) throw again;
      }
    }
    throw error;
  }

  evalOp(op: Op, node: number, depth: number): boolean {
    switch (op.k) {
      case "slot":
        return this.evalSlot(node, op.slot, depth + 1);
      case "arrow":
        return this.arrow(op, node, depth);
      case "union":
        try {
          for (const child of op.ops) if (this.evalOp(child, node, depth)) return true;
          return false;
        } catch (error) {
          return this.settle(error, op.ops.length, (i) => this.evalOp(op.ops[i]!, node, depth), true);
        }
      case "intersection":
        return this.intersection(op.ops, node, depth);
      case "exclusion":
        return this.exclusion(op, node, depth);
      case "nil":
        return false;
    }
  }

  /**
   * False as soon as an operand is false without assuming anything about an entry in progress; an
   * operand false only for now (on a cycle) does not stop the others, one of which may decide.
   */
  private intersection(ops: readonly Op[], node: number, depth: number): boolean {
    const outerLow = this.low;
    this.low = NO_CYCLE;
    try {
      for (const child of ops) {
        if (!this.evalOp(child, node, depth)) {
          // Nothing read depended on an entry in progress: proved false (the usual, acyclic case).
          if (this.low === NO_CYCLE) {
            this.low = outerLow;
            return false;
          }
          return this.intersectionOnCycle(ops, node, depth, outerLow);
        }
      }
    } catch (error) {
      this.low = Math.min(outerLow, this.low);
      return this.settle(error, ops.length, (i) => this.evalOp(ops[i]!, node, depth), false);
    }
    this.low = Math.min(outerLow, this.low);
    return true;
  }

  /** An intersection met a cycle: each operand again (memo hits), on its own, for one proved false. */
  private intersectionOnCycle(ops: readonly Op[], node: number, depth: number, outerLow: number): boolean {
    let low = NO_CYCLE;
    let holdsAll = true;
    for (const child of ops) {
      this.low = NO_CYCLE;
      const holds = this.evalOp(child, node, depth);
      if (!holds && this.low === NO_CYCLE) {
        this.low = outerLow;
        return false;
      }
      if (!holds) holdsAll = false;
      low = Math.min(low, this.low);
    }
    // Otherwise false for now only (an operand rests on a cycle), or true.
    this.low = Math.min(outerLow, low);
    return holdsAll;
  }

  /**
   * False once the base is false or the subtracted side is true (each proved). A subtracted side
   * false only while an entry in progress is assumed false would make the answer rest on that
   * assumption the wrong way round (a cycle through exclusion: no least fixed point decides it), so
   * that is the depth error.
   */
  private exclusion(op: Extract<Op, { k: "exclusion" }>, node: number, depth: number): boolean {
    const outerLow = this.low;
    if (!this.evalOp(op.left, node, depth)) return false;
    // The base is proved true: what it read does not matter.
    this.low = NO_CYCLE;
    const subtracted = this.evalOp(op.right, node, depth);
    const low = this.low;
    this.low = outerLow;
    if (subtracted) return false;
    if (low !== NO_CYCLE) this.cycleThroughExclusion(node);
    return true;
  }

  /** A tuple of `slot` on `node` naming the subject or the wildcard of its type. */
  private hasTuple(node: number, slot: number): boolean {
    const { subject } = this;
    const forward = this.graph.forward[slot]!;
    // `T:*` matches any subject of type T, subject sets of T included (SpiceDB v1.54).
    return forward.has(node, subject.code) || (subject.wildcardNode >= 0 && forward.has(node, subject.wildcardNode));
  }

  /** A stored relation through its subject sets (its direct tuples are `hasTuple`). */
  private viaSets(node: number, slot: number, depth: number): boolean {
    const { graph } = this;
    const sets = graph.forwardSets[slot]?.get(node);
    if (sets) {
      try {
        for (const code of sets) {
          const u = -code - 1;
          if (this.evalSlot(graph.usersetNode[u]!, graph.usersetSlot[u]!, depth + 1)) return true;
        }
      } catch (error) {
        const all = [...sets];
        return this.settle(error, all.length, (i) => this.evalSlot(graph.usersetNode[-all[i]! - 1]!, graph.usersetSlot[-all[i]! - 1]!, depth + 1), true);
      }
    }
    return false;
  }

  private arrow(op: Extract<Op, { k: "arrow" }>, node: number, depth: number): boolean {
    const { graph } = this;
    const forward = graph.forward[op.tupleset]!;
    // The tuples of `node`: a range of the dense copy when it is current, else the adjacency's list.
    const dense = forward.dense();
    let targets: ArrayLike<number>;
    let from = 0;
    let to: number;
    if (dense) {
      const { offsets } = dense;
      if (node < 0 || node + 1 >= offsets.length) return false;
      from = offsets[node]!;
      to = offsets[node + 1]!;
      if (from === to) return false;
      targets = dense.targets;
    } else {
      const i = forward.range(node);
      if (i !== undefined) {
        // The key's base range (a sparse base, or a key the overlay does not hold), read without a copy.
        if (i < 0) return false;
        const offsets = forward.baseOffsets;
        from = offsets[i]!;
        to = offsets[i + 1]!;
        if (from === to) return false;
        targets = forward.baseTargets;
      } else {
        const list = forward.get(node);
        if (!list) return false;
        targets = list;
        to = list.length;
      }
    }
    const closure = this.anchoredTargets(op, to - from > ANCHOR_MIN_TUPLES);
    if (closure) {
      // Every target where the permission holds is one where the subject holds the anchor.
      const slot = op.targetByType[this.index.plainTypeOf[op.tupleset]!]!;
      const via = closure.viaIndex(graph, op.tupleset);
      if (via) {
        const hits = via.get(node);
        if (hits) {
          try {
            for (const target of hits) if (this.evalSlot(target, slot, depth + 1)) return true;
          } catch (error) {
            const all = [...hits];
            return this.settle(error, all.length, (i) => this.evalSlot(all[i]!, slot, depth + 1), true);
          }
        }
      } else {
        // Until the closure has been probed enough to pay for its index: each tuple's object, by binary search.
        try {
          for (let i = from; i < to; i++) {
            const target = targets[i]!;
            if (sortedHas(closure.nodes, target) && this.evalSlot(target, slot, depth + 1)) return true;
          }
        } catch (error) {
          return this.settle(error, to - from, (i) => sortedHas(closure.nodes, targets[from + i]!) && this.evalSlot(targets[from + i]!, slot, depth + 1), true);
        }
      }
      return false;
    }
    // A tupleset of plain objects of one type has one target slot: no read of each object's type
    // (at millions of nodes, a cache miss per tuple).
    const plainType = this.index.plainTypeOf[op.tupleset]!;
    const only = plainType >= 0 ? op.targetByType[plainType]! : BY_TYPE;
    if (only === -1) return false;
    try {
      for (let i = from; i < to; i++) {
        const code = targets[i]!;
        // An arrow walks to the object of each tuple; a subject set's relation is ignored.
        const target = code >= 0 ? code : graph.usersetNode[-code - 1]!;
        const slot = only !== BY_TYPE ? only : op.targetByType[graph.nodeType[target]!]!;
        if (slot >= 0 && this.evalSlot(target, slot, depth + 1)) return true;
      }
    } catch (error) {
      return this.settle(
        error,
        to - from,
        (i) => {
          const code = targets[from + i]!;
          const target = code >= 0 ? code : graph.usersetNode[-code - 1]!;
          const slot = only !== BY_TYPE ? only : op.targetByType[graph.nodeType[target]!]!;
          return slot >= 0 && this.evalSlot(target, slot, depth + 1);
        },
        true,
      );
    }
    return false;
  }

  /**
   * When an arrow's tupleset holds plain objects of one type and its target permission there is
   * `anchor & ...`, the nodes where the subject holds `anchor` (found by a reverse walk) bound the
   * targets to try. The closure is computed when `compute` (several tuples) and otherwise used only
   * if already known, from this request or from the graph's closure cache.
   */
  private anchoredTargets(op: Extract<Op, { k: "arrow" }>, compute: boolean): AnchorClosure | undefined {
    const typeIndex = this.index.plainTypeOf[op.tupleset]!;
    if (typeIndex < 0) return undefined;
    const slot = op.targetByType[typeIndex]!;
    const anchor = slot >= 0 ? this.index.anchorOf[slot]! : -1;
    // A subject set of the target permission holds it on its own object without the anchor.
    if (anchor < 0 || slot === this.subject.relationSlot) return undefined;
    if (anchor === this.lastAnchor) return this.lastClosure;
    let closure = anchor === this.otherAnchor ? this.otherClosure : this.anchored?.get(anchor);
    if (!closure) {
      const { graph } = this;
      const code = this.subject.code;
      // Shared across requests only for the default depth limit (the walk's verifications use it).
      const cache = code !== NOT_FOUND && this.maxDepth === DEFAULT_MAX_DEPTH ? closureCacheOf(graph) : undefined;
      closure = cache?.get(code, anchor);
      if (!closure) {
        if (!compute) return undefined;
        closure = new AnchorClosure(Int32Array.from(reverseWalk(this, typeIndex, anchor)).sort());
        cache?.set(code, anchor, closure);
      }
    }
    // Keep every anchor seen: the one pushed out of the inline pair goes to the Map.
    if (this.otherAnchor >= 0 && anchor !== this.otherAnchor) (this.anchored ??= new Map()).set(this.otherAnchor, this.otherClosure!);
    if (this.lastAnchor >= 0) {
      this.otherAnchor = this.lastAnchor;
      this.otherClosure = this.lastClosure;
    }
    this.lastAnchor = anchor;
    this.lastClosure = closure;
    return closure;
  }

  private depthExceeded(node: number, slot: number): never {
    throw new EvaluationError("max-depth-exceeded", `max depth ${this.maxDepth} exceeded at ${this.describe(node, slot)}`);
  }

  private cycleThroughExclusion(node: number): never {
    this.cycles++;
    const { graph } = this;
    const object = `${graph.model.typeNames[graph.nodeType[node]!]}:${graph.idOf(node)}`;
    throw new EvaluationError("max-depth-exceeded", `max depth exceeded: undecidable, ${object} depends on itself through the subtracted side of an exclusion`);
  }

  describe(node: number, slot: number): string {
    const { graph } = this;
    return `${graph.model.typeNames[graph.nodeType[node]!]}:${graph.idOf(node)}#${graph.model.slots[slot]!.name}`;
  }
}
