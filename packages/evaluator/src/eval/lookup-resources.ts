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
  const typeIndex = resolveType(graph, resourceType);
  const target = resolvePermission(graph, typeIndex, permission);
  const resolved = resolveSubject(graph, subject);
  return reverseWalk(new Evaluation(graph, resolved, DEFAULT_MAX_DEPTH), typeIndex, target);
}

/** The reverse walk itself; `evaluation` (bound to the subject) verifies intersections and exclusions. */
export function reverseWalk(evaluation: Evaluation, typeIndex: number, target: number): Set<number> {
  const { graph, subject: resolved } = evaluation;
  const index = reverseIndexOf(graph.model);
  const triggers = index.triggersFor(target);
  const facts: Array<Set<number> | undefined> = [];
  const queueNode: number[] = [];
  const queueSlot: number[] = [];

  const addFact = (node: number, slot: number): void => {
    let set = facts[slot];
    if (!set) facts[slot] = set = new Set();
    if (set.has(node)) return;
    set.add(node);
    queueNode.push(node);
    queueSlot.push(slot);
  };
  const candidate = (node: number, perm: number, verify: boolean): void => {
    if (facts[perm]?.has(node)) return;
    if (!verify || evaluation.evalSlot(node, perm, 0)) addFact(node, perm);
  };

  // Seeds: stored relations that name the subject directly or through the wildcard of its type.
  const seedCodes: number[] = [];
  if (resolved.code !== NOT_FOUND) seedCodes.push(resolved.code);
  if (resolved.wildcardNode >= 0) seedCodes.push(resolved.wildcardNode);
  for (const slot of index.relevantStored(target)) {
    for (const code of seedCodes) for (const resource of graph.reverse[slot]!.get(code) ?? []) addFact(resource, slot);
  }
  if (resolved.relationSlot >= 0 && resolved.node >= 0 && index.relevantTo(target)[resolved.relationSlot]) addFact(resolved.node, resolved.relationSlot);

  for (let head = 0; head < queueNode.length; head++) {
    const node = queueNode[head]!;
    const slot = queueSlot[head]!;
    for (const t of triggers[slot]!) {
      if (t.kind === "same") {
        candidate(node, t.perm, t.verify);
      } else if (t.kind === "arrow") {
        const reverse = graph.reverse[t.via]!;
        for (const resource of reverse.get(node) ?? []) candidate(resource, t.perm, t.verify);
        if (t.viaAllowsSets) {
          for (const code of graph.usersetCodesOf(node)) for (const resource of reverse.get(code) ?? []) candidate(resource, t.perm, t.verify);
        }
      } else {
        const code = graph.usersetCode(node, slot);
        if (code !== NOT_FOUND) for (const resource of graph.reverse[t.rel]!.get(code) ?? []) addFact(resource, t.rel);
      }
    }
  }
  const result = new Set<number>();
  for (const n of facts[target] ?? []) if (graph.nodeType[n] === typeIndex) result.add(n);
  // A subject set holds itself (group:g#member on group:g#member).
  if (resolved.relationSlot === target && resolved.typeIndex === typeIndex && resolved.node >= 0) result.add(resolved.node);
  return result;
}

/** Sorted ids of the objects of `resourceType` on which `subject` holds `permission`. */
export function lookupResources(graph: RelationshipGraph, resourceType: string, permission: string, subject: SubjectRef): string[] {
  const ids: string[] = [];
  for (const node of lookupResourceNodes(graph, resourceType, permission, subject)) ids.push(graph.nodeId[node]!);
  return ids.sort();
}
