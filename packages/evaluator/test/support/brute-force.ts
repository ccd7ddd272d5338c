// Oracle inside the evaluator: lookupResources must equal a Check over every object of the type.
import { check, type RelationshipGraph, type SubjectRef } from "../../src/index.js";

/** Ids of `resourceType` objects passing Check, or undefined when some Check errors (cycles). */
export function bruteForceLookup(graph: RelationshipGraph, resourceType: string, permission: string, subject: SubjectRef): string[] | undefined {
  const typeIndex = graph.model.typeIndex(resourceType)!;
  const out: string[] = [];
  for (const id of graph.objectIds(typeIndex)) {
    try {
      if (check(graph, { type: resourceType, id }, permission, subject)) out.push(id);
    } catch {
      return undefined;
    }
  }
  if (subject.relation === permission && subject.type === resourceType && !out.includes(subject.id)) out.push(subject.id);
  return out.sort();
}

/** Every subject (plain and subject set) that appears in the graph, wildcards excluded. */
export function subjectsOf(graph: RelationshipGraph): SubjectRef[] {
  const seen = new Map<string, SubjectRef>();
  for (const r of graph.relationships()) {
    if (r.subjectId === "*") continue;
    const s: SubjectRef = r.subjectRelation ? { type: r.subjectType, id: r.subjectId, relation: r.subjectRelation } : { type: r.subjectType, id: r.subjectId };
    seen.set(`${s.type}:${s.id}#${s.relation ?? ""}`, s);
  }
  return [...seen.values()];
}
