// Per-request memo of (node, slot) → state as an open-addressing hash table in one Int32Array
// (entries of four: generation stamp, node, slot, state). A check touches a dozen entries; a Map per
// request (allocation, boxed hashing) cost more than the evaluation itself. Tables are pooled and
// cleared in O(1) by bumping the generation.

const STRIDE = 4;

export class Memo {
  private table: Int32Array;
  private generation = 1;
  private mask: number;
  private size = 0;

  constructor(capacity = 64) {
    this.table = new Int32Array(capacity * STRIDE);
    this.mask = capacity - 1;
  }

  /** Entries held. */
  get count(): number {
    return this.size;
  }

  get capacity(): number {
    return this.mask + 1;
  }

  /** Forgets every entry. */
  clear(): void {
    this.size = 0;
    if (++this.generation === 0x7fffffff) {
      this.table.fill(0);
      this.generation = 1;
    }
  }

  /** The state stored for (node, slot), or -1. */
  get(node: number, slot: number): number {
    const { table, generation, mask } = this;
    for (let i = hash(node, slot) & mask; ; i = (i + 1) & mask) {
      const at = i * STRIDE;
      if (table[at] !== generation) return -1;
      if (table[at + 1] === node && table[at + 2] === slot) return table[at + 3]!;
    }
  }

  /** The state found by the last `claim` (-1: the entry was absent and has been inserted). */
  found = -1;
  /** Bumped whenever entries move (growth), which invalidates positions returned by `claim`. */
  layout = 0;

  /**
   * Finds (node, slot), inserting it with state `fresh` when absent, in one probe. Returns the
   * entry's position for `update` and leaves its previous state (or -1) in `found`.
   */
  claim(node: number, slot: number, fresh: number): number {
    const { table, generation, mask } = this;
    for (let i = hash(node, slot) & mask; ; i = (i + 1) & mask) {
      const at = i * STRIDE;
      if (table[at] !== generation) {
        table[at] = generation;
        table[at + 1] = node;
        table[at + 2] = slot;
        table[at + 3] = fresh;
        this.found = -1;
        if (++this.size * 2 > mask) {
          this.grow();
          return this.position(node, slot);
        }
        return i;
      }
      if (table[at + 1] === node && table[at + 2] === slot) {
        this.found = table[at + 3]!;
        return i;
      }
    }
  }

  /** Sets the state of the entry `claim` returned `position` for, while `layout` is still `layout`. */
  update(position: number, layout: number, node: number, slot: number, state: number): void {
    if (layout === this.layout) this.table[position * STRIDE + 3] = state;
    else this.set(node, slot, state);
  }

  private position(node: number, slot: number): number {
    const { table, generation, mask } = this;
    for (let i = hash(node, slot) & mask; ; i = (i + 1) & mask) {
      const at = i * STRIDE;
      if (table[at] !== generation || (table[at + 1] === node && table[at + 2] === slot)) return i;
    }
  }

  set(node: number, slot: number, state: number): void {
    const { table, generation, mask } = this;
    for (let i = hash(node, slot) & mask; ; i = (i + 1) & mask) {
      const at = i * STRIDE;
      if (table[at] !== generation) {
        table[at] = generation;
        table[at + 1] = node;
        table[at + 2] = slot;
        table[at + 3] = state;
        if (++this.size * 2 > mask) this.grow();
        return;
      }
      if (table[at + 1] === node && table[at + 2] === slot) {
        table[at + 3] = state;
        return;
      }
    }
  }

  private grow(): void {
    const { table, generation } = this;
    const capacity = (this.mask + 1) * 2;
    this.table = new Int32Array(capacity * STRIDE);
    this.mask = capacity - 1;
    this.generation = 1;
    this.size = 0;
    this.layout++;
    for (let at = 0; at < table.length; at += STRIDE) if (table[at] === generation) this.set(table[at + 1]!, table[at + 2]!, table[at + 3]!);
  }
}

function hash(node: number, slot: number): number {
  const h = Math.imul(node ^ Math.imul(slot, 0x85ebca77), 0x9e3779b1);
  return h ^ (h >>> 15);
}

const pool: Memo[] = [];
/** Tables larger than this (left by big lookups) are dropped instead of pooled. */
const POOL_MAX_CAPACITY = 1 << 14;

export function acquireMemo(): Memo {
  const memo = pool.pop();
  if (!memo) return new Memo();
  memo.clear();
  return memo;
}

export function releaseMemo(memo: Memo): void {
  if (pool.length < 8 && memo.capacity <= POOL_MAX_CAPACITY) pool.push(memo);
}
