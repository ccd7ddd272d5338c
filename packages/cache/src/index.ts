// Public entry of @gatehouse/cache.
export type { Cache } from "./cache.js";
export { MAX_KEY_LENGTH } from "./cache.js";
export { CacheError, isCacheError } from "./errors.js";
export type { CacheErrorCode } from "./errors.js";
export { createMemoryCache } from "./memory.js";
export type { MemoryCacheOptions } from "./memory.js";
export { createRedisCache } from "./redis.js";
export type { RedisCache, RedisCacheOptions } from "./redis.js";
export { createCountingMetrics, noopCacheMetrics } from "./metrics.js";
export type { CacheCounts, CacheMetrics, CacheOperation } from "./metrics.js";
export { jsonCodec, readThrough, withTimeout } from "./read-through.js";
export type { Codec, ReadThroughOptions, ReadThroughResult } from "./read-through.js";
export { PATTERN2_LIST_CACHE_DEFAULT_ENABLED, Pattern2ListCache, pattern2Key } from "./pattern2.js";
export type { Pattern2ListCacheOptions, Pattern2Query } from "./pattern2.js";
