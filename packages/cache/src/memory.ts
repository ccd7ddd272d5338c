import { LRUCache } from "lru-cache";
import { type Cache, assertValidKey, assertValidTtl, assertValidValue } from "./cache.js";
import { CacheError } from "./errors.js";

export interface MemoryCacheOptions {
  /** Evicts least-recently-used entries beyond this count (default 100,000). */
  maxEntries?: number;
  /** Injectable clock for tests. */
  now?: () => number;
}

/** In-process cache: the embedded default. lru-cache, bounded by count, with a TTL per entry. */
export function createMemoryCache(options: MemoryCacheOptions = {}): Cache {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isInteger(maxEntries) || maxEntries <= 0) throw new CacheError("invalid-config", "maxEntries must be a positive integer");
  const now = options.now ?? Date.now;
  const entries = new LRUCache<string, string>({ max: maxEntries, perf: { now } });
  let closed = false;

  const ensureOpen = () => {
    if (closed) throw new CacheError("cache-closed", "memory cache is closed");
  };
  const read = (key: string): string | undefined => entries.get(key);

  return {
    kind: "memory",
    async get(key) {
      ensureOpen();
      assertValidKey(key);
      return read(key);
    },
    async getMany(keys) {
      ensureOpen();
      keys.forEach(assertValidKey);
      return keys.map(read);
    },
    async set(key, value, ttlMs) {
      ensureOpen();
      assertValidKey(key);
      assertValidValue(value);
      assertValidTtl(ttlMs);
      entries.set(key, value, ttlMs === undefined ? {} : { ttl: ttlMs });
    },
    async delete(key) {
      ensureOpen();
      assertValidKey(key);
      entries.delete(key);
    },
    async close() {
      closed = true;
      entries.clear();
    },
  };
}
