// Cross-request cache of subject closures: for a subject and an anchor slot (the `subject` in
// `subject & t_role->p`), the sorted nodes where the subject holds the anchor, e.g. every role
// binding the subject satisfies directly or through its groups, transitively. Computing it is a
// reverse walk whose cost grows with the bindings the subject reaches, so it runs once per subject
// and graph state. Keyed by the graph's mutation counter: any add or remove empties the cache.
//
// The same cache keeps, per subject, the check results it has completed ((node, slot) → true/false),
// so a subject's next check stops as soon as it reaches an object already evaluated for it (a host's
// workspace, or any ancestor). Cleared with everything else by any write.
import type { RelationshipGraph } from "../graph/relationship-graph.js";
import { Memo } from "./memo.js";

/** Probes of a closure (one per level of a check's walk up the hierarchy) before it gets a `via` index. */
const VIA_INDEX_AFTER = 24;

/** Where one subject holds one anchor slot, with per-tupleset indexes built on first use. */
export class AnchorClosure {
  /** tupleset slot → resource node → anchor nodes it points to through that tupleset. */
  private readonly byTupleset = new Map<number, Map<number, number[]>>();

  constructor(
    /** Sorted nodes where the subject holds the anchor. */
    readonly nodes: Int32Array,
  ) {}

  /** Probes answered without an index so far; `viaIndex` builds one after VIA_INDEX_AFTER. */
  private probes = 0;

  /**
   * The `via` index once the closure has been probed often enough (a subject's first check
   * should not pay for indexing every binding it holds); undefined until then, and the caller
   * filters the tuples of the arrow by `nodes` instead.
   */
  viaIndex(graph: RelationshipGraph, tupleset: number): Map<number, number[]> | undefined {
    return this.byTupleset.get(tupleset) ?? (++this.probes > VIA_INDEX_AFTER ? this.via(graph, tupleset) : undefined);
  }

  /**
   * resource → the anchor nodes it reaches through `tupleset` (a stored relation whose subjects are
   * plain objects), so an arrow over many tuples costs one lookup. Built from the graph's reverse
   * index; valid as long as the graph is unchanged, which the cache's mutation key guarantees.
   */
  via(graph: RelationshipGraph, tupleset: number): Map<number, number[]> {
    let index = this.byTupleset.get(tupleset);
    if (!index) {
      index = new Map();
      const reverse = graph.reverse[tupleset]!;
      for (const anchorNode of this.nodes) {
        for (const resource of reverse.get(anchorNode) ?? []) {
          const list = index.get(resource);
          if (list) list.push(anchorNode);
          else index.set(resource, [anchorNode]);
        }
      }
      this.byTupleset.set(tupleset, index);
    }
    return index;
  }
}

/** Subjects kept per graph; beyond this the oldest entry is dropped. */
export const MAX_CACHED_SUBJECTS = 50_000;

/** Subjects whose completed results are kept per graph; beyond this all are dropped. */
export const MAX_RESULT_SUBJECTS = 10_000;
/** Subjects remembered as checked once; beyond this the set starts over. */
const MAX_SEEN_SUBJECTS = 4 * MAX_RESULT_SUBJECTS;
/** A subject's results table is emptied before use once it holds this many entries. */
export const MAX_RESULTS_PER_SUBJECT = 4_096;
/** Emptied tables kept for reuse only up to this capacity (entries), so an outlier does not pin memory. */
const REUSE_MAX_CAPACITY = 256;

export class ClosureCache {
  private mutations: number;
  /** subject code → anchor slot → sorted nodes. */
  private readonly bySubject = new Map<number, Map<number, AnchorClosure>>();
  /** subject code → completed results of its checks. */
  private readonly results = new Map<number, Memo>();
  /** Subjects checked once since the last write, without a results table yet. */
  private readonly seen = new Set<number>();
  /**
   * Emptied tables (of evicted subjects, or of every subject after a write), reused before
   * allocating: with distinct subjects every check would otherwise allocate and grow a table,
   * which cost a quarter of a check's time.
   */
  private readonly spare: Memo[] = [];

  constructor(private readonly graph: RelationshipGraph) {
    this.mutations = graph.mutations;
  }

  get(subjectCode: number, anchor: number): AnchorClosure | undefined {
    this.sync();
    return this.bySubject.get(subjectCode)?.get(anchor);
  }

  set(subjectCode: number, anchor: number, closure: AnchorClosure): void {
    this.sync();
    let bySlot = this.bySubject.get(subjectCode);
    if (!bySlot) {
      if (this.bySubject.size >= MAX_CACHED_SUBJECTS) this.bySubject.delete(this.bySubject.keys().next().value!);
      this.bySubject.set(subjectCode, (bySlot = new Map()));
    }
    bySlot.set(anchor, closure);
  }

  /**
   * The results table of a subject, used as a check's memo: what one check completes, the next one
   * reuses. A check that fails must `dropResults` (its table holds in-progress marks). Undefined on
   * a subject's first check (the check then uses its evaluation's own table, which is in cache): at
   * millions of relationships most subjects are seen once, and a table of its own, last touched
   * thousands of subjects ago, cost a cache miss per entry.
   */
  resultsFor(subjectCode: number): Memo | undefined {
    this.sync();
    let memo = this.results.get(subjectCode);
    if (!memo) {
      if (!this.seen.has(subjectCode)) {
        if (this.seen.size >= MAX_SEEN_SUBJECTS) this.seen.clear();
        this.seen.add(subjectCode);
        return undefined;
      }
      // Full: start over (cheaper per check than evicting one by one, which costs an iterator
      // and leaves deleted entries for the map to rehash away).
      if (this.results.size >= MAX_RESULT_SUBJECTS) this.recycleResults();
      memo = this.spare.pop();
      if (memo) memo.clear();
      // 64 entries: a first check (about a dozen entries) does not grow it.
      else memo = new Memo(64);
      this.results.set(subjectCode, memo);
    } else if (memo.count >= MAX_RESULTS_PER_SUBJECT) {
      memo.clear();
    }
    return memo;
  }

  dropResults(subjectCode: number): void {
    this.results.delete(subjectCode);
  }

  /** Subjects with a results table (for tests). */
  get resultSubjects(): number {
    this.sync();
    return this.results.size;
  }

  get size(): number {
    this.sync();
    return this.bySubject.size;
  }

  private recycleResults(): void {
    for (const memo of this.results.values()) if (memo.capacity <= REUSE_MAX_CAPACITY && this.spare.length < MAX_RESULT_SUBJECTS) this.spare.push(memo);
    this.results.clear();
  }

  private sync(): void {
    if (this.mutations !== this.graph.mutations) {
      this.bySubject.clear();
      this.seen.clear();
      this.recycleResults();
      this.mutations = this.graph.mutations;
    }
  }
}

const caches = new WeakMap<RelationshipGraph, ClosureCache>();

export function closureCacheOf(graph: RelationshipGraph): ClosureCache {
  let cache = caches.get(graph);
  if (!cache) caches.set(graph, (cache = new ClosureCache(graph)));
  return cache;
}

/** Binary search in a sorted Int32Array. */
export function sortedHas(sorted: Int32Array, value: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
