/**
 * Sorted lookup results keyed by the applied revision, so paging through a large result set at an
 * unchanged revision computes the reverse lookup once. A new revision simply means new keys; old
 * entries age out of the small LRU and never need invalidating.
 */
export class LookupCache {
  private readonly entries = new Map<string, string[]>();

  constructor(private readonly capacity = 32) {}

  getOrCompute(revision: number, key: string, compute: () => string[]): string[] {
    const fullKey = `${revision}\u0000${key}`;
    const hit = this.entries.get(fullKey);
    if (hit) {
      // Re-insert to mark as most recently used.
      this.entries.delete(fullKey);
      this.entries.set(fullKey, hit);
      return hit;
    }
    const value = compute();
    this.entries.set(fullKey, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return value;
  }
}
