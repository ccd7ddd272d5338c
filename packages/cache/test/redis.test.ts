import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisCache, createCountingMetrics, createRedisCache, readThrough } from "@gatehouse/cache";
import { type ThrowawayRedis, sharedRedisUrl, startThrowawayRedis } from "@gatehouse/cache/testing";
import { runCacheConformance } from "./conformance.js";

// Waiting for a connection is bounded only against a hang: a loaded machine can take seconds.
const READY_BOUND_MS = 300_000;

// Each test file gets its own key prefix: many packages' tests share one Redis.
runCacheConformance("redis", async () => {
  const cache = createRedisCache({ url: await sharedRedisUrl(), keyPrefix: `test:cache:${randomUUID()}:` });
  await cache.waitUntilReady(READY_BOUND_MS);
  return cache;
});

describe("redis cache configuration", () => {
  it("rejects URLs that are not redis://", () => {
    expect(() => createRedisCache({ url: "http://localhost:6379" })).toThrow(/redis:\/\//);
    expect(() => createRedisCache({ url: "not a url" })).toThrow(/invalid Redis URL/);
    expect(() => createRedisCache({ url: "redis://x", commandTimeoutMs: 0 })).toThrow(/commandTimeoutMs/);
  });
});

describe("redis down or slow never changes an answer", () => {
  let server: ThrowawayRedis;
  let cache: RedisCache;
  beforeAll(async () => {
    server = await startThrowawayRedis();
    cache = createRedisCache({ url: server.url, keyPrefix: "t:", commandTimeoutMs: 200 });
    await cache.waitUntilReady(READY_BOUND_MS);
  });
  afterAll(async () => {
    await cache.close();
    await server.stop();
  });

  it("falls back to the source when Redis stops mid-test, counts it, and heals when it returns", async () => {
    const metrics = createCountingMetrics();
    let source = "v1";
    const load = async () => source;
    expect(await readThrough(cache, "k", load, { metrics })).toEqual({ value: "v1", from: "source" });
    expect(await readThrough(cache, "k", load, { metrics })).toEqual({ value: "v1", from: "cache" });

    await server.stop();
    source = "v2";
    // Redis is down for good here, so an answer at all proves the read did not wait on it.
    expect(await readThrough(cache, "k", load, { metrics, timeoutMs: 150 })).toEqual({ value: "v2", from: "source" });
    expect(metrics.counts().failures).toBe(1);

    await server.restart();
    await cache.waitUntilReady(READY_BOUND_MS);
    expect(await readThrough(cache, "k", load, { metrics })).toEqual({ value: "v2", from: "source" });
    expect(await readThrough(cache, "k", load, { metrics })).toEqual({ value: "v2", from: "cache" });
  });

  it("falls back when Redis is slow (clients paused) and reports a timeout", async () => {
    const metrics = createCountingMetrics();
    // CLIENT PAUSE stalls every client's commands on the server: a stand-in for an overloaded Redis.
    const { Redis } = await import("ioredis");
    const raw = new Redis(server.url);
    // Paused far longer than the read's timeout, so a slow machine cannot let the pause end before
    // the read is sent; the pause is ended by restarting this throwaway server (a paused server
    // holds its own UNPAUSE too).
    await raw.call("CLIENT", "PAUSE", "600000", "ALL");
    try {
      const result = await readThrough(cache, "slow", async () => "fresh", { metrics, timeoutMs: 100 });
      expect(result).toEqual({ value: "fresh", from: "source" });
      expect(metrics.counts().failuresByCode).toEqual({ "get:cache-timeout": 1 });
    } finally {
      raw.disconnect();
      await server.stop();
      await server.restart();
    }
  });
});
