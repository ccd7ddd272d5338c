// lookupSubjects: the subjects of one type (optionally a subject set `type#relation`) that hold a
// permission on a resource. A forward expansion from the resource; each (node, slot) is expanded
// once per request. Wildcards come back as `wildcard: true` plus the ids excluded from it. On
// cyclic data (an expansion reaching itself) the answer is Check's, asked of every candidate.
import { EvaluationError } from "../errors.js";
import type { RelationshipGraph } from "../graph/relationship-graph.js";
import type { Op } from "../model/model.js";
import type { ObjectRef } from "../relationship.js";
import { check } from "./check.js";
import { DEFAULT_MAX_DEPTH } from "./evaluation.js";
import { resolvePermission, resolveType } from "./subject.js";

export interface SubjectsResult {
  /** Sorted ids of concrete subjects that hold the permission. */
  ids: string[];
  /** True if every subject of the type holds it, except those in `excluded`. */
  wildcard: boolean;
  excluded: string[];
}

/** member(x) = ids.has(x) || (wildcard && !excluded.has(x)); excluded ∩ ids = ∅. */
interface SubjectSet {
  ids: Set<string>;
  wildcard: boolean;
  excluded: Set<string>;
}

const EMPTY: SubjectSet = { ids: new Set(), wildcard: false, excluded: new Set() };

/** Thrown inside the expansion when it reaches a (node, slot) it is expanding. */
const CYCLE = Symbol("cycle");

const member = (s: SubjectSet, id: string): boolean => s.ids.has(id) || (s.wildcard && !s.excluded.has(id));

/**
 * Combines two sets pointwise: `keep(inA, inB)` decides membership, also for the wildcard part. An
 * id is listed as a concrete subject only if it was found as one, or if it holds without the
 * wildcard: as in SpiceDB, `T:* - {u1}` united with `T:*` is `T:*`, not `T:*` plus u1.
 */
function combine(a: SubjectSet, b: SubjectSet, keep: (inA: boolean, inB: boolean) => boolean): SubjectSet {
  const wildcard = keep(a.wildcard, b.wildcard);
  const ids = new Set<string>();
  const excluded = new Set<string>();
  for (const x of [a.ids, b.ids]) {
    for (const id of x) {
      if (keep(member(a, id), member(b, id))) ids.add(id);
      else if (wildcard) excluded.add(id);
    }
  }
  for (const x of [a.excluded, b.excluded]) {
    for (const id of x) {
      if (ids.has(id)) continue;
      if (keep(member(a, id), member(b, id))) {
        if (!wildcard) ids.add(id);
      } else if (wildcard) excluded.add(id);
    }
  }
  return { ids, wildcard, excluded };
}

export function lookupSubjects(graph: RelationshipGraph, resource: ObjectRef, permission: string, subjectType: string, subjectRelation?: string, options?: { now?: number }): SubjectsResult {
  if (graph.expiring > 0) graph.expire(options?.now ?? Date.now());
  const typeIndex = resolveType(graph, resource.type);
  const slot = resolvePermission(graph, typeIndex, permission);
  const wantedType = resolveType(graph, subjectType);
  const wantedSlot = subjectRelation === undefined || subjectRelation === "" ? -1 : resolvePermission(graph, wantedType, subjectRelation);
  const { model } = graph;
  /** Expanded (node, slot) and the depth it was expanded at: reused at that depth or above (deeper, SpiceDB may run out of depth). */
  const done = new Map<number, { set: SubjectSet; depth: number }>();
  const inProgress = new Set<number>();

  const expandSlot = (node: number, s: number, depth: number): SubjectSet => {
    const key = node * model.slotCount + s;
    const cached = done.get(key);
    if (cached && depth <= cached.depth) return cached.set;
    // As SpiceDB: a dispatch with no depth remaining fails (no aliasing here, unlike check).
    if (inProgress.has(key)) throw CYCLE;
    if (depth >= DEFAULT_MAX_DEPTH) {
      throw new EvaluationError("max-depth-exceeded", `max depth exceeded expanding ${model.typeNames[graph.nodeType[node]!]}:${graph.idOf(node)}#${model.slots[s]!.name}`);
    }
    inProgress.add(key);
    const slotDef = model.slots[s]!;
    let result = slotDef.stored ? expandDirect(node, s, depth) : expandOp(slotDef.op!, node, depth);
    // A subject set contains itself.
    if (s === wantedSlot && graph.nodeType[node] === wantedType) {
      result = { ...result, ids: new Set(result.ids).add(graph.idOf(node)) };
    }
    inProgress.delete(key);
    done.set(key, { set: result, depth });
    return result;
  };

  const expandDirect = (node: number, s: number, depth: number): SubjectSet => {
    const ids = new Set<string>();
    let wildcard = false;
    let result: SubjectSet = EMPTY;
    for (const code of graph.forward[s]!.get(node) ?? []) {
      if (code >= 0) {
        if (wantedSlot >= 0 || graph.nodeType[code] !== wantedType) {
          // A wildcard of the wanted type also matches subject sets of that type.
          if (wantedSlot >= 0 && graph.nodeType[code] === wantedType && code === graph.wildcardNodeOf(wantedType)) wildcard = true;
          continue;
        }
        if (code === graph.wildcardNodeOf(graph.nodeType[code]!)) wildcard = true;
        else ids.add(graph.idOf(code));
        continue;
      }
      const u = -code - 1;
      const sub = expandSlot(graph.usersetNode[u]!, graph.usersetSlot[u]!, depth + 1);
      result = combine(result, sub, (a, b) => a || b);
    }
    return combine(result, { ids, wildcard, excluded: new Set() }, (a, b) => a || b);
  };

  const expandOp = (op: Op, node: number, depth: number): SubjectSet => {
    switch (op.k) {
      case "slot":
        return expandSlot(node, op.slot, depth + 1);
      case "arrow": {
        let result = EMPTY;
        for (const code of graph.forward[op.tupleset]!.get(node) ?? []) {
          const target = code >= 0 ? code : graph.usersetNode[-code - 1]!;
          const s = op.targetByType[graph.nodeType[target]!]!;
          if (s >= 0) result = combine(result, expandSlot(target, s, depth + 1), (a, b) => a || b);
        }
        return result;
      }
      case "union":
        return op.ops.reduce<SubjectSet>((acc, child) => combine(acc, expandOp(child, node, depth), (a, b) => a || b), EMPTY);
      case "intersection": {
        let acc = expandOp(op.ops[0]!, node, depth);
        for (const child of op.ops.slice(1)) acc = combine(acc, expandOp(child, node, depth), (a, b) => a && b);
        return acc;
      }
      case "exclusion":
        return combine(expandOp(op.left, node, depth), expandOp(op.right, node, depth), (a, b) => a && !b);
      case "nil":
        return EMPTY;
    }
  };

  const node = graph.nodeOf(typeIndex, resource.id);
  let result: SubjectSet;
  try {
    result = node < 0 ? EMPTY : expandSlot(node, slot, 0);
  } catch (error) {
    if (error !== CYCLE) throw error;
    result = byChecks(graph, resource, permission, subjectType, subjectRelation, options?.now);
  }
  // An object in no relationship: only its own subject set can hold the permission (see check).
  if (node < 0 && wantedSlot >= 0 && typeIndex === wantedType && check(graph, resource, permission, { type: subjectType, id: resource.id, relation: subjectRelation! })) {
    result = { ...EMPTY, ids: new Set([resource.id]) };
  }
  return {
    ids: [...result.ids].sort(),
    wildcard: result.wildcard,
    excluded: result.wildcard ? [...result.excluded].sort() : [],
  };
}

/**
 * The subjects holding the permission on cyclic data, where an expansion would have to iterate to
 * its fixed point: Check (the least fixed point) for every candidate of the type, and for the
 * wildcard an id that appears nowhere (it holds only through `T:*`). Every holding candidate is
 * listed, and with the wildcard the ones not holding are its exclusions.
 */
function byChecks(graph: RelationshipGraph, resource: ObjectRef, permission: string, subjectType: string, subjectRelation: string | undefined, now: number | undefined): SubjectSet {
  const typeIndex = resolveType(graph, subjectType);
  const relation = subjectRelation === undefined || subjectRelation === "" ? undefined : subjectRelation;
  const options = now === undefined ? undefined : { now };
  const holds = (id: string): boolean => check(graph, resource, permission, relation === undefined ? { type: subjectType, id } : { type: subjectType, id, relation }, options);
  let unseen = "unseen";
  while (graph.nodeOf(typeIndex, unseen) >= 0) unseen += "_";
  const wildcard = holds(unseen);
  const ids = new Set<string>();
  const excluded = new Set<string>();
  for (const id of graph.objectIds(typeIndex)) {
    if (id === "*") continue;
    if (holds(id)) ids.add(id);
    else if (wildcard) excluded.add(id);
  }
  return { ids, wildcard, excluded };
}
