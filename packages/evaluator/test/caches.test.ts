// Cross-request caches (subject closures for anchored arrows, per-type sort order for lookups):
// a cached answer must never survive a write that changes it.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { check, compileSchema, lookupResources, parseRelationship, RelationshipGraph } from "../src/index.js";
import { closureCacheOf } from "../src/eval/closure-cache.js";
import { sortedTypeOf } from "../src/eval/lookup-resources.js";
import { seededRandom } from "./support/random-graphs.js";

// The role-binding shape: `subject & t_role->p` reached through an arrow over bindings.
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

const r = parseRelationship;
const alice = { type: "user", id: "alice" };
const host = { type: "host", id: "h1" };

function setup(): RelationshipGraph {
  const g = new RelationshipGraph(compileSchema(SCHEMA));
  for (const t of [
    "role:viewer#t_view@user:*",
    "workspace:child#t_parent@workspace:root",
    "host:h1#t_workspace@workspace:child",
    "group:inner#t_member@user:alice",
    "group:outer#t_member@group:inner#member",
    "binding:b1#t_subject@group:outer#member",
    "binding:b1#t_role@role:viewer",
    "workspace:root#t_binding@binding:b1",
  ])
    g.add(r(t));
  // Several bindings per workspace so checks take the anchored (closure) path.
  for (let i = 0; i < 20; i++) {
    g.add(r(`binding:other${i}#t_subject@user:u${i}`));
    g.add(r(`binding:other${i}#t_role@role:viewer`));
    g.add(r(`workspace:${i % 2 ? "root" : "child"}#t_binding@binding:other${i}`));
  }
  return g;
}

describe("subject closure cache", () => {
  it("is filled by a check and reused by the next one", () => {
    const g = setup();
    expect(check(g, host, "view", alice)).toBe(true);
    expect(closureCacheOf(g).size).toBe(1);
    expect(check(g, { type: "workspace", id: "child" }, "view", alice)).toBe(true);
    expect(check(g, { type: "workspace", id: "nowhere" }, "view", alice)).toBe(false);
  });

  it("never answers from a closure older than the last write", () => {
    const writes: Array<[string, "add" | "remove", boolean]> = [
      // Each write flips the answer for alice on h1; the cache was warm before each.
      ["group:inner#t_member@user:alice", "remove", false],
      ["group:inner#t_member@user:alice", "add", true],
      ["group:outer#t_member@group:inner#member", "remove", false],
      ["binding:b2#t_subject@user:alice", "add", false], // b2 is not on any workspace yet
      ["binding:b2#t_role@role:viewer", "add", false],
      ["workspace:child#t_binding@binding:b2", "add", true],
      ["binding:b2#t_role@role:viewer", "remove", false],
      ["group:outer#t_member@group:inner#member", "add", true],
      ["binding:b1#t_subject@group:outer#member", "remove", false],
      ["binding:b1#t_subject@user:alice", "add", true],
      ["workspace:child#t_parent@workspace:root", "remove", false],
      ["workspace:child#t_parent@workspace:root", "add", true],
      ["role:viewer#t_view@user:*", "remove", false],
    ];
    const g = setup();
    expect(check(g, host, "view", alice)).toBe(true);
    for (const [text, op, expected] of writes) {
      const before = g.mutations;
      expect(op === "add" ? g.add(r(text)) : g.remove(r(text))).toBe(true);
      expect(g.mutations).toBeGreaterThan(before);
      expect({ text, op, answer: check(g, host, "view", alice) }).toEqual({ text, op, answer: expected });
      expect(lookupResources(g, "host", "view", alice)).toEqual(expected ? ["h1"] : []);
    }
  });

  it("is not touched by writes that change nothing, nor keyed by the owner's revision", () => {
    const g = setup();
    expect(check(g, host, "view", alice)).toBe(true);
    const before = g.mutations;
    expect(g.add(r("group:inner#t_member@user:alice"))).toBe(false);
    expect(g.remove(r("group:inner#t_member@user:nobody"))).toBe(false);
    expect(g.mutations).toBe(before);
    expect(closureCacheOf(g).size).toBe(1);
    g.revision = 42; // owner's label only
    g.remove(r("group:inner#t_member@user:alice"));
    g.revision = 42;
    expect(check(g, host, "view", alice)).toBe(false);
  });

  it("keeps subjects apart, subject sets included, and agrees with a fresh graph after each write", () => {
    const g = setup();
    const b1 = { type: "binding", id: "b1" };
    const subjects = [alice, { type: "user", id: "bob" }, { type: "user", id: "u3" }, { type: "group", id: "outer", relation: "member" }, { type: "group", id: "inner", relation: "member" }];
    const fresh = (): RelationshipGraph => {
      const copy = new RelationshipGraph(g.model);
      for (const rel of g.relationships()) copy.add(rel);
      return copy;
    };
    const answers = (graph: RelationshipGraph): boolean[] => subjects.flatMap((s) => [check(graph, host, "view", s), check(graph, b1, "subject", s), check(graph, b1, "view", s)]);
    expect(answers(g)).toEqual([true, true, true, false, false, false, true, false, false, false, true, false, false, true, false]);
    for (const [text, op] of [
      ["group:outer#t_member@group:inner#member", "remove"],
      ["binding:other3#t_subject@user:u3", "remove"],
      ["binding:b1#t_subject@group:inner#member", "add"],
      ["binding:other3#t_subject@user:bob", "add"],
    ] as const) {
      if (op === "add") g.add(r(text));
      else g.remove(r(text));
      expect({ text, answers: answers(g) }).toEqual({ text, answers: answers(fresh()) });
    }
    expect(check(g, host, "view", { type: "user", id: "bob" })).toBe(true);
    expect(check(g, host, "view", { type: "user", id: "u3" })).toBe(false);
  });
});

describe("sorted lookup output", () => {
  it("orders large results like a string sort and picks up objects added later", () => {
    const g = new RelationshipGraph(compileSchema(SCHEMA));
    g.add(r("binding:b#t_subject@user:alice"));
    g.add(r("binding:b#t_role@role:viewer"));
    g.add(r("role:viewer#t_view@user:*"));
    g.add(r("workspace:w#t_binding@binding:b"));
    const ids = Array.from({ length: 3000 }, (_, i) => `h${(i * 7919) % 3000}`);
    for (const id of ids) g.add(r(`host:${id}#t_workspace@workspace:w`));
    g.add(r("host:other#t_workspace@workspace:elsewhere"));
    expect(lookupResources(g, "host", "view", alice)).toEqual([...ids].sort());
    for (const id of ["h-new", "a", "zz", "H0"]) g.add(r(`host:${id}#t_workspace@workspace:w`));
    g.remove(r("host:h17#t_workspace@workspace:w"));
    const expected = [...ids.filter((id) => id !== "h17"), "h-new", "a", "zz", "H0"].sort();
    expect(lookupResources(g, "host", "view", alice)).toEqual(expected);
    g.add(r("host:other#t_workspace@workspace:w"));
    expect(lookupResources(g, "host", "view", alice)).toEqual([...expected, "other"].sort());
  });
});

describe("incremental per-type order", () => {
  it("equals a full sort after every batch of random adds and removes, and lookups stay sorted", () => {
    const rnd = seededRandom(7);
    const g = new RelationshipGraph(compileSchema(SCHEMA));
    g.add(r("binding:b#t_subject@user:alice"));
    g.add(r("binding:b#t_role@role:viewer"));
    g.add(r("role:viewer#t_view@user:*"));
    g.add(r("workspace:w#t_binding@binding:b"));
    const hostType = g.model.typeIndex("host")!;
    const present = new Map<string, string>(); // host id → workspace
    const randomId = (): string => {
      const alphabet = "aZ09-_h";
      let id = "";
      for (let k = 1 + Math.floor(rnd() * 6); k > 0; k--) id += alphabet[Math.floor(rnd() * alphabet.length)];
      return id;
    };
    for (let round = 0; round < 40; round++) {
      // Mostly single additions (the common write), sometimes a burst; removals of random present hosts.
      const adds = round === 0 ? 2500 : rnd() < 0.2 ? Math.floor(rnd() * 300) : 1;
      for (let k = 0; k < adds; k++) {
        const id = randomId() + String(Math.floor(rnd() * 100_000));
        const ws = rnd() < 0.9 ? "w" : "elsewhere";
        if (g.add(r(`host:${id}#t_workspace@workspace:${ws}`))) present.set(id, ws);
      }
      for (let k = Math.floor(rnd() * 5); k > 0 && present.size > 0; k--) {
        const ids = [...present.keys()];
        const id = ids[Math.floor(rnd() * ids.length)]!;
        expect(g.remove(r(`host:${id}#t_workspace@workspace:${present.get(id)}`))).toBe(true);
        present.delete(id);
      }
      if (round % 3 === 2) continue; // several writes between uses of the order
      const order = sortedTypeOf(g, hostType);
      const all = g.objectIds(hostType);
      expect(order.ids).toEqual([...all].sort());
      expect(order.nodes.map((node) => g.idOf(node))).toEqual(order.ids);
      expect(order.nodes.map((node) => order.rank[node])).toEqual(order.ids.map((_, rank) => rank));
      const visible = [...present].filter(([, ws]) => ws === "w").map(([id]) => id);
      expect(lookupResources(g, "host", "view", alice)).toEqual(visible.sort());
    }
  });
});

describe("per-subject results carried between checks", () => {
  it("never survive a write: random adds and removes, every answer equals a freshly built graph's", () => {
    const rnd = seededRandom(11);
    const g = setup();
    // Candidate writes on every part of the path: membership, nesting, binding subject/role/placement, hierarchy, role grant.
    const pool = [
      "group:inner#t_member@user:alice",
      "group:inner#t_member@user:bob",
      "group:outer#t_member@group:inner#member",
      "binding:b1#t_subject@group:outer#member",
      "binding:b1#t_subject@user:bob",
      "binding:b1#t_role@role:viewer",
      "binding:b3#t_subject@user:alice",
      "binding:b3#t_role@role:viewer",
      "workspace:child#t_binding@binding:b3",
      "workspace:root#t_binding@binding:b1",
      "workspace:child#t_parent@workspace:root",
      "workspace:leaf#t_parent@workspace:child",
      "host:h2#t_workspace@workspace:leaf",
      "host:h1#t_workspace@workspace:child",
      "role:viewer#t_view@user:*",
    ].map((t) => r(t));
    const subjects = [alice, { type: "user", id: "bob" }, { type: "user", id: "u4" }, { type: "group", id: "inner", relation: "member" }];
    const objects = [
      { type: "host", id: "h1" },
      { type: "host", id: "h2" },
      { type: "workspace", id: "child" },
      { type: "workspace", id: "root" },
      { type: "workspace", id: "leaf" },
      { type: "binding", id: "b1" },
    ];
    const answers = (graph: RelationshipGraph): string[] => subjects.flatMap((s) => objects.map((o) => `${o.type}:${o.id}#view@${s.type}:${s.id} ${check(graph, o, "view", s)}`));
    const fresh = (): RelationshipGraph => {
      const copy = new RelationshipGraph(g.model);
      for (const rel of g.relationships()) copy.add(rel);
      return copy;
    };
    let changed = 0;
    let previous = answers(g);
    for (let step = 0; step < 150; step++) {
      const t = pool[Math.floor(rnd() * pool.length)]!;
      if (g.has(t)) g.remove(t);
      else g.add(t);
      answers(g); // warm every subject's results, then ask again from the warm tables
      const now = answers(g);
      expect({ step, now }).toEqual({ step, now: answers(fresh()) });
      if (now.join() !== previous.join()) changed++;
      previous = now;
    }
    expect(changed).toBeGreaterThan(20);
    expect(closureCacheOf(g).resultSubjects).toBeGreaterThan(0);
  });

  it("are kept from a subject's second check on: the first uses the evaluation's own table", () => {
    const g = new RelationshipGraph(compileSchema(SCHEMA));
    for (const t of ["group:c#t_member@user:alice", "group:d#t_member@user:bob"]) g.add(r(t));
    const bob = { type: "user", id: "bob" };
    const cache = closureCacheOf(g);
    expect(check(g, { type: "group", id: "c" }, "member", alice)).toBe(true);
    expect(cache.resultSubjects).toBe(0);
    expect(check(g, { type: "group", id: "d" }, "member", alice)).toBe(false);
    expect(cache.resultSubjects).toBe(1);
    expect(check(g, { type: "group", id: "d" }, "member", bob)).toBe(true);
    expect(cache.resultSubjects).toBe(1);
    // A write forgets who was seen: alice's next check is a first one again.
    g.add(r("group:e#t_member@user:alice"));
    expect(check(g, { type: "group", id: "e" }, "member", alice)).toBe(true);
    expect(cache.resultSubjects).toBe(0);
  });

  it("a cycle grants nothing by itself, every time, and leaves other answers intact", () => {
    const g = new RelationshipGraph(compileSchema(SCHEMA));
    for (const t of ["group:a#t_member@group:b#member", "group:b#t_member@group:a#member", "group:c#t_member@user:alice", "group:a#t_member@user:bob"]) g.add(r(t));
    const c = { type: "group", id: "c" };
    const a = { type: "group", id: "a" };
    expect(check(g, c, "member", alice)).toBe(true);
    for (let i = 0; i < 3; i++) {
      expect(check(g, a, "member", alice)).toBe(false);
      expect(check(g, c, "member", alice)).toBe(true);
    }
    // bob is found on a, and through the loop on b.
    expect(check(g, a, "member", { type: "user", id: "bob" })).toBe(true);
    expect(check(g, { type: "group", id: "b" }, "member", { type: "user", id: "bob" })).toBe(true);
    expect(check(g, a, "member", { type: "user", id: "bob" })).toBe(true);
  });

  it("never keep an answer given while a cycle was cut: it is settled with the cycle, in any order", () => {
    // x and y name each other; x also holds alice through z. Checking x reads y while x is in
    // progress: y is false only for as long as x is assumed false, and x turns out true.
    const texts = ["group:x#t_member@group:y#member", "group:y#t_member@group:x#member", "group:x#t_member@group:z#member", "group:z#t_member@user:alice", "group:w#t_member@group:w#member"];
    const orders = [
      ["w", "x", "y", "z"],
      ["x", "y", "w", "z"],
      ["y", "x", "z", "w"],
      ["z", "w", "y", "x"],
    ];
    for (const order of orders) {
      for (const added of [texts, [...texts].reverse()]) {
        const g = new RelationshipGraph(compileSchema(SCHEMA));
        for (const t of added) g.add(r(t));
        // Twice round: from its second check on a subject's answers come from its results table.
        for (let round = 0; round < 2; round++) {
          for (const id of order) expect(check(g, { type: "group", id }, "member", alice), `${id} after ${order} (${round})`).toBe(id !== "w");
        }
        expect(lookupResources(g, "group", "member", alice)).toEqual(["x", "y", "z"]);
      }
    }
  });
});

describe("one evaluation reused by every check of a graph", () => {
  it("carries nothing from one check to the next: subjects, graphs, depth limits and failures interleaved", () => {
    const a = setup();
    const b = setup();
    b.add(r("binding:b1#t_subject@user:bob"));
    b.remove(r("group:inner#t_member@user:alice"));
    // A cycle on `a` only, so some checks fail midway.
    a.add(r("group:x#t_member@group:y#member"));
    a.add(r("group:y#t_member@group:x#member"));
    const subjects = [alice, { type: "user", id: "bob" }, { type: "user", id: "u4" }, { type: "user", id: "u1" }, { type: "group", id: "inner", relation: "member" }];
    const asks: Array<[RelationshipGraph, { type: string; id: string }, string, (typeof subjects)[number], number | undefined]> = [];
    for (const graph of [a, b]) {
      for (const subject of subjects) {
        for (const maxDepth of [undefined, 2, 3]) {
          asks.push([graph, host, "view", subject, maxDepth]);
          asks.push([graph, { type: "workspace", id: "root" }, "view", subject, maxDepth]);
          asks.push([graph, { type: "group", id: "x" }, "member", subject, maxDepth]);
        }
      }
    }
    const answer = (graph: RelationshipGraph, ...q: [{ type: string; id: string }, string, (typeof subjects)[number], number | undefined]): string => {
      try {
        return String(check(graph, q[0], q[1], q[2], q[3] === undefined ? undefined : { maxDepth: q[3] }));
      } catch (error) {
        return (error as { code?: string }).code ?? "error";
      }
    };
    // Each answer as a graph that has never been checked gives it (its own evaluation, empty caches).
    const expected = asks.map(([graph, ...q]) => {
      const copy = new RelationshipGraph(graph.model);
      for (const rel of graph.relationships()) copy.add(rel);
      return answer(copy, ...q);
    });
    expect(expected).toContain("true");
    expect(expected).toContain("false");
    expect(expected).toContain("max-depth-exceeded");
    const rnd = seededRandom(5);
    for (let round = 0; round < 4; round++) {
      const order = asks.map((_, i) => i).sort(() => rnd() - 0.5);
      for (const i of order) {
        const [graph, ...q] = asks[i]!;
        expect({ i, got: answer(graph, ...q) }).toEqual({ i, got: expected[i] });
      }
    }
  });
});

describe("the checks' per-graph state", () => {
  it("does not keep a dropped graph alive", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    let dropped: RelationshipGraph | undefined = setup();
    expect(check(dropped, host, "view", alice)).toBe(true);
    const ref = new WeakRef(dropped);
    dropped = undefined;
    // Another graph is not checked meanwhile: nothing but the checks' own state could hold it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(ref.deref()).toBeUndefined();
  });
});

describe("lookup depth guard", () => {
  it("never passes a lookup across a write that lengthens a chain past the depth or shortens it", () => {
    const graph = new RelationshipGraph(compileSchema(SCHEMA));
    // s0 <- s1 <- ... <- s23 hold u: SpiceDB's lookup dispatches two levels a link (t_member, then member).
    for (let i = 0; i < 23; i++) graph.add(parseRelationship(`group:s${i}#t_member@group:s${i + 1}#member`));
    graph.add(parseRelationship("group:s23#t_member@user:u"));
    const u = { type: "user", id: "u" };
    const all = Array.from({ length: 24 }, (_, i) => `s${i}`).sort();
    expect(lookupResources(graph, "group", "member", u)).toEqual(all);
    expect(lookupResources(graph, "group", "member", u)).toEqual(all);
    const longer = parseRelationship("group:top#t_member@group:s0#member");
    graph.add(longer);
    expect(() => lookupResources(graph, "group", "member", u)).toThrow(/max depth/);
    graph.remove(longer);
    expect(lookupResources(graph, "group", "member", u)).toEqual(all);
    graph.add(longer);
    expect(() => lookupResources(graph, "group", "member", u)).toThrow(/max depth/);
  });

  it("answers across a write that closes a cycle or opens one (a cycle adds nothing)", () => {
    const graph = new RelationshipGraph(compileSchema(SCHEMA));
    for (const text of ["group:a#t_member@group:b#member", "group:b#t_member@user:u"]) graph.add(parseRelationship(text));
    const u = { type: "user", id: "u" };
    expect(lookupResources(graph, "group", "member", u)).toEqual(["a", "b"]);
    const loop = parseRelationship("group:b#t_member@group:a#member");
    graph.add(loop);
    expect(lookupResources(graph, "group", "member", u)).toEqual(["a", "b"]);
    expect(lookupResources(graph, "group", "member", { type: "user", id: "v" })).toEqual([]);
    graph.remove(loop);
    expect(lookupResources(graph, "group", "member", u)).toEqual(["a", "b"]);
  });
});
