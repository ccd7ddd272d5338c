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
const idsOf = (g: RelationshipGraph) => Array.from({ length: g.nodeCount }, (_, node) => g.idOf(node));

/** Thousands of objects (4,400 or so: an id table of 8,192 slots), indexes bulk-loaded, some edges removed since. */
function big(): RelationshipGraph {
  const graph = new RelationshipGraph(model);
  for (let i = 0; i < 3000; i++) {
    graph.add(parseRelationship(`doc:d${i}#parent@folder:f${i % 40}`));
    graph.add(parseRelationship(`doc:d${i}#viewer@user:u${i % 500}`));
    if (i % 7 === 0) graph.add(parseRelationship(`doc:d${i}#viewer@group:g${i % 30}#member`));
    if (i % 3 === 0) graph.add(parseRelationship(`group:g${i % 30}#member@user:u${i}`));
  }
  graph.compact();
  for (let i = 0; i < 200; i++) graph.remove(parseRelationship(`doc:d${i * 5}#viewer@user:u${(i * 5) % 500}`));
  return graph;
}

describe("graph codec", () => {
  it("round-trips every relationship, node numbering and answer", () => {
    const graph = sample();
    const copy = decodeGraph(model, encodeGraph(graph));
    expect(sorted(copy)).toEqual(sorted(graph));
    expect(copy.size).toBe(graph.size);
    expect(idsOf(copy)).toEqual(idsOf(graph));
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

  it("never writes to the bytes it decoded (the graph views them; a caller may keep them)", () => {
    const bytes = encodeGraph(sample());
    const kept = bytes.slice();
    const copy = decodeGraph(model, bytes);
    for (let i = 0; i < 300; i++) copy.add(parseRelationship(`doc:new${i}#viewer@group:g${i}#member`));
    copy.remove(parseRelationship("doc:big#viewer@user:u7"));
    copy.compact();
    expect(check(copy, { type: "doc", id: "new5" }, "view", { type: "user", id: "alice" })).toBe(false);
    expect(bytes).toEqual(kept);
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
    // The last index's last value (the last word that is not padding): far beyond every node.
    const words = new Int32Array(damaged.buffer);
    let last = words.length - 1;
    while (words[last] === 0) last--;
    words[last] = 1 << 30;
    expect(() => decodeGraph(model, damaged)).toThrow(/inconsistent/);
  });
});

describe("damaged graph encodings", () => {
  /** The encoding with its JSON description replaced by `edit`'s result (sections moved along). */
  const withDescription = (bytes: Uint8Array, edit: (d: Record<string, unknown>) => unknown) => {
    const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
    const description = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as Record<string, unknown>;
    const head = new TextEncoder().encode(JSON.stringify(edit(description)));
    const rest = bytes.subarray(8 + Math.ceil(length / 8) * 8);
    const out = new Uint8Array(8 + Math.ceil(head.length / 8) * 8 + rest.length);
    new DataView(out.buffer).setUint32(0, head.length, true);
    out.set(head, 8);
    out.set(rest, 8 + Math.ceil(head.length / 8) * 8);
    return out;
  };

  it("refuse a description of the wrong shape with an EvaluationError", () => {
    const good = encodeGraph(sample());
    expect(
      sorted(
        decodeGraph(
          model,
          withDescription(good, (d) => d),
        ),
      ),
    ).toEqual(sorted(sample()));
    for (const edit of [
      (d: Record<string, unknown>) => ({ ...d, expiring: [null] }),
      (d: Record<string, unknown>) => ({ ...d, indexes: "all" }),
      (d: Record<string, unknown>) => ({ ...d, indexes: [[0, [0, 0, 0, 1, 0]]] }),
      (d: Record<string, unknown>) => ({ ...d, nodes: -1 }),
      (d: Record<string, unknown>) => ({ ...d, nodes: 1.5 }),
      (d: Record<string, unknown>) => ({ ...d, idBytes: "12" }),
      (d: Record<string, unknown>) => ({ ...d, v: 2 }),
      () => null,
      () => [1, 2],
    ]) {
      expect(() => decodeGraph(model, withDescription(good, edit)), JSON.stringify(edit({ v: 3 }))).toThrow(EvaluationError);
    }
  });

  // Each decode must also end quickly: an offset or count read from the bytes must never drive a loop
  // past the arrays (vitest's timeout catches one that does).
  it("fail with an EvaluationError, or decode to a graph that answers without failing otherwise", () => {
    const good = encodeGraph(sample());
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    let refused = 0;
    for (let round = 0; round < 1000; round++) {
      const bytes = good.slice();
      for (let f = 1 + Math.floor(random() * 3); f > 0; f--) {
        const at = Math.floor(random() * bytes.length);
        if (random() < 0.7) bytes[at]! ^= 1 << Math.floor(random() * 8);
        else bytes[at] = [0, 0xff, 0x7f, 0x80][Math.floor(random() * 4)]!;
      }
      let copy: RelationshipGraph;
      try {
        copy = decodeGraph(model, bytes);
      } catch (error) {
        expect(error).toBeInstanceOf(EvaluationError);
        refused++;
        continue;
      }
      for (const user of ["alice", "bob", "u3"]) {
        try {
          check(copy, { type: "doc", id: "d1" }, "view", { type: "user", id: user });
          lookupResources(copy, "doc", "view", { type: "user", id: user });
        } catch (error) {
          expect(error).toBeInstanceOf(EvaluationError);
        }
      }
    }
    expect(refused).toBeGreaterThan(500);
  });
});

describe("graph encoding at a size where the indexes are bulk-loaded", () => {
  // Thousands of objects: the id index has grown past its first table, the per-resource lists are
  // a compact base after decoding, and the copy must keep working as a live graph.

  it("round-trips contents, node numbering and id lookups, and keeps accepting changes", () => {
    const graph = big();
    const copy = decodeGraph(model, encodeGraph(graph));
    expect(sorted(copy)).toEqual(sorted(graph));
    expect(idsOf(copy)).toEqual(idsOf(graph));
    idsOf(graph).forEach((id, node) => expect(copy.nodeOf(graph.nodeType[node]!, id)).toBe(node));
    expect(copy.nodeOf(model.typeIndex("doc")!, "nowhere")).toBe(-1);
    for (const user of ["u1", "u5", "u42", "u2999", "nobody"]) {
      const list = (g: RelationshipGraph) => lookupResources(g, "doc", "view", { type: "user", id: user });
      expect(list(copy)).toEqual(list(graph));
    }
    // New objects past the carried table's room, then removals of loaded and new edges.
    for (let i = 0; i < 5000; i++) expect(copy.add(parseRelationship(`doc:n${i}#viewer@user:v${i}`))).toBe(true);
    expect(copy.remove(parseRelationship("doc:d1#viewer@user:u1"))).toBe(true);
    expect(copy.remove(parseRelationship("doc:n7#viewer@user:v7"))).toBe(true);
    expect(check(copy, { type: "doc", id: "n8" }, "view", { type: "user", id: "v8" })).toBe(true);
    expect(check(copy, { type: "doc", id: "d1" }, "view", { type: "user", id: "u1" })).toBe(false);
    expect(copy.size).toBe(graph.size + 5000 - 2);
  });

  it("refuses a damaged id index", () => {
    const bytes = encodeGraph(big());
    const head = new DataView(bytes.buffer).getUint32(0, true);
    const description = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + head))) as { nodes: number; idBytes: number };
    const pad = (n: number) => Math.ceil(n / 8) * 8;
    // The index follows the description, the node types, the id offsets and the id bytes; one of
    // its (tag, node + 1) pairs is made to repeat another's node.
    const index = 8 + pad(head) + pad(description.nodes * 2) + pad((description.nodes + 1) * 4) + pad(description.idBytes);
    const damaged = bytes.slice();
    const pairs = new Int32Array(damaged.buffer, index, 256);
    const nodeAt = (from: number) => pairs.findIndex((v, i) => i > from && i % 2 === 1 && v !== 0);
    const first = nodeAt(-1);
    pairs[nodeAt(first)] = pairs[first]!;
    expect(() => decodeGraph(model, damaged)).toThrow(/id index/);
  });
});

describe("a graph encoded into shared memory and decoded as this process's own (engine threads)", () => {
  /** Whether `g` finds every object of `of` under its node number. */
  const findsAll = (g: RelationshipGraph, of: RelationshipGraph) => idsOf(of).every((id, node) => g.nodeOf(of.nodeType[node]!, id) === node);
  const shared = (graph: RelationshipGraph) => encodeGraph(graph, { allocate: (length) => new Uint8Array(new SharedArrayBuffer(length)) });

  it("answers as the checked decode does, takes new objects without writing the shared bytes, and encodes them all again", () => {
    const graph = big();
    const bytes = shared(graph);
    expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    const kept = bytes.slice();
    const copy = decodeGraph(model, bytes, { trusted: true, shared: true });
    expect(sorted(copy)).toEqual(sorted(decodeGraph(model, bytes)));
    const user = model.typeIndex("user")!;
    const users = decodeGraph(model, bytes).objectIds(user);
    // 1,600 new objects: more than the added objects' first table holds, fewer than the carried table's room.
    for (let i = 0; i < 800; i++) expect(copy.add(parseRelationship(`doc:n${i}#viewer@user:v${i}`))).toBe(true);
    expect(bytes).toEqual(kept);
    expect(findsAll(copy, copy)).toBe(true);
    expect(copy.nodeOf(user, "v800")).toBe(-1);
    // The per-type lists, built on first use from the node types, hold the new objects too.
    expect(copy.objectIds(user)).toEqual([...users, ...Array.from({ length: 800 }, (_, i) => `v${i}`)]);
    copy.add(parseRelationship("doc:n800#viewer@user:v800"));
    expect(copy.objectIds(user).at(-1)).toBe("v800");
    expect(check(copy, { type: "doc", id: "n8" }, "view", { type: "user", id: "v8" })).toBe(true);
    expect(check(copy, { type: "doc", id: "d7" }, "view", { type: "user", id: "u7" })).toBe(true);
    // Encoded again (the next shared base), every object old and new is found by the checked decode.
    const again = decodeGraph(model, encodeGraph(copy));
    expect(sorted(again)).toEqual(sorted(copy));
    expect(findsAll(again, copy)).toBe(true);
    // Past the carried table's room: the table grows into one of its own with every object.
    for (let i = 0; i < 5000; i++) copy.add(parseRelationship(`doc:m${i}#viewer@user:w${i}`));
    expect(bytes).toEqual(kept);
    expect(findsAll(copy, copy)).toBe(true);
    expect(sorted(decodeGraph(model, encodeGraph(copy)))).toEqual(sorted(copy));
  });

  it("never folds an index into a copy of its own on reads: the overlay answers until the next shared base", () => {
    const graph = big();
    graph.add(parseRelationship("folder:late#viewer@user:late"));
    const copy = decodeGraph(model, shared(graph), { trusted: true, shared: true });
    // doc#view reads doc#parent through its dense view (an arrow): a write leaves it stale.
    const parent = model.slotOf(model.typeIndex("doc")!, "parent");
    const ask = (g: RelationshipGraph, doc: string) => check(g, { type: "doc", id: doc }, "view", { type: "user", id: "late" });
    copy.add(parseRelationship("doc:d5#parent@folder:late"));
    for (let i = 0; i < 500; i++) ask(copy, `d${i}`);
    expect(copy.forward[parent]!.overlayKeys).toBe(1);
    expect(ask(copy, "d5")).toBe(true);
    expect(ask(copy, "d6")).toBe(false);
    // A graph decoded as a checkpoint is its own: reads fold it.
    const own = decodeGraph(model, encodeGraph(graph));
    own.add(parseRelationship("doc:d5#parent@folder:late"));
    for (let i = 0; i < 500; i++) ask(own, `d${i}`);
    expect(own.forward[parent]!.overlayKeys).toBe(0);
    expect(ask(own, "d5")).toBe(true);
  });
});

describe("a shared graph with room after its node arrays: one thread writes the objects the commits add, the others find them there", () => {
  const withRoom = (graph: RelationshipGraph, nodes: number, idBytes: number) => encodeGraph(graph, { allocate: (length) => new Uint8Array(new SharedArrayBuffer(length)), room: { nodes, idBytes } });
  /** Whether the graph's id bytes are still the shared buffer's (no copy of its own). */
  const inShared = (g: RelationshipGraph, bytes: Uint8Array) => g.idArrays().bytes.buffer === bytes.buffer;
  const commit = (i: number) => [parseRelationship(`doc:n${i}#viewer@user:v${i}`), parseRelationship(`doc:n${i}#parent@folder:f${i % 40}`)];

  it("holds the added objects once: the comparing graphs never copy the node arrays, and every graph answers alike", () => {
    const graph = big();
    const bytes = withRoom(graph, 1000, 16_000);
    const writer = decodeGraph(model, bytes, { trusted: true, shared: true, room: "write" });
    const readers = [0, 1].map(() => decodeGraph(model, bytes, { trusted: true, shared: true, room: "compare" }));
    const own = decodeGraph(model, encodeGraph(graph));
    // Commit by commit, the writer first (as the first thread applies each before posting it).
    for (let i = 0; i < 400; i++) for (const g of [writer, ...readers, own]) for (const r of commit(i)) g.add(r);
    for (const g of [writer, ...readers]) {
      expect(inShared(g, bytes)).toBe(true);
      expect(g.nodeCount).toBe(own.nodeCount);
      expect(idsOf(g)).toEqual(idsOf(own));
      expect(sorted(g)).toEqual(sorted(own));
      expect(check(g, { type: "doc", id: "n7" }, "view", { type: "user", id: "v7" })).toBe(true);
      expect(check(g, { type: "doc", id: "n7" }, "view", { type: "user", id: "v8" })).toBe(false);
      // Encoded again (the next shared base): every object, old and new, is there.
      expect(sorted(decodeGraph(model, encodeGraph(g)))).toEqual(sorted(own));
    }
    expect(readers[0]!.objectIds(model.typeIndex("user")!)).toEqual(own.objectIds(model.typeIndex("user")!));
  });

  it("copies the node arrays only when it finds another object there, or once the room is used up, and answers alike", () => {
    const graph = big();
    const bytes = withRoom(graph, 300, 3000);
    const writer = decodeGraph(model, bytes, { trusted: true, shared: true, room: "write" });
    const reader = decodeGraph(model, bytes, { trusted: true, shared: true, room: "compare" });
    const stray = decodeGraph(model, bytes, { trusted: true, shared: true, room: "compare" });
    const own = decodeGraph(model, encodeGraph(graph));
    for (let i = 0; i < 100; i++) for (const g of [writer, reader, own]) for (const r of commit(i)) g.add(r);
    // A graph that adds something else than the writer did copies at once; the shared bytes stay.
    const written = bytes.slice();
    stray.add(parseRelationship("doc:elsewhere#viewer@user:nobody"));
    expect(inShared(stray, bytes)).toBe(false);
    expect(bytes).toEqual(written);
    expect(stray.nodeOf(model.typeIndex("user")!, "nobody")).toBeGreaterThan(0);
    expect(reader.nodeOf(model.typeIndex("user")!, "nobody")).toBe(-1);
    // 300 objects of room: the writer outgrows it and copies; the reader then finds zeros and copies too.
    for (let i = 100; i < 400; i++) for (const g of [writer, reader, own]) for (const r of commit(i)) g.add(r);
    for (const g of [writer, reader]) {
      expect(inShared(g, bytes)).toBe(false);
      expect(idsOf(g)).toEqual(idsOf(own));
      expect(sorted(g)).toEqual(sorted(own));
      expect(check(g, { type: "doc", id: "n399" }, "view", { type: "user", id: "v399" })).toBe(true);
    }
  });

  it("is read only by this process's trusted decode: a stored encoding with room is refused", () => {
    const bytes = withRoom(sample(), 10, 100);
    expect(() => decodeGraph(model, bytes)).toThrow(/spare room/);
    // Without `room`, the decoded graph copies before it adds anything (it never writes shared bytes).
    const kept = bytes.slice();
    const g = decodeGraph(model, bytes, { trusted: true, shared: true });
    g.add(parseRelationship("doc:new#viewer@user:new"));
    expect(inShared(g, bytes)).toBe(false);
    expect(bytes).toEqual(kept);
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
    const view = (g: RelationshipGraph, who: string, now: number) => check(g, { type: "doc", id: "d" }, "view", { type: "user", id: who }, { now });
    expect(view(copy, "temp", 1_000)).toBe(true);
    expect(view(copy, "temp", 3_000)).toBe(false);
    expect(view(copy, "perm", 3_000)).toBe(true);
  });
});
