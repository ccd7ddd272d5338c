// Subject sets (`group:eng#member`): userset u is (node[u], slot[u]), its subject code -(u + 1).
// Kept as two typed arrays (written to a checkpoint as they are) plus an open-addressing table
// (node, slot) → u + 1, rebuilt from them on load by integer hashing (no map entry per set).

const MIN_SLOTS = 256;
const MIN_SETS = 64;

const mix = (node: number, slot: number) => {
  const h = Math.imul(node ^ Math.imul(slot, 0x27d4eb2d), 0x9e3779b1);
  return h ^ (h >>> 15);
};

export class UsersetTable {
  private nodes: Int32Array;
  private slots: Uint16Array;
  private count: number;
  private table = new Int32Array(MIN_SLOTS);
  private nodeView: Int32Array;
  private slotView: Uint16Array;

  /** Empty, or over arrays read from elsewhere (see `fromArrays`; they are never written to). */
  constructor(nodes?: Int32Array, slots?: Uint16Array) {
    this.nodes = nodes ?? new Int32Array(MIN_SETS);
    this.slots = slots ?? new Uint16Array(MIN_SETS);
    this.count = 0;
    this.nodeView = this.nodes.subarray(0, 0);
    this.slotView = this.slots.subarray(0, 0);
    if (nodes) {
      let size = MIN_SLOTS;
      while (size < nodes.length * 2) size *= 2;
      this.table = new Int32Array(size);
      for (let u = 0; u < nodes.length; u++) this.place(u);
      this.count = nodes.length;
      this.views();
    }
  }

  get size(): number {
    return this.count;
  }

  /** Node per userset (length = userset count); valid until the next new userset. */
  get nodeArray(): Int32Array {
    return this.nodeView;
  }

  get slotArray(): Uint16Array {
    return this.slotView;
  }

  /** Userset of (node, slot), or -1. */
  find(node: number, slot: number): number {
    const { table, nodes, slots } = this;
    const mask = table.length - 1;
    for (let i = mix(node, slot) & mask; ; i = (i + 1) & mask) {
      const entry = table[i]!;
      if (entry === 0) return -1;
      if (nodes[entry - 1] === node && slots[entry - 1] === slot) return entry - 1;
    }
  }

  /** Userset of (node, slot), added if new. */
  intern(node: number, slot: number): number {
    const found = this.find(node, slot);
    if (found >= 0) return found;
    const u = this.count;
    if (u + 1 > this.nodes.length) {
      const nodes = new Int32Array(Math.max(MIN_SETS, this.nodes.length * 2));
      nodes.set(this.nodes);
      const slots = new Uint16Array(nodes.length);
      slots.set(this.slots);
      this.nodes = nodes;
      this.slots = slots;
    }
    this.nodes[u] = node;
    this.slots[u] = slot;
    if ((u + 1) * 2 > this.table.length) {
      this.table = new Int32Array(this.table.length * 2);
      for (let v = 0; v < u; v++) this.place(v);
    }
    this.place(u);
    this.count = u + 1;
    this.views();
    return u;
  }

  private place(u: number): void {
    const { table } = this;
    const mask = table.length - 1;
    let i = mix(this.nodes[u]!, this.slots[u]!) & mask;
    while (table[i] !== 0) i = (i + 1) & mask;
    table[i] = u + 1;
  }

  private views(): void {
    this.nodeView = this.nodes.subarray(0, this.count);
    this.slotView = this.slots.subarray(0, this.count);
  }

  /**
   * A table over arrays read from elsewhere, after checking them: equal lengths, every node below
   * `nodeCount`, every slot below `slotCount`, no (node, slot) twice. Returns a reason when unusable.
   */
  static fromArrays(nodes: Int32Array, slots: Uint16Array, nodeCount: number, slotCount: number): UsersetTable | string {
    if (nodes.length !== slots.length) return "userset count";
    for (let u = 0; u < nodes.length; u++) {
      if (nodes[u]! < 0 || nodes[u]! >= nodeCount || slots[u]! >= slotCount) return `userset ${u}`;
    }
    const table = new UsersetTable(nodes, slots);
    for (let u = 0; u < nodes.length; u++) if (table.find(nodes[u]!, slots[u]!) !== u) return `userset ${u} repeated`;
    return table;
  }
}
