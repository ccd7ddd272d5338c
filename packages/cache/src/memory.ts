import { type Cache, assertValidKey, assertValidTtl, assertValidValue } from "./cache.js";
import { CacheError } from "./errors.js";

export interface MemoryCacheOptions {
  /** Evicts least-recently-used entries beyond this count (default 100,000). */
  maxEntries?: number;
  /** Injectable clock for tests. */
  now?: () => number;
}

interface Entry {
  value: string;
  expiresAt: number; // Infinity when the entry never expires
}

/** In-process cache: the embedded default. LRU by insertion order of a Map (re-inserted on read). */
export function createMemoryCache(options: MemoryCacheOptions = {}): Cache {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isInteger(maxEntries) || maxEntries <= 0) throw new CacheError("invalid-config", "maxEntries must be a positive integer");
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let closed = false;

  const ensureOpen = () => {
    if (closed) throw new CacheError("cache-closed", "memory cache is closed");
  };
  const read = (key: string): string | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    entries.delete(key);
    entries.set(key, entry);
    return entry.value;
  };

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
      entries.delete(key);
      entries.set(key, { value, expiresAt: ttlMs === undefined ? Infinity : now() + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
      }
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
