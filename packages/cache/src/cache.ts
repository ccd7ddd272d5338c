import { CacheError } from "./errors.js";

/**
 * A string key/value cache. Values are opaque strings (callers pick the encoding);
 * `ttlMs` omitted means "no expiry". Every method may reject with a `CacheError`.
 */
export interface Cache {
  readonly kind: "memory" | "redis";
  get(key: string): Promise<string | undefined>;
  /** One round trip for many keys; result is aligned with `keys`. */
  getMany(keys: readonly string[]): Promise<(string | undefined)[]>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

export const MAX_KEY_LENGTH = 1024;

export function assertValidKey(key: string): void {
  if (typeof key !== "string" || key.length === 0) throw new CacheError("invalid-key", "cache key must be a non-empty string");
  if (key.length > MAX_KEY_LENGTH) throw new CacheError("invalid-key", `cache key longer than ${MAX_KEY_LENGTH} characters`);
}

export function assertValidValue(value: string): void {
  if (typeof value !== "string") throw new CacheError("invalid-value", "cache value must be a string");
}

export function assertValidTtl(ttlMs: number | undefined): void {
  if (ttlMs === undefined) return;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new CacheError("invalid-value", `ttlMs must be a positive integer, got ${String(ttlMs)}`);
}
