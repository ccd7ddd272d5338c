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
  // and sparse (kept as lists); each loaded in bulk, then changed, compacted and changed again.
  const shapes = [
    { name: "dense keys", keys: 300, minKey: 0, values: 400, bulk: 3000 },
    { name: "negative keys", keys: 300, minKey: -150, values: 400, bulk: 3000 },
    { name: "sparse keys", keys: 20, minKey: 0, values: 50, bulk: 200, spread: 100_000 },
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
});
