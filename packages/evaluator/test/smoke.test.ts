import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { check, compileSchema, explain, lookupResources, lookupSubjects, parseRelationship, RelationshipGraph } from "../src/index.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "../../..", "../shared/fixtures/rbac-config");

describe("worked example on the stage schema", () => {
  const model = compileSchema(readFileSync(join(fixtures, "stage/schema.zed"), "utf8"));
  const g = new RelationshipGraph(model);
  for (const t of [
    "hbi/host:H1#t_workspace@rbac/workspace:W",
    "rbac/workspace:W#t_parent@rbac/workspace:ROOT",
    "rbac/workspace:ROOT#t_binding@rbac/role_binding:RB",
    "rbac/role_binding:RB#t_role@rbac/role:R",
    "rbac/role_binding:RB#t_subject@rbac/group:G#member",
    "rbac/group:G#t_member@rbac/principal:localhost/alice",
    "rbac/role:R#t_inventory_hosts_read@rbac/principal:*",
  ]) g.add(parseRelationship(t));
  const alice = { type: "rbac/principal", id: "localhost/alice" };
  it("checks", () => {
    expect(check(g, { type: "hbi/host", id: "H1" }, "view", alice)).toBe(true);
    expect(check(g, { type: "hbi/host", id: "H1" }, "view", { type: "rbac/principal", id: "localhost/bob" })).toBe(false);
    expect(check(g, { type: "hbi/host", id: "H1" }, "update", alice)).toBe(false);
    expect(lookupResources(g, "rbac/workspace", "inventory_host_view", alice)).toEqual(["ROOT", "W"]);
    expect(lookupResources(g, "hbi/host", "view", alice)).toEqual(["H1"]);
    expect(lookupSubjects(g, { type: "hbi/host", id: "H1" }, "view", "rbac/principal").ids).toEqual(["localhost/alice"]);
    const e = explain(g, { type: "hbi/host", id: "H1" }, "view", alice);
    console.log(e.summary);
    console.log(explain(g, { type: "hbi/host", id: "H1" }, "update", alice).summary);
  });
});
