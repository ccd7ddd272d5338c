import { check, compileSchema, explain, Model, RelationshipGraph, type Relationship } from "@gatehouse/evaluator";
import { computeParity, tenantTreeTuples, type AssetTypeCatalog, type ParityReport, type ParityTenant, type RelationshipTuple, type V1Export } from "@gatehouse/rbac";
import type { PlannedTenant } from "./plan.js";

export interface GraphLoad {
  readonly graph: RelationshipGraph;
  /** Tuples the schema rejected (e.g. a v1 permission the schema does not know), with the reason. */
  readonly rejected: { tuple: RelationshipTuple; error: string }[];
}

/** Builds an evaluator graph from tuples; tuples the schema rejects are reported, not fatal. */
export function loadGraph(schema: string | Model, tuples: Iterable<RelationshipTuple>): GraphLoad {
  const graph = new RelationshipGraph(schema instanceof Model ? schema : compileSchema(schema));
  const rejected: GraphLoad["rejected"] = [];
  for (const t of tuples) {
    try {
      graph.add(t as Relationship);
    } catch (err) {
      rejected.push({ tuple: t, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { graph, rejected };
}

/** The tuples of a pure run: each tenant's workspace tree plus everything its plan implies. */
export function planTuples(planned: readonly PlannedTenant[], platformId: string): RelationshipTuple[] {
  return planned.flatMap(({ plan }) => [...tenantTreeTuples(plan.ids, platformId), ...plan.relationships]);
}

export interface ParityRunInput {
  readonly export: V1Export;
  readonly catalog: AssetTypeCatalog;
  readonly planned: readonly ParityTenant[];
  readonly graph: RelationshipGraph;
  readonly relationships: Iterable<RelationshipTuple>;
  readonly onPrincipal?: (done: number, total: number) => void;
}

/** Runs the pure parity computation with the evaluator as the v2 oracle. */
export function runParity(input: ParityRunInput): ParityReport {
  const { graph } = input;
  return computeParity({
    export: input.export,
    catalog: input.catalog,
    tenants: input.planned,
    relationships: input.relationships,
    check: (resource, permission, subject) => check(graph, resource, permission, subject),
    explain: (resource, permission, subject) => explain(graph, resource, permission, subject).summary,
    isDefined: (type, permission) => graph.model.isPermission(type, permission) || graph.model.isRelation(type, permission),
    ...(input.onPrincipal ? { onPrincipal: input.onPrincipal } : {}),
  });
}
