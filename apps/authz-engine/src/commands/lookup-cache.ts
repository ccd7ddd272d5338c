import type { IdsInOrder } from "@gatehouse/evaluator";
import { LRUCache } from "lru-cache";

/**
 * Lookup results (in order as far as any reader has asked, `IdsInOrder`) of the graph at its
 * applied revision, so paging through a large result set at an unchanged revision computes the
 * reverse lookup once. Requests are answered at the applied revision, which only grows, so a new
 * revision (or a new graph: a reloaded schema) empties the cache: a lazily ordered result holds
 * its graph, and must not keep a replaced one alive. Small LRU (lru-cache).
 */
export class LookupCache {
  private readonly entries: LRUCache<string, IdsInOrder>;
  private graph: object | undefined;
  private revision = -1;

  constructor(capacity = 32) {
    this.entries = new LRUCache({ max: capacity });
  }

  getOrCompute(graph: object, revision: number, key: string, compute: () => IdsInOrder): IdsInOrder {
    if (graph !== this.graph || revision !== this.revision) {
      this.entries.clear();
      this.graph = graph;
      this.revision = revision;
    }
    const hit = this.entries.get(key);
    if (hit) return hit;
    const value = compute();
    this.entries.set(key, value);
    return value;
  }
}
