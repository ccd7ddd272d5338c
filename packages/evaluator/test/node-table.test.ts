import { describe, expect, it } from "vitest";
import { NodeTable } from "../src/graph/node-table.js";

describe("node table (type, id) → node", () => {
  it("keeps the same id under several types apart, through growth, and finds nothing under a type without it", () => {
    const table = new NodeTable();
    const nodes = new Map<string, number>();
    // 6,000 ids under three types each: the table doubles several times (each time hashing the stored bytes again).
    for (let i = 0; i < 6000; i++) for (const type of [0, 1, 2]) nodes.set(`${type}:o${i}`, table.intern(type, `o${i}`));
    expect(new Set(nodes.values()).size).toBe(18_000);
    for (const [key, node] of nodes) {
      const [type, id] = [Number(key.slice(0, 1)), key.slice(2)];
      expect(table.find(type, id)).toBe(node);
      expect(table.intern(type, id)).toBe(node);
      expect(table.idOf(node)).toBe(id);
    }
    expect(table.find(3, "o1")).toBe(-1);
    expect(table.find(0, "o6000")).toBe(-1);
    expect(NodeTable.invalid(table.arrays(), 3)).toBeUndefined();
  });

  it("refuses carried arrays whose id table files a node under another type", () => {
    const table = new NodeTable();
    for (let i = 0; i < 100; i++) table.intern(i % 2, `o${i}`);
    const arrays = table.arrays();
    const damaged = { ...arrays, table: arrays.table.slice() };
    const at = damaged.table.findIndex((v, i) => i % 2 === 1 && v !== 0);
    // Flip the type in the entry's tag: a lookup under the other type would otherwise find this node.
    damaged.table[at - 1]! ^= 1;
    expect(NodeTable.invalid(damaged, 2)).toBe("id index entry");
    expect(NodeTable.invalid(arrays, 2)).toBeUndefined();
  });

  it("refuses carried arrays with a node type, an id offset or an id index entry out of bounds", () => {
    const table = new NodeTable();
    for (let i = 0; i < 100; i++) table.intern(i % 2, `o${i}`);
    const arrays = table.arrays();
    const copy = () => ({ ...arrays, types: arrays.types.slice(), offsets: arrays.offsets.slice(), table: arrays.table.slice() });
    const entry = (t: Int32Array, nth: number) => t.findIndex((v, i) => i % 2 === 1 && v !== 0 && nth-- === 0);
    const cases: Array<[string, (a: ReturnType<typeof copy>) => void, string | RegExp]> = [
      ["a type beyond the model's", (a) => (a.types[99] = 2), /node 99 has type 2/],
      ["an id offset descending", (a) => (a.offsets[50] = a.offsets[49]! - 1), "id offsets"],
      ["an id longer than any valid one", (a) => (a.offsets[50] = a.offsets[49]! + 2000), "id offsets"],
      ["offsets not ending at the id bytes", (a) => (a.offsets[100] = a.offsets[100]! + 1), "id offsets"],
      ["an entry past the nodes", (a) => (a.table[entry(a.table, 0)] = 101), "id index entry"],
      ["a negative entry", (a) => (a.table[entry(a.table, 0)] = -1), "id index entry"],
      ["a node filed twice", (a) => (a.table[entry(a.table, 1)] = a.table[entry(a.table, 0)]!), "id index entry"],
      ["a node missing", (a) => (a.table[entry(a.table, 0)] = 0), "id index count"],
    ];
    for (const [what, damage, reason] of cases) {
      const damaged = copy();
      damage(damaged);
      expect(NodeTable.invalid(damaged, 2), what).toMatch(reason);
    }
    expect(NodeTable.invalid(copy(), 2)).toBeUndefined();
  });

  it("checks the id index bucket by bucket past 2^16 nodes: a duplicate or a wrong type in a later bucket is refused", () => {
    const table = new NodeTable();
    for (let i = 0; i < 140_000; i++) table.intern(i % 3, `o${i}`);
    const arrays = table.arrays();
    expect(NodeTable.invalid(arrays, 3)).toBeUndefined();
    expect(NodeTable.invalid(arrays, 3, new Int32Array(140_000))).toBeUndefined();
    const at = (node: number) => arrays.table.findIndex((v, i) => i % 2 === 1 && v === node + 1);
    // Node 139,999 (third bucket) filed again in place of node 5 (first bucket): 5 is missing, 139,999 twice.
    const twice = { ...arrays, table: arrays.table.slice() };
    twice.table[at(5)] = 140_000;
    expect(NodeTable.invalid(twice, 3)).toBe("id index entry");
    // Node 100,000 (second bucket) under a tag of another type.
    const retyped = { ...arrays, table: arrays.table.slice() };
    retyped.table[at(100_000) - 1]! ^= 1;
    expect(NodeTable.invalid(retyped, 3)).toBe("id index entry");
  });

  it("looks up two objects at once exactly as two lookups would, found or not, first in their slot or not", () => {
    const table = new NodeTable();
    // 3/4 full after the last growth, so many objects sit past their first slot.
    for (let i = 0; i < 1500; i++) table.intern(i % 3, `o${i}`);
    const out = new Int32Array(2);
    const probes: Array<[number, string]> = [];
    for (let i = 0; i < 1600; i += 7) probes.push([i % 3, `o${i}`], [(i + 1) % 3, `o${i}`], [0, ""]);
    let found = 0;
    for (const [typeA, idA] of probes) {
      for (const [typeB, idB] of probes.slice(0, 40)) {
        table.findPair(typeA, idA, typeB, idB, out);
        expect([out[0], out[1]]).toEqual([table.find(typeA, idA), table.find(typeB, idB)]);
        if (out[0]! >= 0 && out[1]! >= 0) found++;
      }
    }
    expect(found).toBeGreaterThan(1000);
  });
});
