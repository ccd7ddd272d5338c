// The scale benchmark's generator: valid for the schema, exact in size, deterministic, and shaped
// like a real console (few large tenants, many small ones, groups and bindings everywhere).
import { check, lookupResources, RelationshipGraph } from "@gatehouse/evaluator";
import { compileRoleModel } from "@gatehouse/role-config";
import { describe, expect, it } from "vitest";
import { hostId, queryStream, scaleRelationships, userId } from "../bench/scale-data.js";

const model = compileRoleModel("stage");

describe("scale data", () => {
  it("yields exactly the asked number of valid, distinct relationships in a skewed shape", () => {
    const { shape, relationships } = scaleRelationships({ relationships: 60_000, model });
    const graph = new RelationshipGraph(model);
    let yielded = 0;
    let repeated = 0;
    for (const r of relationships) {
      if (!graph.add(r)) repeated++;
      yielded++;
    }
    expect(yielded).toBe(60_000);
    expect(repeated).toBe(0);
    expect(shape.relationships).toBe(60_000);
    const hosts = shape.tenants.map((t) => t.hosts);
    expect(hosts[0]).toBeGreaterThanOrEqual(12_000);
    const small = hosts.filter((h) => h < 100).length;
    expect(small / hosts.length).toBeGreaterThan(0.8);
    expect(hosts.reduce((a, b) => a + b, 0) / 60_000).toBeGreaterThan(0.6);
    const kinds = new Set([...graph.relationships()].map((r) => `${r.resourceType}#${r.relation}@${r.subjectType}${r.subjectRelation ? `#${r.subjectRelation}` : ""}`));
    for (const kind of [
      "rbac/tenant#t_binding@rbac/role_binding",
      "rbac/workspace#t_binding@rbac/role_binding",
      "rbac/role_binding#t_subject@rbac/group#member",
      "rbac/group#t_member@rbac/principal",
    ]) {
      expect(kinds).toContain(kind);
    }
    // The largest tenant's admin sees all of its hosts and none of another tenant's.
    const [largest, second] = shape.tenants;
    const admin = { type: "rbac/principal", id: userId(largest!.id, 0) };
    expect(lookupResources(graph, "hbi/host", "view", admin)).toHaveLength(largest!.hosts);
    expect(check(graph, { type: "hbi/host", id: hostId(second!.id, 0) }, "view", admin)).toBe(false);
  });

  it("is deterministic and streams", () => {
    const first = [...scaleRelationships({ relationships: 5000, model, seed: 7 }).relationships];
    const again = [...scaleRelationships({ relationships: 5000, model, seed: 7 }).relationships];
    expect(again).toEqual(first);
    const stream = scaleRelationships({ relationships: 10_000_000, model }).relationships;
    expect(stream.next().done).toBe(false);
  });

  it("streams distinct checks of existing hosts and users, twice as many as there are hosts", () => {
    const { shape, relationships } = scaleRelationships({ relationships: 30_000, model });
    const graph = new RelationshipGraph(model);
    for (const r of relationships) graph.add(r);
    const hosts = shape.tenants.reduce((n, t) => n + t.hosts, 0);
    const query = queryStream(shape.tenants);
    const seen = new Set<string>();
    let allowed = 0;
    for (let i = 0; i < 2 * hosts; i++) {
      const q = query(i);
      seen.add(`${q.host} ${q.user}`);
      expect(graph.nodeOf(model.typeIndex("hbi/host")!, q.host)).toBeGreaterThanOrEqual(0);
      if (check(graph, { type: "hbi/host", id: q.host }, "view", { type: "rbac/principal", id: q.user })) allowed++;
    }
    expect(seen.size).toBe(2 * hosts);
    expect(query(5)).toEqual(query(5));
    expect(allowed).toBeGreaterThan(hosts / 5);
    expect(allowed).toBeLessThan(2 * hosts);
  });
});
