// One behavioural suite every Cache implementation must pass.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cache, CacheError, Pattern2ListCache, createCountingMetrics, readThrough } from "@gatehouse/cache";

export function runCacheConformance(name: string, open: () => Promise<Cache>): void {
  describe(`Cache conformance: ${name}`, () => {
    let cache: Cache;
    beforeAll(async () => {
      cache = await open();
    });
    afterAll(async () => {
      await cache.close();
    });

    it("returns undefined for a missing key", async () => {
      expect(await cache.get("missing")).toBeUndefined();
    });

    it("stores and returns a value without expiry", async () => {
      await cache.set("k1", "v1");
      expect(await cache.get("k1")).toBe("v1");
    });

    it("overwrites an existing value", async () => {
      await cache.set("k2", "a");
      await cache.set("k2", "b");
      expect(await cache.get("k2")).toBe("b");
    });

    it("keeps empty strings and unicode intact", async () => {
      await cache.set("empty", "");
      await cache.set("uni", "ünïcødé ✓ \n tab\t");
      expect(await cache.get("empty")).toBe("");
      expect(await cache.get("uni")).toBe("ünïcødé ✓ \n tab\t");
    });

    it("deletes a key, and deleting a missing key is fine", async () => {
      await cache.set("gone", "x");
      await cache.delete("gone");
      await cache.delete("never-there");
      expect(await cache.get("gone")).toBeUndefined();
    });

    it("expires entries after their ttl", async () => {
      // No timing assumption: wait until the short entry is gone (however slow the machine), and the
      // one with a ttl far beyond the test is still there.
      await cache.set("long", "y", 3_600_000);
      await cache.set("short", "x", 50);
      while ((await cache.get("short")) !== undefined) await new Promise((r) => setTimeout(r, 20));
      expect(await cache.get("long")).toBe("y");
    });

    it("reads many keys in order, with holes for missing ones", async () => {
      await cache.set("m1", "one");
      await cache.set("m3", "three");
      expect(await cache.getMany(["m1", "m2", "m3"])).toEqual(["one", undefined, "three"]);
      expect(await cache.getMany([])).toEqual([]);
    });

    it("rejects bad keys and ttls with typed errors", async () => {
      await expect(cache.get("")).rejects.toMatchObject({ code: "invalid-key" });
      await expect(cache.set("k", "v", 0)).rejects.toMatchObject({ code: "invalid-value" });
      await expect(cache.set("k", "v", 1.5)).rejects.toBeInstanceOf(CacheError);
      await expect(cache.set("x".repeat(2000), "v")).rejects.toMatchObject({ code: "invalid-key" });
    });

    it("readThrough loads once, then answers from the cache", async () => {
      const metrics = createCountingMetrics();
      let loads = 0;
      const loader = async () => ({ n: ++loads });
      const first = await readThrough(cache, "rt", loader, { metrics });
      const second = await readThrough(cache, "rt", loader, { metrics });
      expect(first).toEqual({ value: { n: 1 }, from: "source" });
      expect(second).toEqual({ value: { n: 1 }, from: "cache" });
      expect(metrics.counts()).toMatchObject({ hits: 1, misses: 1, failures: 0 });
    });

    it("readThrough does not store values refused by shouldStore", async () => {
      let loads = 0;
      const loader = async () => (++loads, null);
      await readThrough(cache, "neg", loader, { shouldStore: (v) => v !== null });
      await readThrough(cache, "neg", loader, { shouldStore: (v) => v !== null });
      expect(loads).toBe(2);
    });

    it("readThrough reloads and replaces a cached value refused by accept", async () => {
      const metrics = createCountingMetrics();
      await readThrough(cache, "fresh", async () => ({ v: 1 }));
      const reloaded = await readThrough(cache, "fresh", async () => ({ v: 2 }), { metrics, accept: (value) => value.v >= 2 });
      const kept = await readThrough(cache, "fresh", async () => ({ v: 3 }), { metrics, accept: (value) => value.v >= 2 });
      expect([reloaded, kept]).toEqual([
        { value: { v: 2 }, from: "source" },
        { value: { v: 2 }, from: "cache" },
      ]);
      expect(metrics.counts()).toMatchObject({ hits: 1, misses: 1 });
    });

    it("readThrough treats an undecodable entry as a miss and counts it", async () => {
      const metrics = createCountingMetrics();
      await cache.set("corrupt", "{not json");
      const result = await readThrough(cache, "corrupt", async () => 7, { metrics });
      expect(result).toEqual({ value: 7, from: "source" });
      expect(metrics.counts().failuresByCode).toEqual({ "decode:invalid-value": 1 });
    });

    it("Pattern2ListCache keys answers by revision", async () => {
      const lists = new Pattern2ListCache(cache);
      const query = { tenant: "redhat/1", revision: 5, subject: "rbac/principal:redhat/a", relation: "inventory_host_view" };
      const a = await lists.getOrLoad(query, async () => ["w1"]);
      const b = await lists.getOrLoad(query, async () => ["stale"]);
      const c = await lists.getOrLoad({ ...query, revision: 6 }, async () => ["w1", "w2"]);
      expect([a, b, c]).toEqual([
        { value: ["w1"], from: "source" },
        { value: ["w1"], from: "cache" },
        { value: ["w1", "w2"], from: "source" },
      ]);
    });

    it("fails with cache-closed after close", async () => {
      const own = await open();
      await own.close();
      await expect(own.get("k")).rejects.toMatchObject({ code: "cache-closed" });
    });
  });
}
