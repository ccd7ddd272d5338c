import { describe, expect, it } from "vitest";
import { createMemoryCache } from "@gatehouse/cache";
import { runCacheConformance } from "./conformance.js";

runCacheConformance("memory", async () => createMemoryCache());

describe("memory cache specifics", () => {
  it("evicts the least recently used entry beyond maxEntries", async () => {
    const cache = createMemoryCache({ maxEntries: 2 });
    await cache.set("a", "1");
    await cache.set("b", "2");
    await cache.get("a"); // a is now the most recent
    await cache.set("c", "3");
    expect(await cache.getMany(["a", "b", "c"])).toEqual(["1", undefined, "3"]);
  });

  it("rejects a non-positive maxEntries", () => {
    expect(() => createMemoryCache({ maxEntries: 0 })).toThrow(/maxEntries/);
  });
});
