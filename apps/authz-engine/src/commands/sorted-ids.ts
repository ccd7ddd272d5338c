/**
 * A lookup's ids, put in ascending code-unit order only as far as a reader has asked: an
 * incremental quicksort (partition the unsorted rest around a pivot, keep the right part for
 * later, continue on the left until a small run is sorted in place). The first id is known after
 * about two comparisons per id, the first k after about 2n + k·log k, and reading everything
 * costs what one full sort costs. So a listing can send its first page while the rest of the
 * answer is still being ordered, in exactly the order (and with exactly the cursors) of a full
 * sort: ids are distinct, so the order is unique.
 *
 * Shared by every page of the same answer (the lookup cache holds it); JavaScript runs one
 * reader at a time, and every reader only ever extends the sorted prefix.
 */
export class SortedIds {
  readonly length: number;
  /** ids[0, done) are in their final places. */
  private done: number;
  /**
   * Ends of the unsorted segments after `done`, the nearest last: every id before an end is
   * smaller than every id at or after it.
   */
  private readonly ends: number[];
  /** Ids put in place so far, read by tests to prove a page went out before the rest was ordered. */
  get sorted(): number {
    return this.done;
  }

  private constructor(
    private readonly ids: string[],
    alreadySorted: boolean,
  ) {
    this.length = ids.length;
    this.done = alreadySorted ? ids.length : 0;
    this.ends = alreadySorted ? [] : [ids.length];
  }

  /** Takes ownership of `ids` (distinct), which are reordered in place as readers ask. */
  static unsorted(ids: string[]): SortedIds {
    return new SortedIds(ids, false);
  }

  /** Ids already in ascending code-unit order. */
  static sorted(ids: string[]): SortedIds {
    return new SortedIds(ids, true);
  }

  /** The id at `index` (0 ≤ index < length) in sorted order. */
  at(index: number): string {
    if (index >= this.done) this.ensure(index + 1);
    return this.ids[index] as string;
  }

  /** Index of the first id strictly greater than `after` (length if none). */
  firstIndexAfter(after: string): number {
    // Extend the sorted prefix until its last id passes `after`, then search in it.
    while (this.done < this.length && (this.done === 0 || (this.ids[this.done - 1] as string) <= after)) this.ensure(this.done + 1);
    let low = 0;
    let high = this.done;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.ids[mid] as string) <= after) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Puts at least the first `count` ids in place. */
  ensure(count: number): void {
    const a = this.ids;
    const ends = this.ends;
    const target = Math.min(count, this.length);
    while (this.done < target) {
      const lo = this.done;
      const end = ends[ends.length - 1] as number;
      if (end - lo <= SMALL) {
        insertionSort(a, lo, end);
        this.done = end;
        ends.pop();
        continue;
      }
      const p = partition(a, lo, end);
      // a[p] is in its place: everything before it is smaller, everything after it larger.
      if (p === lo) this.done = lo + 1;
      else ends.push(p);
    }
  }
}

/** Runs this short or shorter are sorted by insertion. */
const SMALL = 16;

function insertionSort(a: string[], lo: number, end: number): void {
  for (let i = lo + 1; i < end; i++) {
    const v = a[i] as string;
    let j = i - 1;
    while (j >= lo && (a[j] as string) > v) {
      a[j + 1] = a[j] as string;
      j--;
    }
    a[j + 1] = v;
  }
}

/**
 * Lomuto partition of a[lo, end) around the median of its first, middle and last ids (lookups
 * often come out nearly sorted, where a fixed pivot would be the worst case). Returns the pivot's
 * final index.
 */
function partition(a: string[], lo: number, end: number): number {
  const hi = end - 1;
  const mid = lo + ((end - lo) >>> 1);
  // Order a[lo], a[mid], a[hi], then move the median to hi as the pivot.
  if ((a[mid] as string) < (a[lo] as string)) swap(a, mid, lo);
  if ((a[hi] as string) < (a[lo] as string)) swap(a, hi, lo);
  if ((a[hi] as string) < (a[mid] as string)) swap(a, hi, mid);
  swap(a, mid, hi);
  const pivot = a[hi] as string;
  let store = lo;
  for (let i = lo; i < hi; i++) {
    if ((a[i] as string) < pivot) {
      swap(a, i, store);
      store++;
    }
  }
  swap(a, store, hi);
  return store;
}

function swap(a: string[], i: number, j: number): void {
  const t = a[i] as string;
  a[i] = a[j] as string;
  a[j] = t;
}
