// The compiled schema object feeds the evaluator directly, and the zed text parsed back by the
// evaluator gives a model that makes the same decisions.
import { describe, expect, it } from "vitest";
import { check, compileSchema, lookupResources, parseSchema, RelationshipGraph, type Model, type Relationship } from "@gatehouse/evaluator";
import { compileOrThrow, printZed } from "../src/index.js";
import { fixtureSources } from "./fixtures.js";

const tuple = (text: string): Relationship => {
  const m = /^([^:]+):([^#]+)#([^@]+)@([^:]+):([^#]+)(?:#(.+))?$/.exec(text);
  if (!m) throw new Error(`bad tuple ${text}`);
  const [, resourceType, resourceId, relation, subjectType, subjectId, subjectRelation] = m;
  return { resourceType: resourceType!, resourceId: resourceId!, relation: relation!, subjectType: subjectType!, subjectId: subjectId!, ...(subjectRelation ? { subjectRelation } : {}) };
};

// A tenant with root and default workspaces, a host, a group-bound inventory viewer role and a
// directly-bound patch role: enough to exercise v1-based, contingent and host-exposed permissions.
const TUPLES = [
  "rbac/tenant:redhat/1#t_platform@rbac/platform:stage",
  "rbac/workspace:root#t_parent@rbac/tenant:redhat/1",
  "rbac/workspace:default#t_parent@rbac/workspace:root",
  "rbac/workspace:team#t_parent@rbac/workspace:default",
  "hbi/host:h1#t_workspace@rbac/workspace:team",
  "rbac/role:inv_viewer#t_inventory_hosts_read@rbac/principal:*",
  "rbac/role:patcher#t_patch_system_all@rbac/principal:*",
  "rbac/role:parent_role#t_child@rbac/role:inv_viewer",
  "rbac/group:g#t_member@rbac/principal:redhat/alice",
  "rbac/group:g#t_member@rbac/principal:redhat/bob",
  "rbac/role_binding:rb1#t_subject@rbac/group:g#member",
  "rbac/role_binding:rb1#t_role@rbac/role:parent_role",
  "rbac/workspace:root#t_binding@rbac/role_binding:rb1",
  "rbac/role_binding:rb2#t_subject@rbac/principal:redhat/alice",
  "rbac/role_binding:rb2#t_role@rbac/role:patcher",
  "rbac/workspace:default#t_binding@rbac/role_binding:rb2",
  "rbac/role:admin#t_all_all_all@rbac/principal:*",
  "rbac/role_binding:rb3#t_subject@rbac/principal:redhat/carol",
  "rbac/role_binding:rb3#t_role@rbac/role:admin",
  "rbac/platform:stage#t_binding@rbac/role_binding:rb3",
].map(tuple);

const SUBJECTS = ["alice", "bob", "carol", "dave"].map((u) => ({ type: "rbac/principal", id: `redhat/${u}` }));
const CHECKS: Array<[string, string, string]> = [
  ["hbi/host", "h1", "view"],
  ["hbi/host", "h1", "update"],
  ["hbi/host", "h1", "patch_system_view"],
  ["hbi/host", "h1", "patch_system_edit"],
  ["rbac/workspace", "team", "inventory_host_view"],
  ["rbac/workspace", "root", "patch_system_view"],
  ["rbac/workspace", "default", "patch_system_edit"],
  ["rbac/workspace", "team", "rbac_roles_write"],
  ["rbac/tenant", "redhat/1", "rbac_roles_read"],
];

function decisions(model: Model): string[] {
  const graph = new RelationshipGraph(model);
  for (const r of TUPLES) graph.add(r);
  const out: string[] = [];
  for (const subject of SUBJECTS) {
    for (const [type, id, permission] of CHECKS) {
      out.push(`${type}:${id}#${permission}@${subject.id}=${check(graph, { type, id }, permission, subject)}`);
    }
    out.push(`lookup rbac/workspace#patch_system_view@${subject.id}=${lookupResources(graph, "rbac/workspace", "patch_system_view", subject).join(",")}`);
  }
  return out;
}

describe("compiled schema -> evaluator", () => {
  const { zed, ast } = compileOrThrow(fixtureSources("stage"));

  it("the schema object compiles without a text round trip", () => {
    expect(() => compileSchema(ast)).not.toThrow();
  });

  it("zed text -> evaluator model gives the same decisions as the compiled object", () => {
    const fromObject = decisions(compileSchema(ast));
    const fromText = decisions(compileSchema(parseSchema(zed, "schema.zed")));
    expect(fromText).toEqual(fromObject);
    // Spot-check the decisions themselves so the comparison cannot pass vacuously.
    expect(fromObject).toContain("hbi/host:h1#view@redhat/bob=true");
    expect(fromObject).toContain("hbi/host:h1#update@redhat/bob=false");
    expect(fromObject).toContain("hbi/host:h1#patch_system_edit@redhat/alice=true");
    expect(fromObject).toContain("hbi/host:h1#patch_system_edit@redhat/bob=false");
    expect(fromObject).toContain("rbac/workspace:root#patch_system_view@redhat/alice=false");
    expect(fromObject).toContain("rbac/workspace:team#rbac_roles_write@redhat/carol=true");
    expect(fromObject).toContain("hbi/host:h1#view@redhat/dave=false");
    expect(fromObject).toContain("lookup rbac/workspace#patch_system_view@redhat/alice=default,team");
  });

  it("printing the evaluator's parse of the text gives the text back", () => {
    expect(printZed(parseSchema(zed))).toBe(zed);
  });
});
