// The evaluated role model lets binding subjects expire; nothing else may.
import { check, EvaluatorError, RelationshipGraph, type Relationship } from "@gatehouse/evaluator";
import { describe, expect, it } from "vitest";
import { compileRoleModel } from "../src/index.js";

const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string, extra: Partial<Relationship> = {}): Relationship => ({
  resourceType,
  resourceId,
  relation,
  subjectType,
  subjectId,
  ...extra,
});

describe("grant expiration in the role model", () => {
  const model = compileRoleModel("stage");
  const user = { type: "rbac/principal", id: "redhat/u1" };
  const ws = { type: "rbac/workspace", id: "w1" };

  it("honours expiresAt on rbac/role_binding#t_subject against the evaluation time", () => {
    const graph = new RelationshipGraph(model);
    graph.add(rel("rbac/workspace", "w1", "t_binding", "rbac/role_binding", "b1"));
    graph.add(rel("rbac/role_binding", "b1", "t_role", "rbac/role", "r1"));
    graph.add(rel("rbac/role", "r1", "t_inventory_hosts_read", "rbac/principal", "*"));
    graph.add(rel("rbac/role_binding", "b1", "t_subject", "rbac/principal", "redhat/u1", { expiresAt: 2_000 }));
    expect(check(graph, ws, "inventory_host_view", user, { now: 1_999 })).toBe(true);
    expect(check(graph, ws, "inventory_host_view", user, { now: 2_000 })).toBe(false);
  });

  it("still refuses an expiry on any other relation", () => {
    const graph = new RelationshipGraph(model);
    expect(() => graph.add(rel("rbac/workspace", "w1", "t_binding", "rbac/role_binding", "b1", { expiresAt: 2_000 }))).toThrow(EvaluatorError);
  });
});
