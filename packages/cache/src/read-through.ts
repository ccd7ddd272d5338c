import type { Cache } from "./cache.js";
import { CacheError } from "./errors.js";
import { type CacheMetrics, noopCacheMetrics } from "./metrics.js";

export interface Codec<T> {
  encode(value: T): string;
  decode(text: string): T;
}

export const jsonCodec: Codec<unknown> = { encode: (v) => JSON.stringify(v), decode: (t) => JSON.parse(t) as unknown };

export interface ReadThroughOptions<T> {
  /** Deadline for each cache round trip; past it the source answers (default 100 ms). */
  timeoutMs?: number;
  /** Entry lifetime; omitted = no expiry. */
  ttlMs?: number;
  metrics?: CacheMetrics;
  /** Label for metrics (default "cache"). */
  name?: string;
  codec?: Codec<T>;
  /** Values for which this returns false are returned but not stored (e.g. "not found"). */
  shouldStore?: (value: T) => boolean;
  /** A cached value for which this returns false is stale: counted as a miss and loaded again. */
  accept?: (value: T) => boolean;
}

export interface ReadThroughResult<T> {
  value: T;
  from: "cache" | "source";
}

/** Races `promise` against a deadline; the loser is ignored (its rejection is swallowed). */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CacheError("cache-timeout", `${what} took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  promise.catch(() => {});
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const codeOf = (err: unknown) => (err instanceof CacheError ? err.code : "cache-unavailable");

/**
 * Cache-aside read: a hit answers from the cache; a miss, or any cache failure (down, slow,
 * undecodable entry), answers from `loader`. The cache is an optimisation only: its failures are
 * counted in `metrics` and never surface to the caller; errors of `loader` do.
 */
export async function readThrough<T>(cache: Cache, key: string, loader: () => Promise<T>, options: ReadThroughOptions<T> = {}): Promise<ReadThroughResult<T>> {
  const timeoutMs = options.timeoutMs ?? 100;
  const metrics = options.metrics ?? noopCacheMetrics;
  const name = options.name ?? "cache";
  const codec = options.codec ?? (jsonCodec as Codec<T>);

  let cacheUsable = true;
  try {
    const cached = await withTimeout(cache.get(key), timeoutMs, `cache get '${key}'`);
    if (cached !== undefined) {
      try {
        const value = codec.decode(cached);
        if (options.accept?.(value) ?? true) {
          metrics.hit(name);
          return { value, from: "cache" };
        }
        metrics.miss(name);
      } catch {
        metrics.failure(name, "decode", "invalid-value");
      }
    } else {
      metrics.miss(name);
    }
  } catch (err) {
    if (err instanceof CacheError && (err.code === "invalid-key" || err.code === "invalid-value")) throw err;
    metrics.failure(name, "get", codeOf(err));
    // A cache that just failed is likely still failing: do not pay a second timeout for the write.
    cacheUsable = false;
  }

  const value = await loader();
  if (cacheUsable && (options.shouldStore?.(value) ?? true)) {
    try {
      await withTimeout(cache.set(key, codec.encode(value), options.ttlMs), timeoutMs, `cache set '${key}'`);
    } catch (err) {
      metrics.failure(name, "set", codeOf(err));
    }
  }
  return { value, from: "source" };
}
