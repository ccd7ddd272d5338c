import { Redis } from "ioredis";
import { type Cache, assertValidKey, assertValidTtl, assertValidValue } from "./cache.js";
import { CacheError } from "./errors.js";

export interface RedisCacheOptions {
  /** `redis://host:port[/db]`, usually `REDIS_URL`. */
  url: string;
  /** Prepended to every key, so tenants of one Redis (apps, test files) never collide. */
  keyPrefix?: string;
  /** Per-command deadline; a slow Redis fails fast instead of stalling callers (default 250 ms). */
  commandTimeoutMs?: number;
  /** TCP connect deadline (default 1,000 ms). */
  connectTimeoutMs?: number;
}

export interface RedisCache extends Cache {
  readonly kind: "redis";
  /** Resolves once connected (or rejects with `cache-unavailable` after `timeoutMs`). */
  waitUntilReady(timeoutMs?: number): Promise<void>;
}

/**
 * Redis-backed cache. Commands issued while disconnected fail immediately (no offline queue)
 * and reconnection runs in the background, so a down Redis costs callers one fast failure, not a hang.
 */
export function createRedisCache(options: RedisCacheOptions): RedisCache {
  let parsed: URL;
  try {
    parsed = new URL(options.url);
  } catch (cause) {
    throw new CacheError("invalid-config", `invalid Redis URL '${options.url}'`, { cause });
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new CacheError("invalid-config", `Redis URL must use redis:// or rediss://, got '${parsed.protocol}'`);
  }
  const commandTimeoutMs = options.commandTimeoutMs ?? 250;
  if (!Number.isInteger(commandTimeoutMs) || commandTimeoutMs <= 0) throw new CacheError("invalid-config", "commandTimeoutMs must be a positive integer");

  const client = new Redis(options.url, {
    keyPrefix: options.keyPrefix ?? "",
    commandTimeout: commandTimeoutMs,
    connectTimeout: options.connectTimeoutMs ?? 1_000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Keep reconnecting forever, at most once a second: Redis coming back must heal the cache.
    retryStrategy: (attempt) => Math.min(50 * attempt, 1_000),
    lazyConnect: false,
  });
  // Connection errors are reported per command; without a listener ioredis would log them.
  client.on("error", () => {});
  let closed = false;

  async function run<T>(command: () => Promise<T>): Promise<T> {
    if (closed) throw new CacheError("cache-closed", "Redis cache is closed");
    try {
      return await command();
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      if (/timed out/i.test(message)) throw new CacheError("cache-timeout", `Redis command timed out after ${commandTimeoutMs} ms`, { cause });
      throw new CacheError("cache-unavailable", `Redis unavailable: ${message}`, { cause });
    }
  }

  return {
    kind: "redis",
    async get(key) {
      assertValidKey(key);
      const value = await run(() => client.get(key));
      return value ?? undefined;
    },
    async getMany(keys) {
      keys.forEach(assertValidKey);
      if (keys.length === 0) return [];
      const values = await run(() => client.mget(...keys));
      return values.map((v) => v ?? undefined);
    },
    async set(key, value, ttlMs) {
      assertValidKey(key);
      assertValidValue(value);
      assertValidTtl(ttlMs);
      await run(() => (ttlMs === undefined ? client.set(key, value) : client.set(key, value, "PX", ttlMs)));
    },
    async delete(key) {
      assertValidKey(key);
      await run(() => client.del(key));
    },
    async waitUntilReady(timeoutMs = 2_000) {
      if (client.status === "ready") return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          client.off("ready", onReady);
          reject(new CacheError("cache-unavailable", `Redis not ready within ${timeoutMs} ms`));
        }, timeoutMs);
        const onReady = () => {
          clearTimeout(timer);
          resolve();
        };
        client.once("ready", onReady);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
