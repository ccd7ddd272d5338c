// Explain names when an expiring grant stops granting.
import { describe, expect, it } from "vitest";
import { compileSchema, explain, parseRelationship, RelationshipGraph } from "../src/index.js";

const SCHEMA = `use expiration
definition user {}
definition group {
  relation member: user with expiration | user
}
definition doc {
  relation viewer: user with expiration | group#member with expiration
  relation editor: user
  permission view = viewer + editor
  permission both = viewer & editor
}`;

function graphWith(...rels: [string, number?][]): RelationshipGraph {
  const graph = new RelationshipGraph(compileSchema(SCHEMA));
  for (const [text, expiresAt] of rels) graph.add(expiresAt === undefined ? parseRelationship(text) : { ...parseRelationship(text), expiresAt });
  return graph;
}
const doc = { type: "doc", id: "d" };
const alice = { type: "user", id: "alice" };
const T = Date.UTC(2030, 0, 31, 18);

describe("explain of expiring grants", () => {
  it("says until when a direct grant holds, and marks the node", () => {
    const result = explain(graphWith(["doc:d#viewer@user:alice", T]), doc, "view", alice, { now: T - 1 });
    expect(result.allowed).toBe(true);
    expect(result.summary).toMatch(/\(granted until 2030-01-31T18:00:00\.000Z\)$/);
    expect(JSON.stringify(result.tree)).toContain(`"expiresAt":${T}`);
    expect(explain(graphWith(["doc:d#viewer@user:alice", T]), doc, "view", alice, { now: T }).allowed).toBe(false);
  });

  it("takes the earliest expiry along a chain of subject sets", () => {
    const graph = graphWith(["doc:d#viewer@group:g#member", T], ["group:g#member@user:alice", T - 60_000]);
    expect(explain(graph, doc, "view", alice, { now: 0 }).summary).toContain("granted until 2030-01-31T17:59:00.000Z");
  });

  it("says nothing of expiry for a permanent grant", () => {
    expect(explain(graphWith(["doc:d#editor@user:alice"], ["group:g#member@user:bob", T]), doc, "view", alice, { now: 0 }).summary).not.toContain("until");
  });

  it("counts every branch of an intersection", () => {
    const graph = graphWith(["doc:d#viewer@user:alice", T], ["doc:d#editor@user:alice"]);
    expect(explain(graph, doc, "both", alice, { now: 0 }).summary).toContain("granted until 2030-01-31T18:00:00.000Z");
  });
});
