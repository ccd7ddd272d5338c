// (type, object id) → node, as an open-addressing hash table of node numbers in one Int32Array.
// It holds no strings of its own (a slot's node names its type and id in the graph's arrays), so
// it is position-independent: a checkpoint carries the table as it is and loading it is a copy,
// where a Map would be rebuilt entry by entry (seconds at ten million objects).

/** FNV-1a over the type index and the id's UTF-16 units; part of the checkpoint format (change it with GRAPH_CODEC_VERSION). */
export function idHash(typeIndex: number, id: string): number {
  let h = Math.imul(0x811c9dc5 ^ typeIndex, 0x01000193);
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 16)) >>> 0;
}

const MIN_CAPACITY = 1024;

export class IdIndex {
  /** node + 1 per slot; 0 = empty. */
  private slots: Int32Array;
  private count = 0;

  constructor(
    private readonly nodeType: ArrayLike<number>,
    private readonly nodeId: ArrayLike<string>,
    slots?: Int32Array,
  ) {
    // A given table holds every node of the arrays (see `invalid`).
    this.slots = slots ?? new Int32Array(MIN_CAPACITY);
    this.count = slots ? nodeId.length : 0;
  }

  /** The table, for encoding (`new IdIndex(types, ids, table)` reads it back). */
  get table(): Int32Array {
    return this.slots;
  }

  /** Node of (type, id), or -1. */
  get(typeIndex: number, id: string): number {
    const { slots, nodeType, nodeId } = this;
    const mask = slots.length - 1;
    for (let i = idHash(typeIndex, id) & mask; ; i = (i + 1) & mask) {
      const entry = slots[i]!;
      if (entry === 0) return -1;
      const node = entry - 1;
      if (nodeType[node] === typeIndex && nodeId[node] === id) return node;
    }
  }

  /** Records `node`, the next node of the graph's arrays (nodes are indexed in order). */
  insert(node: number): void {
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    this.place(this.slots, node);
    this.count++;
  }

  private place(slots: Int32Array, node: number): void {
    const mask = slots.length - 1;
    let i = idHash(this.nodeType[node]!, this.nodeId[node]!) & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = node + 1;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    // In node order, not slot order: the ids are then read sequentially rather than at random.
    for (let node = 0; node < this.count; node++) this.place(slots, node);
    this.slots = slots;
  }

  /**
   * Checks a table read from elsewhere: a power-of-two size, room to spare, and every node in
   * [0, nodes) exactly once. Returns a reason, or undefined if the table is usable.
   */
  static invalid(slots: Int32Array, nodes: number): string | undefined {
    if (slots.length < MIN_CAPACITY || (slots.length & (slots.length - 1)) !== 0) return "id index size";
    if (nodes * 2 > slots.length) return "id index too full";
    const seen = new Uint8Array(nodes);
    let count = 0;
    for (let i = 0; i < slots.length; i++) {
      const entry = slots[i]!;
      if (entry === 0) continue;
      if (entry < 0 || entry > nodes || seen[entry - 1] === 1) return "id index entry";
      seen[entry - 1] = 1;
      count++;
    }
    return count === nodes ? undefined : "id index count";
  }
}
