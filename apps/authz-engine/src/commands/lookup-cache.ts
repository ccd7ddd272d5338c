import { LRUCache } from "lru-cache";
import type { SortedIds } from "./sorted-ids.js";

/**
 * Lookup results (sorted as far as any reader has asked, `SortedIds`) keyed by the applied revision, so paging through a large result set at an
 * unchanged revision computes the reverse lookup once. A new revision simply means new keys; old
 * entries age out of the small LRU (lru-cache) and never need invalidating.
 */
export class LookupCache {
  private readonly entries: LRUCache<string, SortedIds>;

  constructor(capacity = 32) {
    this.entries = new LRUCache({ max: capacity });
  }

  getOrCompute(revision: number, key: string, compute: () => SortedIds): SortedIds {
    const fullKey = `${revision}\u0000${key}`;
    const hit = this.entries.get(fullKey);
    if (hit) return hit;
    const value = compute();
    this.entries.set(fullKey, value);
    return value;
  }
}
