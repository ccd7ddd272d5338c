import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { check, compileSchema, EvaluationError, formatRelationship, lookupResources, parseRelationship, RelationshipGraph, type Relationship } from "../src/index.js";

const SCHEMA = `definition user {}
definition group {
  relation member: user | group#member
}
definition doc {
  relation viewer: user | user:* | group#member
  permission view = viewer
}`;

const r = (text: string): Relationship => parseRelationship(text);

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof EvaluationError) return e.code;
    throw e;
  }
  return undefined;
}

describe("relationship text form", () => {
  it("round-trips plain, subject-set and wildcard tuples", () => {
    for (const text of ["rbac/workspace:w1#t_parent@rbac/workspace:root", "rbac/role_binding:rb#t_subject@rbac/group:g#member", "rbac/role:r#t_x@rbac/principal:*"]) {
      expect(formatRelationship(parseRelationship(text))).toBe(text);
    }
    expect(parseRelationship("doc:d#viewer@user:localhost/alice")).toEqual({ resourceType: "doc", resourceId: "d", relation: "viewer", subjectType: "user", subjectId: "localhost/alice" });
  });
  it("rejects malformed text", () => {
    for (const bad of ["doc:d#viewer", "doc#viewer@user:a", "doc:d#viewer@user", ""]) expect(codeOf(() => parseRelationship(bad))).toBe("invalid-relationship");
  });
});

describe("RelationshipGraph", () => {
  it("adds, deduplicates, removes and counts", () => {
    const g = new RelationshipGraph(compileSchema(SCHEMA));
    expect(g.add(r("doc:d1#viewer@user:a"))).toBe(true);
    expect(g.add(r("doc:d1#viewer@user:a"))).toBe(false);
    expect(g.add(r("doc:d1#viewer@group:g#member"))).toBe(true);
    expect(g.size).toBe(2);
    expect(g.has(r("doc:d1#viewer@group:g#member"))).toBe(true);
    expect(g.has(r("doc:d1#viewer@user:g"))).toBe(false);
    expect(g.remove(r("doc:d1#viewer@user:a"))).toBe(true);
    expect(g.remove(r("doc:d1#viewer@user:a"))).toBe(false);
    expect(g.remove(r("doc:zz#viewer@user:nobody"))).toBe(false);
    expect(g.size).toBe(1);
    expect([...g.relationships()].map(formatRelationship)).toEqual(["doc:d1#viewer@group:g#member"]);
  });

  it("keeps check and lookups right across incremental writes, including big member lists", () => {
    const g = new RelationshipGraph(compileSchema(SCHEMA));
    for (let i = 0; i < 100; i++) g.add(r(`group:big#member@user:u${i}`));
    g.add(r("doc:d1#viewer@group:big#member"));
    const u50 = { type: "user", id: "u50" };
    expect(check(g, { type: "doc", id: "d1" }, "view", u50)).toBe(true);
    g.remove(r("group:big#member@user:u50"));
    expect(check(g, { type: "doc", id: "d1" }, "view", u50)).toBe(false);
    expect(g.has(r("group:big#member@user:u51"))).toBe(true);
    g.add(r("doc:d2#viewer@user:*"));
    expect(lookupResources(g, "doc", "view", u50)).toEqual(["d2"]);
    g.remove(r("doc:d2#viewer@user:*"));
    expect(lookupResources(g, "doc", "view", u50)).toEqual([]);
  });

  const invalid: Array<[string, string]> = [
    ["nope:d#viewer@user:a", "unknown-type"],
    ["doc:d#editor@user:a", "unknown-relation"],
    ["doc:d#view@user:a", "write-to-permission"],
    ["doc:d#viewer@group:g", "subject-type-not-allowed"],
    ["group:g#member@user:*", "subject-type-not-allowed"],
    ["doc:d#viewer@group:*", "subject-type-not-allowed"],
    ["doc:d#viewer@user:*#member", "invalid-relationship"],
    ["doc:*#viewer@user:a", "invalid-object-id"],
    ["doc:d#viewer@user:a!b", "invalid-object-id"],
  ];
  for (const [text, code] of invalid) {
    it(`rejects ${text} with ${code} and writes nothing`, () => {
      const g = new RelationshipGraph(compileSchema(SCHEMA));
      expect(codeOf(() => g.add(r(text)))).toBe(code);
      expect(g.size).toBe(0);
      expect(g.objectIds(g.model.typeIndex("doc")!)).toEqual([]);
      expect(g.objectIds(g.model.typeIndex("user")!)).toEqual([]);
    });
  }

  it("rejects checks for the wildcard subject and unknown names", () => {
    const g = new RelationshipGraph(compileSchema(SCHEMA));
    expect(codeOf(() => check(g, { type: "doc", id: "d" }, "view", { type: "user", id: "*" }))).toBe("wildcard-subject");
    expect(codeOf(() => check(g, { type: "nope", id: "d" }, "view", { type: "user", id: "a" }))).toBe("unknown-type");
    expect(codeOf(() => check(g, { type: "doc", id: "d" }, "edit", { type: "user", id: "a" }))).toBe("unknown-permission");
    expect(codeOf(() => check(g, { type: "doc", id: "d" }, "view", { type: "group", id: "g", relation: "owner" }))).toBe("unknown-relation");
  });

  it("reports a depth over the limit as an error", () => {
    const g = new RelationshipGraph(compileSchema(SCHEMA));
    for (let i = 0; i < 30; i++) g.add(r(`group:g${i}#member@group:g${i + 1}#member`));
    g.add(r("group:g30#member@user:deep"));
    const deep = { type: "user", id: "deep" };
    expect(check(g, { type: "group", id: "g0" }, "member", deep)).toBe(true);
    expect(codeOf(() => check(g, { type: "group", id: "g0" }, "member", deep, { maxDepth: 10 }))).toBe("max-depth-exceeded");
  });
});

const texts: Array<{ name: string; text: string; message: string }> = JSON.parse(readFileSync(new URL("./cases/relationship-texts.json", import.meta.url), "utf8"));

describe("relationship text that cannot be read names what it carries", () => {
  for (const t of texts) {
    it(t.name, () => {
      expect(codeOf(() => parseRelationship(t.text))).toBe("invalid-relationship");
      expect(() => parseRelationship(t.text)).toThrow(t.message);
    });
  }
  it("a subject id carrying an expiration is named when added, and changes nothing", () => {
    const graph = new RelationshipGraph(compileSchema(SCHEMA));
    const bad = { resourceType: "doc", resourceId: "d", relation: "viewer", subjectType: "user", subjectId: "u[expiration:2030-01-01T00:00:00Z]" };
    expect(() => graph.add(bad)).toThrow("carries an expiration");
    expect(graph.size).toBe(0);
  });
  it("quotes at most a bounded part of the text", () => {
    const long = `doc:d#viewer@${"x".repeat(10_000)}`;
    let message = "";
    try {
      parseRelationship(long);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.length).toBeLessThan(300);
  });
});
