// Multimap from an integer key to a list of integer values. Short lists are scanned; lists that
// grow past a threshold also get a Set so membership stays O(1) for big groups.

const SET_THRESHOLD = 24;

/**
 * A compressed (CSR) copy of an adjacency whose keys are non-negative: the values of key k are
 * `targets[offsets[k] .. offsets[k + 1])` for k < offsets.length - 1, none beyond. Two typed-array
 * reads per key instead of a Map probe and a list. Valid until the next change to the adjacency.
 */
export interface DenseAdjacency {
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
}

/** Reads of a stale adjacency (plus one per this many keys) before its dense copy is rebuilt. */
const DENSE_REBUILD_READS = 64;
const DENSE_REBUILD_KEYS_PER_READ = 8;

export class Adjacency {
  private readonly lists = new Map<number, number[]>();
  private readonly sets = new Map<number, Set<number>>();
  /** Bumped by every change; the dense copy is valid while it matches. */
  private version = 0;
  private denseVersion = -1;
  private denseCopy: DenseAdjacency | undefined;
  private staleReads = 0;
  private minKey = 0;
  private maxKey = -1;

  /**
   * The dense copy when current; while stale (after a change) undefined, and rebuilt once it has
   * been asked for often enough to pay for the rebuild. Callers fall back to `get`/`has`. Only
   * for adjacencies whose keys are all >= 0 (otherwise always undefined).
   */
  dense(): DenseAdjacency | undefined {
    if (this.denseVersion === this.version) return this.denseCopy;
    if (++this.staleReads < DENSE_REBUILD_READS + this.lists.size / DENSE_REBUILD_KEYS_PER_READ || this.minKey < 0) return undefined;
    return this.rebuildDense();
  }

  private rebuildDense(): DenseAdjacency {
    let total = 0;
    for (const list of this.lists.values()) total += list.length;
    const offsets = new Int32Array(this.maxKey + 2);
    const targets = new Int32Array(total);
    for (const [key, list] of this.lists) offsets[key + 1] = list.length;
    for (let k = 1; k < offsets.length; k++) offsets[k]! += offsets[k - 1]!;
    for (const [key, list] of this.lists) targets.set(list, offsets[key]!);
    this.denseCopy = { offsets, targets };
    this.denseVersion = this.version;
    this.staleReads = 0;
    return this.denseCopy;
  }

  get(key: number): readonly number[] | undefined {
    return this.lists.get(key);
  }

  has(key: number, value: number): boolean {
    const set = this.sets.get(key);
    if (set) return set.has(value);
    const list = this.lists.get(key);
    return list?.includes(value) === true;
  }

  /** Adds the pair; false if it was already present. */
  add(key: number, value: number): boolean {
    const list = this.lists.get(key);
    if (!list) {
      this.lists.set(key, [value]);
      this.changed(key);
      return true;
    }
    if (this.has(key, value)) return false;
    list.push(value);
    this.changed(key);
    const set = this.sets.get(key);
    if (set) set.add(value);
    else if (list.length > SET_THRESHOLD) this.sets.set(key, new Set(list));
    return true;
  }

  /**
   * Sets the values of a key that has none yet, taking ownership of `values` (bulk loading). The
   * caller guarantees the values are distinct.
   */
  load(key: number, values: number[]): void {
    this.lists.set(key, values);
    if (values.length > SET_THRESHOLD) this.sets.set(key, new Set(values));
    this.changed(key);
  }

  /** Removes the pair; false if it was absent. */
  remove(key: number, value: number): boolean {
    const list = this.lists.get(key);
    if (!list) return false;
    const at = list.indexOf(value);
    if (at < 0) return false;
    this.version++;
    // Order does not matter: move the last element into the hole.
    list[at] = list[list.length - 1]!;
    list.pop();
    if (list.length === 0) {
      this.lists.delete(key);
      this.sets.delete(key);
    } else {
      this.sets.get(key)?.delete(value);
    }
    return true;
  }

  private changed(key: number): void {
    this.version++;
    if (key > this.maxKey) this.maxKey = key;
    if (key < this.minKey) this.minKey = key;
  }

  keys(): IterableIterator<number> {
    return this.lists.keys();
  }

  entries(): IterableIterator<[number, number[]]> {
    return this.lists.entries();
  }
}
