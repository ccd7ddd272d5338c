import { describe, expect, it } from "vitest";
import { check, compileSchema, decodeGraph, encodeGraph, EvaluationError, formatRelationship, lookupResources, parseRelationship, RelationshipGraph } from "../src/index.js";

const SCHEMA = `definition user {}
definition group {
  relation member: user | group#member
}
definition doc {
  relation viewer: user | user:* | group#member
  relation parent: folder
  permission view = viewer + parent->view
}
definition folder {
  relation viewer: user | group#member
  permission view = viewer
}`;

const model = compileSchema(SCHEMA);

function sample(): RelationshipGraph {
  const graph = new RelationshipGraph(model);
  const lines = [
    "group:eng#member@user:alice",
    "group:all#member@group:eng#member",
    "group:all#member@user:bob",
    "doc:d1#viewer@group:all#member",
    "doc:d2#viewer@user:*",
    "doc:d3#parent@folder:f",
    "folder:f#viewer@user:carol",
  ];
  for (const line of lines.slice(0, 7)) graph.add(parseRelationship(line));
  // Many subjects on one resource (the adjacency switches to a Set past a threshold).
  for (let i = 0; i < 100; i++) graph.add(parseRelationship(`doc:big#viewer@user:u${i}`));
  // A removed relationship leaves its interned objects behind; the copy keeps them too.
  graph.remove(parseRelationship("doc:d2#viewer@user:*"));
  return graph;
}

const sorted = (g: RelationshipGraph) => [...g.relationships()].map(formatRelationship).sort();

describe("graph codec", () => {
  it("round-trips every relationship, node numbering and answer", () => {
    const graph = sample();
    const copy = decodeGraph(model, encodeGraph(graph));
    expect(sorted(copy)).toEqual(sorted(graph));
    expect(copy.size).toBe(graph.size);
    expect([...copy.nodeId]).toEqual([...graph.nodeId]);
    expect([...copy.usersetNode]).toEqual([...graph.usersetNode]);
    for (const user of ["alice", "bob", "carol", "u42", "nobody"]) {
      for (const doc of ["d1", "d2", "d3", "big"]) {
        const ask = (g: RelationshipGraph) => check(g, { type: "doc", id: doc }, "view", { type: "user", id: user });
        expect(ask(copy), `${doc}@${user}`).toBe(ask(graph));
      }
      const list = (g: RelationshipGraph) => lookupResources(g, "doc", "view", { type: "user", id: user });
      expect(list(copy)).toEqual(list(graph));
    }
    // The copy keeps working as a live graph.
    expect(copy.add(parseRelationship("doc:d9#viewer@group:eng#member"))).toBe(true);
    expect(copy.add(parseRelationship("group:all#member@user:bob"))).toBe(false);
  });

  it("round-trips an empty graph", () => {
    const copy = decodeGraph(model, encodeGraph(new RelationshipGraph(model)));
    expect(copy.size).toBe(0);
  });

  it("decodes from an unaligned buffer", () => {
    const bytes = encodeGraph(sample());
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(sorted(decodeGraph(model, shifted.subarray(1)))).toEqual(sorted(sample()));
  });

  it("refuses another schema, truncation and out-of-range indexes", () => {
    const bytes = encodeGraph(sample());
    const other = compileSchema(SCHEMA.replace("relation parent: folder", "relation parent: folder\n  relation owner: user"));
    expect(() => decodeGraph(other, bytes)).toThrow(EvaluationError);
    expect(() => decodeGraph(model, bytes.subarray(0, bytes.length - 4))).toThrow(/truncated|trailing/);
    const damaged = bytes.slice();
    // The last edge's subject code: far beyond every node.
    new DataView(damaged.buffer).setInt32(damaged.length - 4, 1 << 30, true);
    expect(() => decodeGraph(model, damaged)).toThrow(/inconsistent/);
  });
});

describe("graph encoding with expiring relationships", () => {
  const expiringModel = compileSchema(`use expiration
definition user {}
definition doc {
  relation viewer: user with expiration | user
  permission view = viewer
}`);

  it("keeps each relationship's expiry, so a restored graph still lets it lapse", () => {
    const graph = new RelationshipGraph(expiringModel);
    graph.add({ ...parseRelationship("doc:d#viewer@user:temp"), expiresAt: 2_000 });
    graph.add(parseRelationship("doc:d#viewer@user:perm"));
    const copy = decodeGraph(expiringModel, encodeGraph(graph));
    expect(copy.expiring).toBe(1);
    expect([...copy.relationships()].find((r) => r.subjectId === "temp")?.expiresAt).toBe(2_000);
    const view = (g: RelationshipGraph, who: string, now: number) =>
      check(g, { type: "doc", id: "d" }, "view", { type: "user", id: who }, { now });
    expect(view(copy, "temp", 1_000)).toBe(true);
    expect(view(copy, "temp", 3_000)).toBe(false);
    expect(view(copy, "perm", 3_000)).toBe(true);
  });
});
