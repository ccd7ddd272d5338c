import { lookupSubjects } from "@gatehouse/evaluator";
import type { EngineGraph } from "../graph/engine-graph.js";

const WORKSPACE = "rbac/workspace";
const TENANT = "rbac/tenant";
// Deeper than any allowed hierarchy; guards against a corrupt parent cycle.
const MAX_HOPS = 64;

/**
 * The org a workspace belongs to, found by walking `t_parent` up to its `rbac/tenant` in the
 * in-memory graph (tenant ids are `<domain>/<org_id>`). undefined when the graph does not know it.
 * `now`: the engine's evaluation time (the graph drops what expired by then).
 */
export function orgOfWorkspace(graph: EngineGraph, workspaceId: string, domain: string, now: number): string | undefined {
  let current = workspaceId;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const ref = { type: WORKSPACE, id: current };
    const tenant = lookupSubjects(graph.graph, ref, "t_parent", TENANT, undefined, { now }).ids[0];
    if (tenant !== undefined) return tenant.startsWith(`${domain}/`) ? tenant.slice(domain.length + 1) : undefined;
    const parent = lookupSubjects(graph.graph, ref, "t_parent", WORKSPACE, undefined, { now }).ids[0];
    if (parent === undefined) return undefined;
    current = parent;
  }
  return undefined;
}

/** Workspaces a resource currently sits in (its `t_workspace` tuples). */
export function workspacesOf(graph: EngineGraph, resource: { type: string; id: string }, now: number): string[] {
  return lookupSubjects(graph.graph, resource, "t_workspace", WORKSPACE, undefined, { now }).ids;
}
