// Static data for reverse walks, derived once per model: for each slot, which facts its truth can
// produce ("triggers"), and for each lookup target, which slots can lead to it at all.
import type { Model, Op } from "../model/model.js";

export type Trigger =
  /** (n, slot) true ⇒ candidate (n, perm). */
  | { kind: "same"; perm: number; verify: boolean }
  /** (n, slot) true ⇒ candidate (r, perm) for each tuple r#via@n. */
  | { kind: "arrow"; via: number; perm: number; verify: boolean; viaAllowsSets: boolean }
  /** (n, slot) true ⇒ (r, rel) true for each tuple r#rel@n#slot. */
  | { kind: "set"; rel: number };

export interface ReverseIndex {
  triggers: Trigger[][];
  /** Slots that can contribute to `target`, as a membership array indexed by slot. */
  relevantTo(target: number): Uint8Array;
  /** triggers filtered to those whose output is relevant to `target` (per slot). */
  triggersFor(target: number): Trigger[][];
  /** The stored relations among relevantTo(target): where a reverse walk starts. */
  relevantStored(target: number): number[];
  /**
   * For an intersection permission, a branch that is a plain slot and cannot be reached through a
   * wildcard (e.g. `subject` in `subject & t_role->p`), else -1. The nodes where that slot holds are
   * few for one subject, so checks can enumerate them instead of every tuple of an arrow.
   */
  anchorOf: Int32Array;
  /** Per stored relation: the subject type if it allows exactly one, a plain object type; else -1. */
  plainTypeOf: Int32Array;
}

const cache = new WeakMap<Model, ReverseIndex>();

export function reverseIndexOf(model: Model): ReverseIndex {
  let index = cache.get(model);
  if (!index) cache.set(model, (index = buildReverseIndex(model)));
  return index;
}

/** Slots whose truth can come from a `T:*` tuple: such branches make poor starting points for `&`. */
function wildcardReach(model: Model): Uint8Array {
  const reach = new Uint8Array(model.slotCount);
  const refs = (op: Op, out: number[]): number[] => {
    if (op.k === "slot") {
      out.push(op.slot);
    } else if (op.k === "arrow") {
      for (const t of op.targetByType) if (t >= 0) out.push(t);
    } else if (op.k === "union" || op.k === "intersection") {
      for (const c of op.ops) refs(c, out);
    } else if (op.k === "exclusion") {
      refs(op.left, out);
    }
    return out;
  };
  for (let changed = true; changed; ) {
    changed = false;
    model.slots.forEach((s, slot) => {
      if (reach[slot]) return;
      const deps = s.stored ? s.allowed.flatMap((a) => (a.wildcard ? [-1] : a.relation !== undefined ? [model.slotOf(a.typeIndex, a.relation)] : [])) : refs(s.op!, []);
      if (deps.some((d) => d < 0 || reach[d])) {
        reach[slot] = 1;
        changed = true;
      }
    });
  }
  return reach;
}

function buildReverseIndex(model: Model): ReverseIndex {
  const triggers: Trigger[][] = model.slots.map(() => []);
  const reachesWildcard = wildcardReach(model);
  const opReachesWildcard = (op: Op): boolean =>
    op.k === "slot"
      ? reachesWildcard[op.slot] === 1
      : op.k === "arrow"
        ? [...op.targetByType].some((t) => t >= 0 && reachesWildcard[t] === 1)
        : op.k === "union" || op.k === "intersection"
          ? op.ops.some(opReachesWildcard)
          : op.k === "exclusion"
            ? opReachesWildcard(op.left)
            : false;

  // Register the positive positions of a permission's expression. An intersection is entered through
  // one branch only (every true result is true on that branch too) and verified by a check.
  const register = (op: Op, perm: number, verify: boolean): void => {
    switch (op.k) {
      case "slot":
        triggers[op.slot]!.push({ kind: "same", perm, verify });
        return;
      case "arrow": {
        const viaAllowsSets = model.slots[op.tupleset]!.allowed.some((a) => a.relation !== undefined);
        for (const target of new Set(op.targetByType)) {
          if (target >= 0) triggers[target]!.push({ kind: "arrow", via: op.tupleset, perm, verify, viaAllowsSets });
        }
        return;
      }
      case "union":
        for (const child of op.ops) register(child, perm, verify);
        return;
      case "intersection":
        register(op.ops.find((c) => !opReachesWildcard(c)) ?? op.ops[0]!, perm, true);
        return;
      case "exclusion":
        register(op.left, perm, true);
        return;
      case "nil":
        return;
    }
  };
  model.slots.forEach((s, slot) => {
    if (s.op) register(s.op, slot, false);
    for (const a of s.allowed) {
      if (a.relation !== undefined) triggers[model.slotOf(a.typeIndex, a.relation)]!.push({ kind: "set", rel: slot });
    }
  });

  // producers[out] = slots with a trigger whose output is `out`.
  const producers: number[][] = model.slots.map(() => []);
  triggers.forEach((list, slot) => {
    for (const t of list) producers[t.kind === "set" ? t.rel : t.perm]!.push(slot);
  });
  const anchorOf = new Int32Array(model.slotCount).fill(-1);
  model.slots.forEach((s, slot) => {
    if (s.op?.k !== "intersection") return;
    const anchor = s.op.ops.find((c) => c.k === "slot" && !opReachesWildcard(c));
    if (anchor?.k === "slot") anchorOf[slot] = anchor.slot;
  });
  const plainTypeOf = Int32Array.from(model.slots, (s) => (s.stored && s.allowed.length === 1 && s.allowed[0]!.relation === undefined && !s.allowed[0]!.wildcard ? s.allowed[0]!.typeIndex : -1));
  const relevant = new Map<number, Uint8Array>();
  const stored = new Map<number, number[]>();
  const filtered = new Map<number, Trigger[][]>();
  return {
    triggers,
    anchorOf,
    plainTypeOf,
    triggersFor(target: number): Trigger[][] {
      let byTarget = filtered.get(target);
      if (!byTarget) {
        const set = this.relevantTo(target);
        byTarget = triggers.map((list) => list.filter((t) => set[t.kind === "set" ? t.rel : t.perm] === 1));
        filtered.set(target, byTarget);
      }
      return byTarget;
    },
    relevantStored(target: number): number[] {
      let list = stored.get(target);
      if (!list) {
        const set = this.relevantTo(target);
        stored.set(target, (list = model.slots.flatMap((s, slot) => (s.stored && set[slot] ? [slot] : []))));
      }
      return list;
    },
    relevantTo(target: number): Uint8Array {
      let set = relevant.get(target);
      if (!set) {
        set = new Uint8Array(model.slotCount);
        const stack = [target];
        set[target] = 1;
        while (stack.length > 0) {
          for (const p of producers[stack.pop()!]!) {
            if (!set[p]) {
              set[p] = 1;
              stack.push(p);
            }
          }
        }
        relevant.set(target, set);
      }
      return set;
    },
  };
}
