// The check cache (subject closures and per-subject results tables kept between checks) is bounded:
// whatever the number of distinct subjects checked, it never holds more than its byte and subject
// limits, counted entry by entry after every check, and its answers are those of an uncached check.
import { afterEach, describe, expect, it } from "vitest";
import { checkCacheStats, check, compileSchema, configureCheckCache, DEFAULT_CHECK_CACHE_LIMITS, parseRelationship, RelationshipGraph } from "../src/index.js";

const SCHEMA = `definition user {}
definition group {
  relation t_member: user | group#member
  permission member = t_member
}
definition role {
  relation t_view: user:*
  permission view = t_view
}
definition binding {
  relation t_subject: user | group#member
  relation t_role: role
  permission subject = t_subject
  permission view = subject & t_role->view
}
definition workspace {
  relation t_parent: workspace
  relation t_binding: binding
  permission view = t_binding->view + t_parent->view
}
definition host {
  relation t_workspace: workspace
  permission view = t_workspace->view
}`;

const USERS = 3000;
const GROUPS = 60;
const WORKSPACES = 12;
const HOSTS = 240;

/** Users in groups, groups bound on workspaces (many bindings each, so checks take the closure path), hosts in workspaces. */
function graph(): RelationshipGraph {
  const g = new RelationshipGraph(compileSchema(SCHEMA));
  const add = (t: string) => g.add(parseRelationship(t));
  add("role:viewer#t_view@user:*");
  for (let w = 1; w < WORKSPACES; w++) add(`workspace:w${w}#t_parent@workspace:w${Math.floor((w - 1) / 2)}`);
  for (let u = 0; u < USERS; u++) add(`group:g${u % GROUPS}#t_member@user:u${u}`);
  for (let b = 0; b < GROUPS; b++) {
    add(`binding:b${b}#t_subject@group:g${b}#member`);
    add(`binding:b${b}#t_role@role:viewer`);
    add(`workspace:w${(b * 7) % WORKSPACES}#t_binding@binding:b${b}`);
  }
  for (let h = 0; h < HOSTS; h++) add(`host:h${h}#t_workspace@workspace:w${h % WORKSPACES}`);
  return g;
}

/** Every user checks three hosts, twice (the second time from its results table when it is still cached). */
function* asks(): Generator<[string, string]> {
  for (let round = 0; round < 2; round++) for (let u = 0; u < USERS; u++) for (let k = 0; k < 3; k++) yield [`h${(u * 31 + k * 17) % HOSTS}`, `u${u}`];
}

afterEach(() => {
  configureCheckCache(DEFAULT_CHECK_CACHE_LIMITS);
});

describe("check cache limits", () => {
  it("never holds more than its byte and subject limits, whatever the subjects checked, and answers as an uncached check", () => {
    configureCheckCache({ maxBytes: 0 });
    const uncached = graph();
    const expected = [...asks()].map(([h, u]) => check(uncached, { type: "host", id: h }, "view", { type: "user", id: u }));
    expect(checkCacheStats(uncached)).toMatchObject({ subjects: 0, resultSubjects: 0, bytes: 0 });
    expect(expected.filter(Boolean).length).toBeGreaterThan(expected.length / 10);
    expect(expected.filter((a) => !a).length).toBeGreaterThan(expected.length / 10);

    const maxBytes = 96 * 1024;
    const maxSubjects = 400;
    configureCheckCache({ maxBytes, maxSubjects });
    const g = graph();
    let i = 0;
    let peakBytes = 0;
    let peakSubjects = 0;
    let peakEntries = 0;
    for (const [h, u] of asks()) {
      expect(check(g, { type: "host", id: h }, "view", { type: "user", id: u })).toBe(expected[i++]);
      const stats = checkCacheStats(g);
      // Each generation turns over at half the budget, so both together stay within it, plus the
      // entry that crossed the line (a closure or a table of a few KiB here).
      expect(stats.bytes).toBeLessThanOrEqual(maxBytes + 8 * 1024);
      expect(stats.subjects + stats.resultSubjects).toBeLessThanOrEqual(maxSubjects + 2);
      // Entries of the results tables: 16 bytes each, all counted in the bytes.
      expect(stats.resultEntries * 16).toBeLessThanOrEqual(stats.bytes);
      expect(stats.seen).toBeLessThanOrEqual(maxSubjects);
      expect(stats.spare).toBeLessThanOrEqual(256);
      peakBytes = Math.max(peakBytes, stats.bytes);
      peakSubjects = Math.max(peakSubjects, stats.subjects);
      peakEntries = Math.max(peakEntries, stats.resultEntries);
    }
    // The cache was used (closures and results tables), filled up and was cut back many times:
    // 3,000 subjects went through a cache that holds at most 400.
    expect(peakSubjects).toBeGreaterThan(50);
    expect(peakEntries).toBeGreaterThan(100);
    expect(peakBytes).toBeGreaterThan(maxBytes / 2);
  });

  it("refuses a limit that is not a non-negative integer and keeps the ones in force", () => {
    configureCheckCache({ maxBytes: 1234, maxSubjects: 10 });
    for (const bad of [{ maxBytes: -1 }, { maxBytes: 1.5 }, { maxSubjects: Number.NaN }, { maxBytes: Number.POSITIVE_INFINITY }, { other: 1 } as never]) {
      expect(() => configureCheckCache(bad)).toThrow(RangeError);
    }
    expect(configureCheckCache({})).toEqual({ maxBytes: 1234, maxSubjects: 10 });
    expect(checkCacheStats(graph())).toMatchObject({ maxBytes: 1234, maxSubjects: 10 });
  });

  it("has defaults that bound it to a few MiB", () => {
    expect(DEFAULT_CHECK_CACHE_LIMITS.maxBytes).toBeLessThanOrEqual(16 * 2 ** 20);
    expect(checkCacheStats(graph())).toMatchObject(DEFAULT_CHECK_CACHE_LIMITS);
  });
});
