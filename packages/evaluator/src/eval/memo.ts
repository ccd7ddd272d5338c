// Per-request memo of (node, slot) → state as an open-addressing hash table over typed arrays.
// A check touches a dozen entries; a Map per request (allocation, boxed hashing) cost more than the
// evaluation itself. Tables are pooled and cleared in O(1) by bumping a generation stamp.

export class Memo {
  private nodes: Int32Array;
  private slots: Int32Array;
  private states: Uint8Array;
  private stamps: Uint32Array;
  private generation = 1;
  private mask: number;
  private size = 0;

  constructor(capacity = 64) {
    this.nodes = new Int32Array(capacity);
    this.slots = new Int32Array(capacity);
    this.states = new Uint8Array(capacity);
    this.stamps = new Uint32Array(capacity);
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
    if (++this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  /** The state stored for (node, slot), or -1. */
  get(node: number, slot: number): number {
    const { stamps, nodes, slots, generation, mask } = this;
    for (let i = hash(node, slot) & mask; stamps[i] === generation; i = (i + 1) & mask) {
      if (nodes[i] === node && slots[i] === slot) return this.states[i]!;
    }
    return -1;
  }

  set(node: number, slot: number, state: number): void {
    const { stamps, nodes, slots, generation, mask } = this;
    let i = hash(node, slot) & mask;
    for (; stamps[i] === generation; i = (i + 1) & mask) {
      if (nodes[i] === node && slots[i] === slot) {
        this.states[i] = state;
        return;
      }
    }
    stamps[i] = generation;
    nodes[i] = node;
    slots[i] = slot;
    this.states[i] = state;
    if (++this.size * 2 > mask) this.grow();
  }

  private grow(): void {
    const { nodes, slots, states, stamps, generation } = this;
    const capacity = (this.mask + 1) * 2;
    this.nodes = new Int32Array(capacity);
    this.slots = new Int32Array(capacity);
    this.states = new Uint8Array(capacity);
    this.stamps = new Uint32Array(capacity);
    this.mask = capacity - 1;
    this.generation = 1;
    this.size = 0;
    for (let i = 0; i < stamps.length; i++) if (stamps[i] === generation) this.set(nodes[i]!, slots[i]!, states[i]!);
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
