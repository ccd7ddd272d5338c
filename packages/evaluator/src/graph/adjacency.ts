// Multimap from an integer key to its integer values, in two layers:
// - a base in compressed (CSR) form: the values of key k are `targets[offsets[k + bias] ..
//   offsets[k + bias + 1])`, sorted, so a membership test is a scan or binary search of one range
//   and a bulk load is a few typed-array passes instead of a map entry and a list per key. Keys
//   spread thinly over a wide range (a few thousand workspaces among millions of nodes) keep a
//   sorted `keys` array instead, and key k is at its position there. Either way the base is three
//   typed arrays, so a checkpoint holds them as they are (`base`, `fromBase`); a sparse base also
//   gets a small directory from key blocks to key positions, built on first use (at millions of
//   nodes a binary search over the keys is a dozen dependent reads, most of them cache misses);
// - an overlay: the whole current list of every key changed since the base was built (it shadows
//   the key's base range). Short lists are scanned; long ones also get a value → position map,
//   so membership and removal stay O(1) (a workspace may hold hundreds of thousands of hosts).
// The overlay is folded into a new base when it outgrows the base (amortised over the writes) or
// on `compact()`.

const SET_THRESHOLD = 24;
/** Base ranges up to this length are scanned; longer ones binary searched. */
const SCAN_MAX = 16;
/** A key range this many times larger than the keys in it stays in the overlay (offsets would cost more than lists). */
const SPARSE_FACTOR = 8;
/**
 * Writes fold the overlay into the base once this many overlay lists shadow a base range (each
 * leaves a dead copy in the base) and they are more than a quarter of the base's keys. Keys new
 * to the base waste nothing, so a graph built from nothing is folded once, by `compact`.
 */
const SHADOW_MIN_KEYS = 4096;
const SHADOW_RATIO = 0.25;

/** Reads of a stale adjacency (plus one per this many overlay keys) before `dense` compacts it. */
const DENSE_REBUILD_READS = 64;
const DENSE_REBUILD_KEYS_PER_READ = 8;

/**
 * A compressed (CSR) view of an adjacency whose keys are non-negative: the values of key k are
 * `targets[offsets[k] .. offsets[k + 1])` for k < offsets.length - 1, none beyond. Two typed-array
 * reads per key instead of a Map probe and a list. Valid until the next change to the adjacency.
 */
export interface DenseAdjacency {
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
}

/** The values of one key: a range of the base or an overlay list (never modified by the caller). */
export type Values = Int32Array | readonly number[];

const NO_OFFSETS = new Int32Array(1);
/** Sparse bases: key values per block of the key directory (see `keyBlocks`). */
const KEY_BLOCK_SHIFT = 6;
const NO_TARGETS = new Int32Array(0);

/**
 * The base's arrays: with `keys`, the values of keys[i] are targets[offsets[i] .. offsets[i + 1]);
 * without, those of key k are at offsets[k + bias] (ranges sorted, values distinct within a range).
 */
export interface AdjacencyBase {
  keys: Int32Array | undefined;
  offsets: Int32Array;
  targets: Int32Array;
  bias: number;
}

export class Adjacency {
  private offsets: Int32Array = NO_OFFSETS;
  private targets: Int32Array = NO_TARGETS;
  /** Sorted keys of a sparse base (offsets then has one entry per key, plus one); undefined when dense. */
  private sparseKeys: Int32Array | undefined = undefined;
  /**
   * Sparse base: a directory over the sorted keys, per block of 2^KEY_BLOCK_SHIFT consecutive key
   * values from the smallest key, the position of the block's first key (blocks + 1 entries). A
   * lookup reads one directory entry and scans one short run of keys; neighbouring keys (one
   * tenant's workspaces, interned together) share the same cache lines, as they do in the offsets
   * and targets. Built on the first lookup: many indexes (most reverse ones) are never probed by key.
   */
  private keyBlocks: Int32Array | undefined = undefined;
  /** Added to a key to index `offsets` (keys may be negative: subject-set codes). */
  private bias = 0;
  /** Keys with values in the base. */
  private baseKeys = 0;
  /** Overlay lists copied from a non-empty base range. */
  private shadowing = 0;
  private readonly lists = new Map<number, number[]>();
  /** For lists longer than SET_THRESHOLD: value → its index in the list. */
  private readonly positions = new Map<number, Map<number, number>>();
  private denseView: DenseAdjacency | undefined;
  private staleReads = 0;
  /**
   * False when the base is shared with other threads and its owner replaces it whole (`keepBase`):
   * reads never fold the overlay into a base of this thread's own (a private copy of the index per
   * thread); the next shared base folds it for every thread at once.
   */
  private foldOnRead = true;

  /**
   * The CSR view when the overlay is empty and no key is negative; otherwise undefined until it
   * has been asked for often enough to pay for compacting. Callers fall back to `get`/`has`.
   */
  dense(): DenseAdjacency | undefined {
    if (this.lists.size === 0) return this.bias === 0 && this.sparseKeys === undefined ? (this.denseView ??= { offsets: this.offsets, targets: this.targets }) : undefined;
    if (!this.foldOnRead || ++this.staleReads < DENSE_REBUILD_READS + this.lists.size / DENSE_REBUILD_KEYS_PER_READ) return undefined;
    // Folded as it was loaded: a sparse base stays sparse (read through `range`), so reads never
    // grow the graph by an offsets array over the whole node range.
    this.compact(false);
    return this.bias === 0 && this.lists.size === 0 && this.sparseKeys === undefined ? (this.denseView ??= { offsets: this.offsets, targets: this.targets }) : undefined;
  }

  /**
   * When the overlay holds no list of `key` (no write to it since the last fold), the base's range
   * index of `key` in `baseOffsets` (-1: no values), read without allocating; undefined when the
   * overlay holds the key's current list (use `get`).
   */
  range(key: number): number | undefined {
    if (this.lists.size > 0 && this.lists.has(key)) return undefined;
    return this.rangeOf(key);
  }

  /** The base's offsets (see `range`): key range i is `baseTargets[baseOffsets[i] .. baseOffsets[i + 1])`. */
  get baseOffsets(): Int32Array {
    return this.offsets;
  }

  get baseTargets(): Int32Array {
    return this.targets;
  }

  /** Index of key's range in `offsets`, or -1 when the base has no range for it. */
  private rangeOf(key: number): number {
    const keys = this.sparseKeys;
    if (keys === undefined) {
      const i = key + this.bias;
      return i >= 0 && i + 1 < this.offsets.length ? i : -1;
    }
    if (keys.length === 0) return -1;
    const blocks = this.keyBlocks ?? this.indexKeys(keys);
    // keys[0] is the smallest; key − keys[0] is exact in a double and below 2^32 when not negative.
    const offset = key - keys[0]!;
    if (offset < 0) return -1;
    const block = offset >>> KEY_BLOCK_SHIFT;
    if (block + 1 >= blocks.length) return -1;
    for (let i = blocks[block]!, end = blocks[block + 1]!; i < end; i++) {
      const k = keys[i]!;
      if (k >= key) return k === key ? i : -1;
    }
    return -1;
  }

  /** Builds `keyBlocks` over the sparse keys (sorted and distinct, as `load` and `fromBase` guarantee). */
  private indexKeys(keys: Int32Array): Int32Array {
    const smallest = keys[0]!;
    const count = ((keys[keys.length - 1]! - smallest) >>> KEY_BLOCK_SHIFT) + 1;
    const blocks = new Int32Array(count + 1);
    for (let b = 0, p = 0; b <= count; b++) {
      while (p < keys.length && (keys[p]! - smallest) >>> KEY_BLOCK_SHIFT < b) p++;
      blocks[b] = p;
    }
    this.keyBlocks = blocks;
    return blocks;
  }

  /** Key of the base's range i. */
  private keyAt(i: number): number {
    return this.sparseKeys === undefined ? i - this.bias : this.sparseKeys[i]!;
  }

  get(key: number): Values | undefined {
    if (this.lists.size > 0) {
      const list = this.lists.get(key);
      if (list) return list.length > 0 ? list : undefined;
    }
    const i = this.rangeOf(key);
    if (i < 0) return undefined;
    const from = this.offsets[i]!;
    const to = this.offsets[i + 1]!;
    return from === to ? undefined : this.targets.subarray(from, to);
  }

  has(key: number, value: number): boolean {
    if (this.lists.size > 0) {
      const at = this.positions.get(key);
      if (at) return at.has(value);
      const list = this.lists.get(key);
      if (list) return list.includes(value);
    }
    return this.baseHas(key, value);
  }

  private baseHas(key: number, value: number): boolean {
    const i = this.rangeOf(key);
    const { offsets, targets } = this;
    if (i < 0) return false;
    let lo = offsets[i]!;
    let hi = offsets[i + 1]! - 1;
    if (hi - lo < SCAN_MAX) {
      for (; lo <= hi; lo++) if (targets[lo] === value) return true;
      return false;
    }
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = targets[mid]!;
      if (v === value) return true;
      if (v < value) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** The key's overlay list, copied from its base range on first change. */
  private own(key: number): number[] {
    let list = this.lists.get(key);
    if (!list) {
      const i = this.rangeOf(key);
      const from = i >= 0 ? this.offsets[i]! : 0;
      const to = i >= 0 ? this.offsets[i + 1]! : 0;
      list = from === to ? [] : Array.from(this.targets.subarray(from, to));
      if (from !== to) this.shadowing++;
      this.lists.set(key, list);
      if (list.length > SET_THRESHOLD) this.positions.set(key, positionsOf(list));
      this.denseView = undefined;
    }
    return list;
  }

  /** Adds the pair; false if it was already present. */
  add(key: number, value: number): boolean {
    if (this.has(key, value)) return false;
    const list = this.own(key);
    list.push(value);
    const positions = this.positions.get(key);
    if (positions) positions.set(value, list.length - 1);
    else if (list.length > SET_THRESHOLD) this.positions.set(key, positionsOf(list));
    this.changed();
    return true;
  }

  /** Removes the pair; false if it was absent. */
  remove(key: number, value: number): boolean {
    if (!this.has(key, value)) return false;
    const list = this.own(key);
    const positions = this.positions.get(key);
    const at = positions ? positions.get(value)! : list.indexOf(value);
    // Order does not matter: move the last element into the hole.
    const last = list[list.length - 1]!;
    list[at] = last;
    list.pop();
    if (positions) {
      positions.set(last, at);
      positions.delete(value);
    }
    if (list.length === 0) {
      this.positions.delete(key);
      // An empty list must stay only while it shadows base values.
      if (!this.inBase(key)) this.lists.delete(key);
    }
    this.changed();
    return true;
  }

  /** Keys whose current list is in the overlay (for tests and diagnostics). */
  get overlayKeys(): number {
    return this.lists.size;
  }

  private inBase(key: number): boolean {
    const i = this.rangeOf(key);
    return i >= 0 && this.offsets[i] !== this.offsets[i + 1];
  }

  private changed(): void {
    this.denseView = undefined;
    if (this.shadowing >= SHADOW_MIN_KEYS && this.shadowing > SHADOW_RATIO * this.baseKeys) this.compact(false);
  }

  /**
   * Replaces the contents with the pairs (keys[i], values[i]) in bulk; the pairs must be distinct.
   * `dense`: a compact base even when the keys are sparse.
   */
  load(keys: Int32Array, values: Int32Array, dense = false, dedupe = false): void {
    this.lists.clear();
    this.positions.clear();
    this.denseView = undefined;
    this.staleReads = 0;
    this.offsets = NO_OFFSETS;
    this.targets = NO_TARGETS;
    this.sparseKeys = undefined;
    this.keyBlocks = undefined;
    this.bias = 0;
    this.baseKeys = 0;
    this.shadowing = 0;
    if (keys.length === 0) return;
    let minKey = keys[0]!;
    let maxKey = keys[0]!;
    for (let i = 1; i < keys.length; i++) {
      const key = keys[i]!;
      if (key < minKey) minKey = key;
      else if (key > maxKey) maxKey = key;
    }
    // Non-negative keys index from 0, so `dense` can hand out the offsets as they are.
    const bias = minKey >= 0 ? 0 : -minKey;
    const size = maxKey + bias + 1;
    const offsets = new Int32Array(size + 1);
    let distinct = 0;
    for (let i = 0; i < keys.length; i++) if (offsets[keys[i]! + bias + 1]!++ === 0) distinct++;
    const sparse = !dense && distinct * SPARSE_FACTOR < size;
    let ranges: Int32Array;
    // Range index of each key's slot (sparse: reusing `offsets`, whose counts are read once more first).
    let slotOf: Int32Array;
    if (sparse) {
      // Few keys over a wide range: their sorted list and one offset each, not a mostly empty
      // offsets array (and no further pass over the whole key range).
      const present = new Int32Array(distinct);
      ranges = new Int32Array(distinct + 1);
      for (let k = 0, at = 0; k < size; k++) {
        const count = offsets[k + 1]!;
        if (count === 0) continue;
        present[at] = k - bias;
        ranges[at + 1] = ranges[at]! + count;
        offsets[k + 1] = at++;
      }
      this.sparseKeys = present;
      slotOf = offsets.subarray(1);
    } else {
      for (let k = 1; k <= size; k++) offsets[k]! += offsets[k - 1]!;
      ranges = offsets;
      slotOf = offsets;
      this.bias = bias;
    }
    const targets = new Int32Array(keys.length);
    const rangeCount = ranges.length - 1;
    const next = ranges.slice(0, rangeCount);
    // Dense: slotOf[key + bias] is the range index itself; sparse: the range index stored per key.
    if (sparse) for (let i = 0; i < keys.length; i++) targets[next[slotOf[keys[i]! + bias]!]!++] = values[i]!;
    else for (let i = 0; i < keys.length; i++) targets[next[keys[i]! + bias]!++] = values[i]!;
    // Sorted ranges (for binary search); a range already in order is left alone.
    for (let k = 0; k < rangeCount; k++) {
      const from = ranges[k]!;
      const to = ranges[k + 1]!;
      for (let j = from + 1; j < to; j++) {
        if (targets[j - 1]! > targets[j]!) {
          targets.subarray(from, to).sort();
          break;
        }
      }
    }
    this.offsets = ranges;
    this.targets = dedupe ? withoutRepeats(ranges, targets) : targets;
    this.baseKeys = distinct;
  }

  /** The base after folding the overlay into it (for encoding; the arrays are the adjacency's own, not copies). */
  base(): AdjacencyBase {
    if (this.lists.size > 0) this.compact();
    return { keys: this.sparseKeys, offsets: this.offsets, targets: this.targets, bias: this.bias };
  }

  /**
   * An adjacency over a base read from elsewhere (a checkpoint), used as it is after checking it:
   * offsets ascending from 0 to the targets' length, keys sorted and distinct, every key with values
   * in [keyFrom, keyTo) and every value in [valueFrom, valueTo), each range sorted without repeats
   * (binary search needs it; repeats would count a relationship twice). One tight pass over each
   * array, the keys' bounds read at the first and last range with values.
   * Returns a reason when the base is unusable.
   */
  static fromBase(base: AdjacencyBase, keyFrom: number, keyTo: number, valueFrom: number, valueTo: number): Adjacency | string {
    const reason = Adjacency.invalid(base, keyFrom, keyTo, valueFrom, valueTo);
    if (reason !== undefined) return reason;
    return Adjacency.trusted(base);
  }

  /**
   * An adjacency over a base this process made itself (a graph shared between threads: the arrays
   * came from `base()` of an adjacency), used without the checks of `fromBase`.
   */
  static trusted(base: AdjacencyBase): Adjacency {
    const { keys, offsets, targets, bias } = base;
    let keyCount = 0;
    for (let i = 0; i + 1 < offsets.length; i++) if (offsets[i + 1] !== offsets[i]) keyCount++;
    const adjacency = new Adjacency();
    adjacency.sparseKeys = keys;
    adjacency.offsets = offsets;
    adjacency.targets = targets;
    adjacency.bias = bias;
    adjacency.baseKeys = keyCount;
    return adjacency;
  }

  /** Why a base read from elsewhere cannot be used (see `fromBase`), or undefined. */
  private static invalid(base: AdjacencyBase, keyFrom: number, keyTo: number, valueFrom: number, valueTo: number): string | undefined {
    const { keys, offsets, targets, bias } = base;
    const ranges = offsets.length - 1;
    const size = targets.length;
    if (offsets.length < 1 || offsets[0] !== 0 || offsets[ranges] !== size) return "offsets do not span the targets";
    if (keys !== undefined && (bias !== 0 || offsets.length !== keys.length + 1)) return "keyed base shape";
    if (!Number.isSafeInteger(bias) || bias < 0) return "bias";
    // Each check is a tight pass over one array (no per-element branch on the base's kind), and
    // keys only need their first and last range with values checked: keys ascend with the ranges.
    if (keys !== undefined) {
      for (let i = 1; i < keys.length; i++) if (keys[i]! <= keys[i - 1]!) return "keys not sorted";
    }
    for (let j = 0; j < size; j++) {
      const value = targets[j]!;
      if (value < valueFrom || value >= valueTo) return `value ${value} at ${j} out of range`;
    }
    let first = -1;
    let last = -1;
    let from = 0;
    for (let i = 0; i < ranges; i++) {
      const to = offsets[i + 1]!;
      // Checked before the range is read: a range past the targets would read undefined for billions of steps.
      if (to < from || to > size) return "offsets descend or overrun the targets";
      if (to !== from) {
        if (first < 0) first = i;
        last = i;
        for (let j = from + 1; j < to; j++) {
          if (targets[j]! <= targets[j - 1]!) return `values of key ${keys === undefined ? i - bias : keys[i]!} out of order or repeated`;
        }
      }
      from = to;
    }
    if (first >= 0) {
      const low = keys === undefined ? first - bias : keys[first]!;
      const high = keys === undefined ? last - bias : keys[last]!;
      if (low < keyFrom) return `key ${low} out of range`;
      if (high >= keyTo) return `key ${high} out of range`;
    }
    return undefined;
  }

  /** The base is shared and replaced whole by its owner: reads no longer fold the overlay (see `foldOnRead`). */
  keepBase(): void {
    this.foldOnRead = false;
  }

  /** Number of pairs (for a graph's relationship count). */
  get pairs(): number {
    let n = this.targets.length;
    if (this.lists.size === 0) return n;
    for (const [key, list] of this.lists) {
      const i = this.rangeOf(key);
      if (i >= 0) n -= this.offsets[i + 1]! - this.offsets[i]!;
      n += list.length;
    }
    return n;
  }

  /** Folds the overlay into the base (`dense`: even when the keys are sparse). */
  compact(dense = false): void {
    const { offsets, targets, lists } = this;
    let count = 0;
    for (let i = 0; i + 1 < offsets.length; i++) {
      const n = offsets[i + 1]! - offsets[i]!;
      if (n > 0 && (lists.size === 0 || !lists.has(this.keyAt(i)))) count += n;
    }
    for (const list of lists.values()) count += list.length;
    const keys = new Int32Array(count);
    const values = new Int32Array(count);
    let at = 0;
    for (let i = 0; i + 1 < offsets.length; i++) {
      const from = offsets[i]!;
      const to = offsets[i + 1]!;
      if (from === to || (lists.size > 0 && lists.has(this.keyAt(i)))) continue;
      keys.fill(this.keyAt(i), at, at + to - from);
      values.set(targets.subarray(from, to), at);
      at += to - from;
    }
    for (const [key, list] of lists) {
      keys.fill(key, at, at + list.length);
      values.set(list, at);
      at += list.length;
    }
    this.load(keys, values, dense);
  }

  /** Every key with at least one value, with its values (order unspecified). */
  *entries(): IterableIterator<[number, Values]> {
    const { offsets, targets, lists } = this;
    for (let i = 0; i + 1 < offsets.length; i++) {
      const from = offsets[i]!;
      const to = offsets[i + 1]!;
      if (from === to || (lists.size > 0 && lists.has(this.keyAt(i)))) continue;
      yield [this.keyAt(i), targets.subarray(from, to)];
    }
    for (const entry of lists) if (entry[1].length > 0) yield entry;
  }

  keys(): IterableIterator<number> {
    return (function* (entries: IterableIterator<[number, Values]>) {
      for (const [key] of entries) yield key;
    })(this.entries());
  }
}

/** Drops repeated values within each (sorted) range, rewriting `ranges` in place; the targets as they are when none repeats. */
function withoutRepeats(ranges: Int32Array, targets: Int32Array): Int32Array {
  const count = ranges.length - 1;
  let repeats = 0;
  for (let k = 0; k < count; k++) for (let j = ranges[k]! + 1, to = ranges[k + 1]!; j < to; j++) if (targets[j] === targets[j - 1]) repeats++;
  if (repeats === 0) return targets;
  let write = 0;
  for (let k = 0; k < count; k++) {
    const from = ranges[k]!;
    const to = ranges[k + 1]!;
    ranges[k] = write;
    for (let j = from; j < to; j++) {
      const value = targets[j]!;
      if (j === from || value !== targets[write - 1]) targets[write++] = value;
    }
  }
  ranges[count] = write;
  return targets.slice(0, write);
}

function positionsOf(list: readonly number[]): Map<number, number> {
  const positions = new Map<number, number>();
  for (let i = 0; i < list.length; i++) positions.set(list[i]!, i);
  return positions;
}
