// A bulk load (startBulk, add every relationship, compact: how an engine loads a snapshot) builds
// the same graph as adding relationship by relationship: same relationships, same answers, repeats
// counted once, and the graph then takes writes as any other.
import { describe, expect, it } from "vitest";
import { check, compileSchema, EvaluationError, formatRelationship, lookupResources, parseRelationship, RelationshipGraph } from "../src/index.js";
import { HAND_SCHEMA, randomHandCase, seededRandom } from "./support/random-graphs.js";

const listed = (g: RelationshipGraph) => [...g.relationships()].map(formatRelationship).sort();

describe("bulk load", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`builds the graph adding one by one builds, seed ${seed}`, () => {
      const model = compileSchema(HAND_SCHEMA);
      const c = randomHandCase(seededRandom(seed));
      const one = new RelationshipGraph(model);
      for (const r of c.relationships) one.add(r);
      one.compact();
      const bulk = new RelationshipGraph(model);
      bulk.startBulk();
      expect(bulk.loading).toBe(true);
      // Every relationship twice: repeats are dropped when the load ends.
      for (const r of [...c.relationships, ...c.relationships]) bulk.add(r);
      bulk.compact();
      expect(bulk.loading).toBe(false);
      expect(bulk.size).toBe(one.size);
      expect(listed(bulk)).toEqual(listed(one));
      for (const q of c.checks) expect({ q, allowed: check(bulk, q.resource, q.permission, q.subject) }).toEqual({ q, allowed: check(one, q.resource, q.permission, q.subject) });
      for (const l of c.lookups) expect(lookupResources(bulk, l.resourceType, l.permission, l.subject).sort()).toEqual(lookupResources(one, l.resourceType, l.permission, l.subject).sort());
      // Writes after the load: the same changes on both give the same graph.
      for (const r of c.relationships.slice(0, 20)) {
        expect(bulk.remove(r)).toBe(one.remove(r));
      }
      expect(listed(bulk)).toEqual(listed(one));
      for (const q of c.checks) expect(check(bulk, q.resource, q.permission, q.subject)).toBe(check(one, q.resource, q.permission, q.subject));
    });
  }

  it("starts only on an empty graph, refuses removals meanwhile, and keeps expiries", () => {
    const model = compileSchema(`use expiration
definition user {}
definition doc {
  relation viewer: user | user with expiration
  permission view = viewer
}`);
    const g = new RelationshipGraph(model);
    g.add(parseRelationship("doc:a#viewer@user:x"));
    expect(() => g.startBulk()).toThrow(EvaluationError);
    const b = new RelationshipGraph(model);
    b.startBulk();
    expect(() => b.startBulk()).toThrow(EvaluationError);
    b.add({ ...parseRelationship("doc:a#viewer@user:x"), expiresAt: 2_000 });
    b.add(parseRelationship("doc:a#viewer@user:y"));
    expect(() => b.remove(parseRelationship("doc:a#viewer@user:y"))).toThrow(EvaluationError);
    // A refused relationship is refused as by add, and leaves the load usable.
    expect(() => b.add(parseRelationship("doc:a#nope@user:y"))).toThrow(EvaluationError);
    b.compact();
    expect(b.size).toBe(2);
    expect(check(b, { type: "doc", id: "a" }, "view", { type: "user", id: "x" }, { now: 1_000 })).toBe(true);
    expect(check(b, { type: "doc", id: "a" }, "view", { type: "user", id: "x" }, { now: 3_000 })).toBe(false);
    expect(b.size).toBe(1);
  });
});
