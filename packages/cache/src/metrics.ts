/** What a cache user reports; apps wire it to their Prometheus counters. */
export type CacheOperation = "get" | "set" | "delete" | "decode";

export interface CacheMetrics {
  hit(cacheName: string): void;
  miss(cacheName: string): void;
  /** The cache failed (down, slow, corrupt entry) and the caller fell back to the source. */
  failure(cacheName: string, operation: CacheOperation, code: string): void;
}

export const noopCacheMetrics: CacheMetrics = { hit() {}, miss() {}, failure() {} };

export interface CacheCounts {
  hits: number;
  misses: number;
  failures: number;
  failuresByCode: Record<string, number>;
}

/** In-process counters: handy for tests and benchmarks, and as the source for a /metrics adapter. */
export function createCountingMetrics(): CacheMetrics & { counts(): CacheCounts } {
  const counts: CacheCounts = { hits: 0, misses: 0, failures: 0, failuresByCode: {} };
  return {
    hit: () => void counts.hits++,
    miss: () => void counts.misses++,
    failure: (_name, operation, code) => {
      counts.failures++;
      const label = `${operation}:${code}`;
      counts.failuresByCode[label] = (counts.failuresByCode[label] ?? 0) + 1;
    },
    counts: () => ({ ...counts, failuresByCode: { ...counts.failuresByCode } }),
  };
}
