// Expiring relationships (`use expiration`) against SpiceDB: relationships that expired before the
// evaluation time are absent for Check and both lookups, also behind subject sets and arrows; the
// rest count as usual. SpiceDB evaluates at its clock, so its cases use expiries far from now.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { check, compileSchema, EvaluationError, EvaluatorError, lookupResources, lookupSubjects, parseRelationship, RelationshipGraph, type Relationship } from "../src/index.js";
import { SpiceDbOracle } from "./support/spicedb-oracle.js";

const SCHEMA = `use expiration

definition user {}

definition group {
  relation member: user with expiration | group#member with expiration | user
}

definition folder {
  relation viewer: user with expiration | group#member | user:* with expiration
  permission view = viewer
}

definition doc {
  relation parent: folder with expiration
  relation owner: user
  relation banned: user with expiration
  permission view = (owner + parent->view) - banned
}`;

const HOUR = 3_600_000;
const now = Date.now();
const past = now - 24 * HOUR;
const future = now + 24 * HOUR;
const rel = (text: string, expiresAt?: number): Relationship => ({ ...parseRelationship(text), ...(expiresAt === undefined ? {} : { expiresAt }) });

const RELATIONSHIPS: Relationship[] = [
  rel("group:g1#member@user:alive", future),
  rel("group:g1#member@user:dead", past),
  rel("group:g1#member@user:plain"),
  rel("group:g2#member@group:g1#member", past),
  rel("group:g3#member@group:g1#member", future),
  rel("folder:f1#viewer@group:g3#member"),
  rel("folder:f2#viewer@group:g2#member"),
  rel("folder:f3#viewer@user:*", past),
  rel("folder:f4#viewer@user:*", future),
  rel("doc:d1#parent@folder:f1", future),
  rel("doc:d2#parent@folder:f1", past),
  rel("doc:d3#parent@folder:f4", future),
  rel("doc:d3#banned@user:alive", past),
  rel("doc:d3#banned@user:plain", future),
  rel("doc:d4#owner@user:dead"),
];
const USERS = ["alive", "dead", "plain", "other"];

describe("expiration agrees with SpiceDB", () => {
  it("check, lookupResources and lookupSubjects", async () => {
    const graph = new RelationshipGraph(compileSchema(SCHEMA));
    for (const r of RELATIONSHIPS) graph.add(r);
    const spicedb = await SpiceDbOracle.start(SCHEMA, RELATIONSHIPS);
    try {
      let compared = 0;
      for (const [type, ids, permission] of [
        ["group", ["g1", "g2", "g3"], "member"],
        ["folder", ["f1", "f2", "f3", "f4"], "view"],
        ["doc", ["d1", "d2", "d3", "d4"], "view"],
      ] as const) {
        for (const id of ids) {
          for (const u of USERS) {
            const subject = { type: "user", id: u };
            expect(check(graph, { type, id }, permission, subject, { now }), `${type}:${id}#${permission}@user:${u}`).toBe(await spicedb.check({ type, id }, permission, subject));
            compared++;
          }
          expect(lookupSubjects(graph, { type, id }, permission, "user", undefined, { now })).toEqual(await spicedb.lookupSubjects({ type, id }, permission, "user"));
        }
        for (const u of USERS) {
          const subject = { type: "user", id: u };
          expect(lookupResources(graph, type, permission, subject, { now })).toEqual(await spicedb.lookupResources(type, permission, subject));
        }
      }
      expect(compared).toBe(44);
    } finally {
      await spicedb.close();
    }
  });
});

describe("expiration in the graph", () => {
  it("a grant holds strictly before its expiry and is gone from that instant on", () => {
    const graph = new RelationshipGraph(compileSchema(SCHEMA));
    graph.add(rel("folder:f#viewer@user:u", 1_000));
    const at = (t: number): boolean => check(graph, { type: "folder", id: "f" }, "view", { type: "user", id: "u" }, { now: t });
    expect(at(999)).toBe(true);
    expect(graph.expiring).toBe(1);
    expect(at(1_000)).toBe(false);
    expect(graph.size).toBe(0);
    expect(graph.expiring).toBe(0);
  });

  it("touching a relationship replaces its expiry; writing it without one makes it permanent", () => {
    const graph = new RelationshipGraph(compileSchema(SCHEMA));
    const r = rel("group:g#member@user:u", 1_000);
    expect(graph.add(r)).toBe(true);
    expect(graph.add(r)).toBe(false);
    expect(graph.add({ ...r, expiresAt: 5_000 })).toBe(true);
    expect([...graph.relationships()]).toEqual([{ ...r, expiresAt: 5_000 }]);
    expect(check(graph, { type: "group", id: "g" }, "member", { type: "user", id: "u" }, { now: 2_000 })).toBe(true);
    expect(graph.add({ ...r, expiresAt: undefined })).toBe(true);
    expect(check(graph, { type: "group", id: "g" }, "member", { type: "user", id: "u" }, { now: 10_000 })).toBe(true);
    expect(graph.expiring).toBe(0);
  });

  it("an expiry on a subject type not declared `with expiration` is refused and changes nothing", () => {
    const graph = new RelationshipGraph(compileSchema(SCHEMA));
    const attempt = (): boolean => graph.add(rel("doc:d#owner@user:u", 1_000));
    expect(attempt).toThrow(EvaluationError);
    expect(attempt).toThrow(/expiration/);
    expect(graph.size).toBe(0);
  });
});

interface RelationshipVerdict {
  name: string;
  schema: string[];
  relationship: string;
  expiresAt?: number;
  /** The evaluator's error code, or null when it accepts the relationship. */
  code: string | null;
  /** "accepted" or a fragment of SpiceDB's refusal. */
  spicedb: string;
}

const verdicts: RelationshipVerdict[] = JSON.parse(readFileSync(new URL("./cases/relationship-verdicts.json", import.meta.url), "utf8"));

describe("relationship verdicts match SpiceDB's", () => {
  for (const v of verdicts) {
    it(v.name, async () => {
      const schema = v.schema.join("\n");
      const r = rel(v.relationship, v.expiresAt);
      const graph = new RelationshipGraph(compileSchema(schema));
      let ours: string | null = null;
      let message = "";
      try {
        graph.add(r);
      } catch (error) {
        expect(error).toBeInstanceOf(EvaluatorError);
        ours = (error as EvaluatorError).code;
        message = (error as Error).message;
      }
      expect(ours).toBe(v.code);
      // A refused write changes nothing.
      if (ours !== null) expect(graph.size).toBe(0);
      const spicedb = await SpiceDbOracle.start(schema);
      let theirs = "accepted";
      try {
        await spicedb.write([r]);
      } catch (error) {
        theirs = (error as Error).message;
      } finally {
        await spicedb.close();
      }
      if (v.spicedb === "accepted") expect(theirs).toBe("accepted");
      else expect(theirs).toContain(v.spicedb);
      // Where SpiceDB hints at the declaration, the evaluator gives the same hint.
      if (v.spicedb.includes("did you mean")) expect(message).toContain(v.spicedb);
    });
  }
});
