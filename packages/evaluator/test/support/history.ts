// History independence: an answer must not depend on the queries a graph answered before it (its
// memos, closure caches and lookup-depth passes). Every query is asked on a graph of its own, then
// on one graph in several random orders; each answer (errors included) must equal the fresh one.
import { check, EvaluatorError, lookupResources, lookupSubjects, RelationshipGraph, type Model, type ObjectRef, type Relationship, type SubjectRef } from "../../src/index.js";
import { seededRandom } from "./random-graphs.js";

export interface HistoryQueries {
  checks: Array<{ resource: ObjectRef; permission: string; subject: SubjectRef }>;
  lookups: Array<{ resourceType: string; permission: string; subject: SubjectRef }>;
  subjectLookups?: Array<{ resource: ObjectRef; permission: string; subjectType: string; subjectRelation?: string }>;
}

export interface HistoryDifference {
  query: string;
  fresh: string;
  after: string;
  /** The queries asked on that graph before this one, oldest first. */
  before: string[];
}

interface Asked {
  label: string;
  run: (graph: RelationshipGraph) => unknown;
}

const subjectText = (s: SubjectRef): string => (s.relation ? `${s.type}:${s.id}#${s.relation}` : `${s.type}:${s.id}`);

/** Every query as a label and a function of the graph. */
export function queriesOf(q: HistoryQueries): Asked[] {
  return [
    ...q.checks.map((c) => ({
      label: `check ${c.resource.type}:${c.resource.id}#${c.permission}@${subjectText(c.subject)}`,
      run: (g: RelationshipGraph) => check(g, c.resource, c.permission, c.subject),
    })),
    ...q.lookups.map((l) => ({
      label: `lookupResources ${l.resourceType}#${l.permission}@${subjectText(l.subject)}`,
      run: (g: RelationshipGraph) => lookupResources(g, l.resourceType, l.permission, l.subject),
    })),
    ...(q.subjectLookups ?? []).map((l) => ({
      label: `lookupSubjects ${l.resource.type}:${l.resource.id}#${l.permission}@${l.subjectType}${l.subjectRelation ? `#${l.subjectRelation}` : ""}`,
      run: (g: RelationshipGraph) => lookupSubjects(g, l.resource, l.permission, l.subjectType, l.subjectRelation),
    })),
  ];
}

/** An outcome as text: JSON of the answer, or `error:<code>`. */
function outcome(run: () => unknown): string {
  try {
    return JSON.stringify(run());
  } catch (error) {
    if (error instanceof EvaluatorError) return `error:${error.code}`;
    throw error;
  }
}

/**
 * Asks every query on a fresh graph, then on one graph per order (`orders` random permutations
 * drawn from `seed`), and returns each answer that differs from the fresh one.
 */
export function historyDifferences(model: Model, relationships: readonly Relationship[], queries: HistoryQueries, seed: number, orders = 2): HistoryDifference[] {
  const build = (): RelationshipGraph => {
    const graph = new RelationshipGraph(model);
    for (const r of relationships) graph.add(r);
    return graph;
  };
  const asked = queriesOf(queries);
  const fresh = asked.map((q) => outcome(() => q.run(build())));
  const rnd = seededRandom(seed ^ 0x5eed);
  const differences: HistoryDifference[] = [];
  for (let o = 0; o < orders; o++) {
    const order = asked.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const graph = build();
    order.forEach((index, position) => {
      const after = outcome(() => asked[index]!.run(graph));
      if (after !== fresh[index]) {
        differences.push({ query: asked[index]!.label, fresh: fresh[index]!, after, before: order.slice(0, position).map((i) => asked[i]!.label) });
      }
    });
  }
  return differences;
}

/** A difference as text, with the last queries asked before it (the likely cause). */
export function describeHistory(d: HistoryDifference): string {
  return `${d.query}: fresh ${d.fresh}, after ${d.before.length} other queries ${d.after} (last before it: ${d.before.slice(-3).join("; ")})`;
}
