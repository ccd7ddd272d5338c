// An answer's ids in ascending code-unit order, put in order only as far as a reader asks, so a
// listing can send its first page before the rest of a large answer is ordered (or even named).
import type { RelationshipGraph } from "../graph/relationship-graph.js";

/** Ids in ascending code-unit order (distinct), read by index. */
export interface IdsInOrder {
  readonly length: number;
  /** The id at `index` (0 ≤ index < length) in sorted order. */
  at(index: number): string;
  /** Index of the first id strictly greater than `after` (length if none). */
  firstIndexAfter(after: string): number;
  /** Ids put in their final places so far (length once fully ordered). */
  readonly sorted: number;
}

/** Ids already in ascending code-unit order. */
export class SortedIdList implements IdsInOrder {
  readonly length: number;
  readonly sorted: number;

  constructor(private readonly ids: readonly string[]) {
    this.length = ids.length;
    this.sorted = ids.length;
  }

  at(index: number): string {
    return this.ids[index]!;
  }

  firstIndexAfter(after: string): number {
    const ids = this.ids;
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (ids[mid]! <= after) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/**
 * Distinct graph nodes, ordered by their ids as far as a reader has asked: an incremental quicksort
 * (partition the unsorted rest around a pivot, keep the right part for later, continue on the
 * left until a small run is sorted in place) comparing the node table's id bytes, so no id is
 * decoded into a string until it is read. The first id is known after about two comparisons per
 * node, the first k after about 2n + k·log k, and reading everything costs one full sort. Ids are
 * distinct, so the order (and every resume point) is exactly a full sort's.
 *
 * Nodes are never forgotten by the graph and their ids never change, so the order stays valid
 * while the graph takes writes; the id arrays are fetched again for every extension because they
 * may grow. One reader at a time (JavaScript's); every reader only extends the sorted prefix.
 */
export class NodesInIdOrder implements IdsInOrder {
  readonly length: number;
  /** nodes[0, done) are in their final places. */
  private done: number;
  /**
   * Ends of the unsorted segments after `done`, the nearest last: every node before an end has a
   * smaller id than every node at or after it.
   */
  private readonly ends: number[];
  /** The last id decoded (a listing reads each item twice: the item and its cursor). */
  private lastIndex = -1;
  private lastId = "";

  constructor(
    private readonly graph: RelationshipGraph,
    private readonly nodes: Int32Array,
    alreadySorted: boolean,
  ) {
    this.length = nodes.length;
    this.done = alreadySorted ? nodes.length : 0;
    this.ends = alreadySorted ? [] : [nodes.length];
  }

  get sorted(): number {
    return this.done;
  }

  at(index: number): string {
    if (index === this.lastIndex) return this.lastId;
    if (index >= this.done) this.ensure(index + 1);
    this.lastIndex = index;
    this.lastId = this.graph.idOf(this.nodes[index]!);
    return this.lastId;
  }

  firstIndexAfter(after: string): number {
    // Extend the sorted prefix until its last id passes `after`, then search in it.
    const { nodes } = this;
    while (this.done < this.length && (this.done === 0 || this.compareWith(nodes[this.done - 1]!, after) <= 0)) this.ensure(this.done + 1);
    const { offsets, bytes } = this.graph.idArrays();
    let low = 0;
    let high = this.done;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compareWithText(offsets, bytes, nodes[mid]!, after) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private compareWith(node: number, text: string): number {
    const { offsets, bytes } = this.graph.idArrays();
    return compareWithText(offsets, bytes, node, text);
  }

  /** Puts at least the first `count` nodes in place. */
  ensure(count: number): void {
    const a = this.nodes;
    const ends = this.ends;
    const target = Math.min(count, this.length);
    if (this.done >= target) return;
    const { offsets, bytes } = this.graph.idArrays();
    while (this.done < target) {
      const lo = this.done;
      const end = ends[ends.length - 1]!;
      if (end - lo <= SMALL) {
        insertionSort(a, lo, end, offsets, bytes);
        this.done = end;
        ends.pop();
        continue;
      }
      // The answer's first partition puts a pivot from the smallest few percent of a sample in
      // place, so the first page is ordered after about one comparison per node instead of two.
      const p = lo === 0 && end >= SAMPLE_FROM ? partitionLow(a, end, offsets, bytes) : partition(a, lo, end, offsets, bytes);
      // a[p] is in its place: everything before it is smaller, everything after it larger.
      if (p === lo) this.done = lo + 1;
      else ends.push(p);
    }
  }
}

/** Runs this short or shorter are sorted by insertion. */
const SMALL = 16;

/** Order of two nodes' ids (bytes, which are ASCII: code-unit order). */
function compareNodes(offsets: Uint32Array, bytes: Uint8Array, x: number, y: number): number {
  let i = offsets[x]!;
  const iEnd = offsets[x + 1]!;
  let j = offsets[y]!;
  const jEnd = offsets[y + 1]!;
  for (; i < iEnd && j < jEnd; i++, j++) {
    const d = bytes[i]! - bytes[j]!;
    if (d !== 0) return d;
  }
  return iEnd - i - (jEnd - j);
}

/** Order of a node's id and a text (any code units). */
function compareWithText(offsets: Uint32Array, bytes: Uint8Array, node: number, text: string): number {
  const from = offsets[node]!;
  const length = offsets[node + 1]! - from;
  const n = Math.min(length, text.length);
  for (let k = 0; k < n; k++) {
    const d = bytes[from + k]! - text.charCodeAt(k);
    if (d !== 0) return d;
  }
  return length - text.length;
}

function insertionSort(a: Int32Array, lo: number, end: number, offsets: Uint32Array, bytes: Uint8Array): void {
  for (let i = lo + 1; i < end; i++) {
    const v = a[i]!;
    let j = i - 1;
    while (j >= lo && compareNodes(offsets, bytes, a[j]!, v) > 0) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = v;
  }
}

/** Answers this large get a sampled first pivot (`partitionLow`). */
const SAMPLE_FROM = 4_096;
/** Ids sampled for it; the second smallest is the pivot (about 3% of the answer below it). */
const SAMPLE = 64;

/**
 * Lomuto partition of a[lo, end) around the median of its first, middle and last ids (answers
 * often come out nearly sorted, where a fixed pivot would be the worst case). Returns the pivot's
 * final index.
 */
function partition(a: Int32Array, lo: number, end: number, offsets: Uint32Array, bytes: Uint8Array): number {
  const hi = end - 1;
  const mid = lo + ((end - lo) >>> 1);
  // Order a[lo], a[mid], a[hi], then move the median to hi as the pivot.
  if (compareNodes(offsets, bytes, a[mid]!, a[lo]!) < 0) swap(a, mid, lo);
  if (compareNodes(offsets, bytes, a[hi]!, a[lo]!) < 0) swap(a, hi, lo);
  if (compareNodes(offsets, bytes, a[hi]!, a[mid]!) < 0) swap(a, hi, mid);
  swap(a, mid, hi);
  return partitionAt(a, lo, hi, offsets, bytes);
}

/**
 * Partition of a[0, end) around the second smallest of SAMPLE ids spread evenly over it: the
 * smallest few percent end up on the left, ready for the first page, for one pass over the rest
 * (a median pivot would need about two, halving down to the first id). The right part is ordered
 * later as any other (one more pass over it in all than a median split would cost).
 */
function partitionLow(a: Int32Array, end: number, offsets: Uint32Array, bytes: Uint8Array): number {
  const step = Math.floor(end / SAMPLE);
  // The two smallest sampled positions.
  let first = 0;
  let second = step;
  if (compareNodes(offsets, bytes, a[second]!, a[first]!) < 0) [first, second] = [second, first];
  for (let k = 2; k < SAMPLE; k++) {
    const i = k * step;
    if (compareNodes(offsets, bytes, a[i]!, a[second]!) < 0) {
      if (compareNodes(offsets, bytes, a[i]!, a[first]!) < 0) [first, second] = [i, first];
      else second = i;
    }
  }
  swap(a, second, end - 1);
  return partitionAt(a, 0, end - 1, offsets, bytes);
}

/** Lomuto partition of a[lo, hi) around the pivot at a[hi]; returns the pivot's final index. */
function partitionAt(a: Int32Array, lo: number, hi: number, offsets: Uint32Array, bytes: Uint8Array): number {
  const pivot = a[hi]!;
  const pivotFrom = offsets[pivot]!;
  const pivotLength = offsets[pivot + 1]! - pivotFrom;
  let store = lo;
  for (let i = lo; i < hi; i++) {
    const x = a[i]!;
    // compareNodes(x, pivot) < 0, with the pivot's bytes fixed.
    const from = offsets[x]!;
    const length = offsets[x + 1]! - from;
    const n = Math.min(length, pivotLength);
    let d = 0;
    for (let k = 0; k < n && d === 0; k++) d = bytes[from + k]! - bytes[pivotFrom + k]!;
    if (d < 0 || (d === 0 && length < pivotLength)) {
      a[i] = a[store]!;
      a[store] = x;
      store++;
    }
  }
  swap(a, store, hi);
  return store;
}

function swap(a: Int32Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}
