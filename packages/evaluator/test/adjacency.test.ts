import { describe, expect, it } from "vitest";
import { Adjacency } from "../src/graph/adjacency.js";

/** Deterministic PRNG (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const contents = (index: Adjacency) => [...index.entries()].map(([key, values]) => [key, [...values].sort((a, b) => a - b)] as const).sort((a, b) => a[0] - b[0]);

const reference = (pairs: Map<number, Set<number>>) =>
  [...pairs]
    .filter(([, s]) => s.size > 0)
    .map(([key, s]) => [key, [...s].sort((a, b) => a - b)] as const)
    .sort((a, b) => a[0] - b[0]);

describe("adjacency (compact base + overlay)", () => {
  // Key ranges: dense non-negative (a base with dense views), negative keys (subject-set codes),
  // and sparse (a sorted key array); each loaded in bulk, then changed, compacted and changed again.
  const shapes = [
    { name: "dense keys", keys: 300, minKey: 0, values: 400, bulk: 3000 },
    { name: "negative keys", keys: 300, minKey: -150, values: 400, bulk: 3000 },
    { name: "sparse keys", keys: 20, minKey: 0, values: 50, bulk: 200, spread: 100_000 },
    // Thousands of sparse keys, negative and positive: the hash table from key to range wraps and chains.
    { name: "many sparse keys, negative too", keys: 3000, minKey: -1500, values: 30, bulk: 4000, spread: 1024 },
    { name: "long lists (sets, binary search)", keys: 4, minKey: 0, values: 600, bulk: 1500 },
    { name: "many keys changed (writes fold the overlay into the base)", keys: 20_000, minKey: 0, values: 8, bulk: 60_000, folds: true },
  ];
  for (const shape of shapes) {
    it(`agrees with a reference map: ${shape.name}`, () => {
      const rand = random(shape.bulk);
      const key = () => (shape.minKey + Math.floor(rand() * shape.keys)) * (shape.spread ?? 1);
      const value = () => Math.floor(rand() * shape.values) - 20;
      const expected = new Map<number, Set<number>>();
      const index = new Adjacency();
      const keys: number[] = [];
      const values: number[] = [];
      for (let i = 0; i < shape.bulk; i++) {
        const k = key();
        const v = value();
        if (expected.get(k)?.has(v)) continue;
        (expected.get(k) ?? expected.set(k, new Set()).get(k)!).add(v);
        keys.push(k);
        values.push(v);
      }
      index.load(Int32Array.from(keys), Int32Array.from(values));
      expect(contents(index)).toEqual(reference(expected));
      for (let step = 0; step < 12_000; step++) {
        const k = key();
        const v = value();
        const had = expected.get(k)?.has(v) ?? false;
        expect(index.has(k, v)).toBe(had);
        if (rand() < 0.5) {
          expect(index.add(k, v)).toBe(!had);
          (expected.get(k) ?? expected.set(k, new Set()).get(k)!).add(v);
        } else {
          expect(index.remove(k, v)).toBe(had);
          expected.get(k)?.delete(v);
        }
        const list = index.get(k);
        expect(list === undefined ? [] : [...list].sort((a, b) => a - b)).toEqual([...(expected.get(k) ?? [])].sort((a, b) => a - b));
        if (step === 5000 && !shape.folds) index.compact();
        if (step % 2000 === 1999) expect(contents(index)).toEqual(reference(expected));
      }
      // About 5,000 base keys were changed: without folding, as many overlay lists.
      if (shape.folds) expect(index.overlayKeys).toBeLessThan(2000);
      index.compact(true);
      expect(index.overlayKeys).toBe(0);
      expect(contents(index)).toEqual(reference(expected));
    });
  }

  it("hands out a dense view only while it is current, and compacts once it is read often", () => {
    const index = new Adjacency();
    index.load(Int32Array.from([0, 0, 2]), Int32Array.from([5, 3, 7]));
    const view = index.dense()!;
    expect([...view.offsets]).toEqual([0, 2, 2, 3]);
    expect([...view.targets]).toEqual([3, 5, 7]);
    index.add(1, 9);
    expect(index.dense()).toBeUndefined();
    let dense = index.dense();
    for (let i = 0; i < 100 && !dense; i++) dense = index.dense();
    expect(dense && [...dense.targets]).toEqual([3, 5, 9, 7]);
  });

  it("reads a sparse base by range without ever growing it, before and after writes", () => {
    const index = new Adjacency();
    // 40 keys spread over a range of 400,000: sparse (a dense offsets array would be 1.6 MB).
    const keys: number[] = [];
    const values: number[] = [];
    for (let k = 0; k < 40; k++) for (let v = 0; v < 3; v++) keys.push(k * 10_000), values.push(k * 7 + v);
    index.load(Int32Array.from(keys), Int32Array.from(values));
    const held = () => index.baseOffsets.byteLength + index.baseTargets.byteLength;
    const bytes = held();
    expect(bytes).toBeLessThan(1000);
    const read = (key: number) => {
      const i = index.range(key)!;
      return i < 0 ? [] : [...index.baseTargets.subarray(index.baseOffsets[i]!, index.baseOffsets[i + 1]!)];
    };
    for (let round = 0; round < 500; round++) expect(index.dense()).toBeUndefined();
    expect(held()).toBe(bytes);
    expect(read(30_000)).toEqual([21, 22, 23]);
    expect(read(30_001)).toEqual([]);
    expect(index.range(-5)).toBe(-1);
    // A write: the overlay answers (range is undefined) until reads fold it, into a sparse base again.
    index.add(30_000, 99);
    expect(index.range(30_000)).toBeUndefined();
    for (let round = 0; round < 500; round++) expect(index.dense()).toBeUndefined();
    expect(index.overlayKeys).toBe(0);
    expect(read(30_000)).toEqual([21, 22, 23, 99]);
    expect(held()).toBe(bytes + 4);
  });
});

describe("adjacency base taken from elsewhere (a checkpoint)", () => {
  const loaded = (keys: number[], values: number[]) => {
    const index = new Adjacency();
    index.load(Int32Array.from(keys), Int32Array.from(values));
    return index;
  };

  it("keeps sparse keys as a sorted key array and round-trips dense, negative and sparse bases", () => {
    const sparse = loaded([90_000, 5, 5, 40_000], [1, 3, 2, 7]);
    const base = sparse.base();
    expect(base.keys && [...base.keys]).toEqual([5, 40_000, 90_000]);
    expect([...base.offsets]).toEqual([0, 2, 3, 4]);
    expect([...base.targets]).toEqual([2, 3, 7, 1]);
    for (const index of [sparse, loaded([0, 0, 2], [5, 3, 7]), loaded([-3, 4, -3], [1, 1, 0])]) {
      const copy = Adjacency.fromBase(index.base(), -10, 100_000, 0, 10);
      if (typeof copy === "string") throw new Error(copy);
      expect(contents(copy)).toEqual(contents(index));
      expect(copy.pairs).toBe(index.pairs);
      // Still a live index: a change lands in the overlay, the taken arrays stay untouched.
      const targets = index.base().targets.slice();
      expect(copy.add(7, 9)).toBe(true);
      expect(copy.remove(7, 9)).toBe(true);
      expect([...index.base().targets]).toEqual([...targets]);
    }
  });

  it("refuses a base with an index out of range, out of order or repeated", () => {
    const good = () => {
      const b = loaded([1, 1, 3, 50_000], [4, 6, 2, 8]).base();
      return { keys: b.keys?.slice(), offsets: b.offsets.slice(), targets: b.targets.slice(), bias: b.bias };
    };
    expect(typeof Adjacency.fromBase(good(), 0, 60_000, 0, 10)).not.toBe("string");
    const cases: Array<[string, (b: ReturnType<typeof good>) => void, RegExp]> = [
      ["a value beyond the nodes", (b) => (b.targets[3] = 10), /out of range/],
      ["a value below the nodes", (b) => (b.targets[0] = -1), /out of range/],
      ["a key below the range", (b) => (b.keys![0] = -1), /key -1 out of range/],
      ["values of a range descending", (b) => ((b.targets[0] = 6), (b.targets[1] = 4)), /order/],
      ["a key beyond the nodes", (b) => (b.keys![2] = 70_000), /out of range/],
      ["keys out of order", (b) => (b.keys![1] = 1), /not sorted/],
      ["a repeated value", (b) => (b.targets[1] = 4), /order/],
      ["offsets descending", (b) => (b.offsets[2] = 1), /descend/],
      ["an offset past the targets", (b) => (b.offsets[1] = 2 ** 30), /overrun/],
      ["offsets not spanning the targets", (b) => (b.offsets[3] = 5), /span/],
      ["a negative bias", (b) => (b.bias = -1), /bias|shape/],
    ];
    for (const [what, damage, reason] of cases) {
      const b = good();
      damage(b);
      expect(Adjacency.fromBase(b, 0, 60_000, 0, 10), what).toMatch(reason);
    }
    expect(Adjacency.fromBase({ keys: undefined, offsets: Int32Array.from([0, 1]), targets: Int32Array.from([0]), bias: 5 }, 0, 10, 0, 10)).toMatch(/key -5 out of range/);
    // Dense: the last key with values is past the range (keys ascend with the ranges).
    expect(Adjacency.fromBase({ keys: undefined, offsets: Int32Array.from([0, 0, 1, 1]), targets: Int32Array.from([0]), bias: 0 }, 0, 1, 0, 10)).toMatch(/key 1 out of range/);
  });
});
