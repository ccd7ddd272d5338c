// The graph's objects: node n is (type[n], id bytes[offsets[n] .. offsets[n + 1])). Ids are ASCII
// (see isValidObjectId), so they are kept as one byte blob plus an offsets array instead of one JS
// string per node: a few bytes per object instead of a heap object, and the arrays can be written
// to a checkpoint and viewed again as they are. A string is decoded only when an answer names the
// object (`idOf`).
//
// (type, id) → node is an open-addressing table of (hash, node + 1) pairs in one Int32Array: a
// probe compares the stored hash first, so it reads one cache line per slot and touches the type
// and id bytes only on a (nearly always true) hash match. The table holds no pointers, so a
// checkpoint carries it as it is and loading it is a view.

/** FNV-1a over the type index and the id's characters; part of the checkpoint format (change it with GRAPH_CODEC_VERSION). */
export function idHash(typeIndex: number, id: string): number {
  let h = Math.imul(0x811c9dc5 ^ typeIndex, 0x01000193);
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 16);
}

/** Minimum number of slots (pairs) of the hash table. */
const MIN_SLOTS = 1024;
const MIN_NODES = 256;
const MIN_BYTES = 4096;
/** Longest id (isValidObjectId); `idOf` decodes one in a single call. */
const MAX_ID_BYTES = 1024;

/** The node table's arrays, exactly as held (each may be longer than used: only the prefix counts). */
export interface NodeArrays {
  nodes: number;
  types: Uint16Array;
  /** nodes + 1 entries. */
  offsets: Uint32Array;
  bytes: Uint8Array;
  /** 2 × slots entries: (hash, node + 1) pairs, node + 1 = 0 for an empty slot. */
  table: Int32Array;
}

export class NodeTable {
  private types: Uint16Array;
  private offsets: Uint32Array;
  private bytes: Uint8Array;
  private table: Int32Array;
  private count: number;
  /** `types` cut to the node count, handed out by `typeView` (rebuilt when nodes are added). */
  private view: Uint16Array;
  /** The table is a view of bytes the caller may keep (a checkpoint in memory): copied before the first write. */
  private tableShared: boolean;

  /** Empty, or over arrays read from elsewhere (check them with `invalid` first; they are never written to). */
  constructor(arrays?: NodeArrays) {
    this.count = arrays?.nodes ?? 0;
    this.types = arrays?.types ?? new Uint16Array(MIN_NODES);
    this.offsets = arrays?.offsets ?? new Uint32Array(MIN_NODES + 1);
    this.bytes = arrays?.bytes ?? new Uint8Array(MIN_BYTES);
    this.table = arrays?.table ?? new Int32Array(2 * MIN_SLOTS);
    this.view = this.types.subarray(0, this.count);
    this.tableShared = arrays !== undefined;
  }

  get size(): number {
    return this.count;
  }

  /** Type index per node (length = node count); valid until the next `intern` of a new object. */
  get typeView(): Uint16Array {
    return this.view;
  }

  /** The arrays cut to their used length, for encoding. */
  arrays(): NodeArrays {
    const n = this.count;
    return { nodes: n, types: this.types.subarray(0, n), offsets: this.offsets.subarray(0, n + 1), bytes: this.bytes.subarray(0, this.offsets[n]!), table: this.table };
  }

  typeOf(node: number): number {
    return this.types[node]!;
  }

  /** The object id of a node, decoded from its bytes. */
  idOf(node: number): string {
    const from = this.offsets[node]!;
    const to = this.offsets[node + 1]!;
    // Ids are short (isValidObjectId caps them), so one call decodes them whole.
    return String.fromCharCode.apply(null, this.bytes.subarray(from, to) as unknown as number[]);
  }

  /** Whether node's id is `id`, compared byte by character (no string is made). */
  idIs(node: number, id: string): boolean {
    const { offsets, bytes } = this;
    const from = offsets[node]!;
    if (offsets[node + 1]! - from !== id.length) return false;
    for (let i = 0; i < id.length; i++) if (bytes[from + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  /** Node of (type, id), or -1. */
  find(typeIndex: number, id: string): number {
    const { table } = this;
    const hash = idHash(typeIndex, id);
    const mask = (table.length >>> 1) - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = table[2 * i + 1]!;
      if (entry === 0) return -1;
      if (table[2 * i] === hash && this.types[entry - 1] === typeIndex && this.idIs(entry - 1, id)) return entry - 1;
    }
  }

  /** Node of (type, id), added as the next node if it is new. The id must be ASCII. */
  intern(typeIndex: number, id: string): number {
    const hash = idHash(typeIndex, id);
    let table = this.table;
    let mask = (table.length >>> 1) - 1;
    let i = hash & mask;
    for (; ; i = (i + 1) & mask) {
      const entry = table[2 * i + 1]!;
      if (entry === 0) break;
      if (table[2 * i] === hash && this.types[entry - 1] === typeIndex && this.idIs(entry - 1, id)) return entry - 1;
    }
    const node = this.count;
    if ((node + 1) * 4 > (table.length >>> 1) * 3) {
      // Three quarters full at most: every probe sequence ends at an empty slot, and a probe past
      // a slot costs one more 8-byte read in the same cache line (the stored hash rarely matches).
      table = this.grow();
      mask = (table.length >>> 1) - 1;
      for (i = hash & mask; table[2 * i + 1] !== 0; i = (i + 1) & mask);
    } else if (this.tableShared) table = this.table = table.slice();
    this.tableShared = false;
    // Bytes first: a refused id leaves no table entry behind.
    this.append(typeIndex, id);
    table[2 * i] = hash;
    table[2 * i + 1] = node + 1;
    return node;
  }

  private append(typeIndex: number, id: string): void {
    const node = this.count;
    if (node + 1 > this.types.length) this.types = grown(this.types, node + 1) as Uint16Array;
    if (node + 2 > this.offsets.length) this.offsets = grown(this.offsets, node + 2) as Uint32Array;
    const from = this.offsets[node]!;
    if (from + id.length > this.bytes.length) this.bytes = grown(this.bytes, from + id.length) as Uint8Array;
    const { bytes } = this;
    for (let i = 0; i < id.length; i++) {
      const code = id.charCodeAt(i);
      if (code > 0x7f) throw new RangeError("object ids must be ASCII");
      bytes[from + i] = code;
    }
    this.types[node] = typeIndex;
    this.offsets[node + 1] = from + id.length;
    this.count = node + 1;
    this.view = this.types.subarray(0, this.count);
  }

  /** Doubles the hash table, reusing the stored hashes (no id is read). */
  private grow(): Int32Array {
    const old = this.table;
    const table = new Int32Array(old.length * 2);
    const mask = (table.length >>> 1) - 1;
    for (let j = 0; j < old.length; j += 2) {
      const entry = old[j + 1]!;
      if (entry === 0) continue;
      const hash = old[j]!;
      let i = hash & mask;
      while (table[2 * i + 1] !== 0) i = (i + 1) & mask;
      table[2 * i] = hash;
      table[2 * i + 1] = entry;
    }
    this.table = table;
    return table;
  }

  /**
   * Checks arrays read from elsewhere before they are used: every type below `types`, id offsets
   * ascending and within the bytes, and a hash table of a power-of-two size, at most 3/4 full
   * (so every probe ends) and holding every node exactly once. Hashes are not recomputed: a wrong
   * one can only make a lookup miss (the checksum guards against that), never read out of bounds.
   * Returns a reason, or undefined if the arrays are usable.
   */
  static invalid(arrays: NodeArrays, typeCount: number): string | undefined {
    const { nodes, types, offsets, bytes, table } = arrays;
    if (types.length !== nodes || offsets.length !== nodes + 1) return "node array lengths";
    for (let n = 0; n < nodes; n++) if (types[n]! >= typeCount) return `node ${n} has type ${types[n]}`;
    if (offsets[0] !== 0 || offsets[nodes] !== bytes.length) return "id offsets";
    for (let n = 0; n < nodes; n++) {
      const length = offsets[n + 1]! - offsets[n]!;
      if (length < 0 || length > MAX_ID_BYTES) return "id offsets";
    }
    const slots = table.length >>> 1;
    if (table.length % 2 !== 0 || slots < MIN_SLOTS || (slots & (slots - 1)) !== 0) return "id index size";
    if (nodes * 4 > slots * 3) return "id index too full";
    const seen = new Uint8Array(nodes);
    let count = 0;
    for (let i = 1; i < table.length; i += 2) {
      const entry = table[i]!;
      if (entry === 0) continue;
      if (entry < 0 || entry > nodes || seen[entry - 1] === 1) return "id index entry";
      seen[entry - 1] = 1;
      count++;
    }
    return count === nodes ? undefined : "id index count";
  }
}

/** A copy of `array` with room for at least `needed` elements (doubling, so appends are amortised O(1)). */
function grown(array: Uint8Array | Uint16Array | Uint32Array, needed: number): Uint8Array | Uint16Array | Uint32Array {
  const bigger = new (array.constructor as new (n: number) => typeof array)(Math.max(needed, array.length * 2));
  bigger.set(array);
  return bigger;
}
