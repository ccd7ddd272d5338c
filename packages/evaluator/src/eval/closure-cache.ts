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

  /** Estimated bytes held (the nodes, and the via indexes once built). */
  bytes: number;
  /** Told of the bytes a via index adds (set by the cache that holds the closure). */
  onGrow: ((bytes: number) => void) | undefined = undefined;

  constructor(
    /** Sorted nodes where the subject holds the anchor. */
    readonly nodes: Int32Array,
  ) {
    this.bytes = 64 + nodes.byteLength;
  }

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
      // A map entry and a small array per resource, 8 bytes per listed node.
      let grown = 64;
      for (const list of index.values()) grown += 64 + 8 * list.length;
      this.bytes += grown;
      this.onGrow?.(grown);
    }
    return index;
  }
}

/**
 * Limits of every graph's check cache (subject closures and results tables). The cache holds two
 * generations: entries are added to the current one, and an entry found only in the previous one
 * moves to the current one. Once the current generation's bytes reach half of `maxBytes` (or its
 * subjects half of `maxSubjects`), the previous generation is dropped and the current one becomes
 * the previous: what was used during the last half-budget of checks stays, the rest goes, and the
 * cache never holds more than `maxBytes` (plus the one entry being added). Bytes are estimates of
 * the typed arrays and map entries held, not a heap measurement.
 */
export interface CheckCacheLimits {
  /** Bytes held by one graph's cache at most (default 8 MiB). */
  maxBytes: number;
  /** Subjects (closures or results tables) held at most (default 40,000). */
  maxSubjects: number;
}

export const DEFAULT_CHECK_CACHE_LIMITS: Readonly<CheckCacheLimits> = Object.freeze({ maxBytes: 8 * 2 ** 20, maxSubjects: 40_000 });
const limits: CheckCacheLimits = { ...DEFAULT_CHECK_CACHE_LIMITS };

/**
 * Sets the limits of every graph's check cache (existing caches apply them from their next use).
 * Values must be positive integers; `maxBytes` of 0 disables the cache (every check starts cold).
 */
export function configureCheckCache(next: Partial<CheckCacheLimits>): CheckCacheLimits {
  for (const [key, value] of Object.entries(next)) {
    if (value === undefined) continue;
    if (key !== "maxBytes" && key !== "maxSubjects") throw new RangeError(`unknown check cache limit '${key}'`);
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`check cache ${key} must be a non-negative integer, got ${value}`);
  }
  if (next.maxBytes !== undefined) limits.maxBytes = next.maxBytes;
  if (next.maxSubjects !== undefined) limits.maxSubjects = next.maxSubjects;
  return { ...limits };
}

/** A subject's results table is emptied before use once it holds this many entries. */
export const MAX_RESULTS_PER_SUBJECT = 4_096;
/** Emptied tables kept for reuse only up to this capacity (entries), so an outlier does not pin memory. */
const REUSE_MAX_CAPACITY = 256;
/** Emptied tables kept for reuse at most. */
const MAX_SPARE = 256;
/** Estimated bytes of a map entry with its small object (a subject's entry, a via-index key). */
const ENTRY_BYTES = 64;
/** Bytes of a results table entry (four int32). */
const MEMO_ENTRY_BYTES = 16;

/** What one generation of the cache holds. */
class Generation {
  /** subject code → anchor slot → sorted nodes. */
  readonly closures = new Map<number, Map<number, AnchorClosure>>();
  /** subject code → completed results of its checks. */
  readonly results = new Map<number, Memo>();
  /** Estimated bytes of the closures and tables above. */
  bytes = 0;
}

const memoBytes = (memo: Memo) => ENTRY_BYTES + memo.capacity * MEMO_ENTRY_BYTES;

export class ClosureCache {
  private mutations: number;
  private current = new Generation();
  private previous = new Generation();
  /** Subjects checked once since the last write, without a results table yet. */
  private readonly seen = new Set<number>();
  /**
   * Emptied tables (of dropped subjects, or of every subject after a write), reused before
   * allocating: with distinct subjects every check would otherwise allocate and grow a table,
   * which cost a quarter of a check's time.
   */
  private readonly spare: Memo[] = [];
  /** The results table handed out last and its capacity then (its growth is counted at the next hand-out). */
  private lastTable: Memo | undefined;
  private lastTableCapacity = 0;
  private lastTableGeneration: Generation | undefined;

  constructor(private readonly graph: RelationshipGraph) {
    this.mutations = graph.mutations;
  }

  get(subjectCode: number, anchor: number): AnchorClosure | undefined {
    this.sync();
    const held = this.current.closures.get(subjectCode);
    if (held) return held.get(anchor);
    const old = this.previous.closures.get(subjectCode);
    if (!old) return undefined;
    // Used again: moves to the current generation with its bytes.
    this.previous.closures.delete(subjectCode);
    let bytes = ENTRY_BYTES;
    for (const closure of old.values()) bytes += closure.bytes;
    this.previous.bytes -= bytes;
    this.current.closures.set(subjectCode, old);
    this.charge(bytes);
    return old.get(anchor);
  }

  set(subjectCode: number, anchor: number, closure: AnchorClosure): void {
    this.sync();
    if (limits.maxBytes === 0) return;
    // Whatever the previous generation held for the subject moves first (get does that).
    if (!this.current.closures.has(subjectCode)) this.get(subjectCode, anchor);
    let bySlot = this.current.closures.get(subjectCode);
    let bytes = closure.bytes;
    if (!bySlot) {
      this.current.closures.set(subjectCode, (bySlot = new Map()));
      bytes += ENTRY_BYTES;
    }
    const replaced = bySlot.get(anchor);
    if (replaced) bytes -= replaced.bytes;
    bySlot.set(anchor, closure);
    closure.onGrow = (grown) => this.charge(grown);
    this.charge(bytes);
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
    this.settleLastTable();
    if (limits.maxBytes === 0) return undefined;
    let memo = this.current.results.get(subjectCode);
    if (!memo) {
      memo = this.previous.results.get(subjectCode);
      if (memo) {
        this.previous.results.delete(subjectCode);
        this.previous.bytes -= memoBytes(memo);
        this.current.results.set(subjectCode, memo);
        this.charge(memoBytes(memo));
      } else {
        if (!this.seen.has(subjectCode)) {
          if (this.seen.size >= limits.maxSubjects) this.seen.clear();
          this.seen.add(subjectCode);
          return undefined;
        }
        memo = this.spare.pop();
        if (memo) memo.clear();
        // 64 entries: a first check (about a dozen entries) does not grow it.
        else memo = new Memo(64);
        this.current.results.set(subjectCode, memo);
        this.charge(memoBytes(memo));
      }
    }
    if (memo.count >= MAX_RESULTS_PER_SUBJECT) memo.clear();
    this.lastTable = memo;
    this.lastTableCapacity = memo.capacity;
    // The table's generation (the current one, unless its charge just turned the generations over).
    this.lastTableGeneration = this.current.results.size > 0 ? this.current : this.previous;
    return memo;
  }

  dropResults(subjectCode: number): void {
    this.settleLastTable();
    for (const generation of [this.current, this.previous]) {
      const memo = generation.results.get(subjectCode);
      if (memo) {
        generation.results.delete(subjectCode);
        generation.bytes -= memoBytes(memo);
      }
    }
  }

  /** Subjects with a results table (for tests). */
  get resultSubjects(): number {
    this.sync();
    return this.current.results.size + this.previous.results.size;
  }

  /** Subjects with closures. */
  get size(): number {
    this.sync();
    return this.current.closures.size + this.previous.closures.size;
  }

  /** What the cache holds: subjects, results tables and their entries, estimated bytes, and the limits. */
  stats(): CheckCacheStats {
    this.sync();
    this.settleLastTable();
    let resultEntries = 0;
    for (const generation of [this.current, this.previous]) for (const memo of generation.results.values()) resultEntries += memo.count;
    return {
      subjects: this.size,
      resultSubjects: this.resultSubjects,
      resultEntries,
      seen: this.seen.size,
      spare: this.spare.length,
      bytes: this.current.bytes + this.previous.bytes,
      ...limits,
    };
  }

  /** Counts the growth of the table handed out last (a check grows it while it runs). */
  private settleLastTable(): void {
    const memo = this.lastTable;
    if (memo === undefined) return;
    this.lastTable = undefined;
    const grown = (memo.capacity - this.lastTableCapacity) * MEMO_ENTRY_BYTES;
    if (grown === 0) return;
    // Charged to the generation that holds it, if any still does.
    const generation = this.lastTableGeneration!;
    if (generation === this.current) this.charge(grown);
    else if (generation === this.previous) generation.bytes += grown;
  }

  /** Adds bytes to the current generation; past half the budget, the generations turn over. */
  private charge(bytes: number): void {
    const current = this.current;
    current.bytes += bytes;
    if (current.bytes * 2 < limits.maxBytes && (current.closures.size + current.results.size) * 2 < limits.maxSubjects) return;
    this.recycle(this.previous);
    this.previous = current;
    this.current = new Generation();
  }

  /** Keeps a dropped generation's small tables for reuse. */
  private recycle(generation: Generation): void {
    const { spare } = this;
    for (const memo of generation.results.values()) {
      if (spare.length >= MAX_SPARE) break;
      if (memo.capacity <= REUSE_MAX_CAPACITY && memo !== this.lastTable) spare.push(memo);
    }
    for (const bySlot of generation.closures.values()) for (const closure of bySlot.values()) closure.onGrow = undefined;
  }

  private sync(): void {
    if (this.mutations !== this.graph.mutations) {
      this.settleLastTable();
      this.recycle(this.current);
      this.recycle(this.previous);
      this.current = new Generation();
      this.previous = new Generation();
      this.seen.clear();
      this.mutations = this.graph.mutations;
    }
  }
}

export interface CheckCacheStats extends CheckCacheLimits {
  /** Subjects with closures. */
  subjects: number;
  /** Subjects with a results table. */
  resultSubjects: number;
  /** Entries in the results tables. */
  resultEntries: number;
  /** Subjects remembered as checked once. */
  seen: number;
  /** Emptied tables kept for reuse. */
  spare: number;
  /** Estimated bytes held (closures and results tables; the limit is `maxBytes`). */
  bytes: number;
}

const caches = new WeakMap<RelationshipGraph, ClosureCache>();

export function closureCacheOf(graph: RelationshipGraph): ClosureCache {
  let cache = caches.get(graph);
  if (!cache) caches.set(graph, (cache = new ClosureCache(graph)));
  return cache;
}

/** What a graph's check cache holds, with the limits in force (see `configureCheckCache`). */
export function checkCacheStats(graph: RelationshipGraph): CheckCacheStats {
  return closureCacheOf(graph).stats();
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
