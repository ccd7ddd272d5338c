// The graph's objects: node n is (type[n], id bytes[offsets[n] .. offsets[n + 1])). Ids are ASCII
// (see isValidObjectId), so they are kept as one byte blob plus an offsets array instead of one JS
// string per node: a few bytes per object instead of a heap object, and the arrays can be written
// to a checkpoint and viewed again as they are. A string is decoded only when an answer names the
// object (`idOf`).
//
// (type, id) → node is an open-addressing table of (tag, node + 1) pairs in one Int32Array. A tag
// is the object's type in its low 16 bits and 16 bits of a mix of its id hash above them, so a
// probe reads one cache line per slot, settles the type there (at millions of nodes, reading the
// node's type would be one more cache miss per lookup) and touches the id bytes only on a tag
// match. The table holds no pointers, so a checkpoint carries it as it is and loading it is a view.
//
// A table over arrays read from elsewhere (a checkpoint, or a graph shared by several threads) is
// never written to: the objects added after it go to a small table of their own (`added`), probed
// after the base table misses, so an added object costs its entry instead of a copy of the whole
// table (128 MiB at ten million relationships, per thread). The node arrays are views too, exactly
// as long as their nodes: the first object added copies large ones with an eighth more room, not
// twice the room (a graph over a shared base is replaced by the next base long before it grows
// that much).
//
// Threads sharing one graph add the same objects in the same order (each applies the same commits
// from the same base), so the node arrays of a shared base come with zeroed room after them
// (`NodeRoom`): the thread that applies each commit first writes the objects it adds into that room,
// and every other thread, applying the commit after it, finds each object already there, compares
// it and moves on. The node arrays are then held once however many threads add objects. A thread
// that finds anything else there (the writer ran out of room) copies the arrays from then on.

/** FNV-1a over the type index and the id's characters; part of the checkpoint format (change it with GRAPH_CODEC_VERSION). */
export function idHash(typeIndex: number, id: string): number {
  let h = Math.imul(0x811c9dc5 ^ typeIndex, 0x01000193);
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 16);
}

/** `idHash` over id bytes already stored. */
function bytesHash(typeIndex: number, bytes: Uint8Array, from: number, to: number): number {
  let h = Math.imul(0x811c9dc5 ^ typeIndex, 0x01000193);
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h ^ (h >>> 16);
}

/**
 * The table's tag of (type, hash): the type exactly, and 16 bits of the hash multiplied by an odd
 * constant (so they are not the low bits that already chose the slot). Part of the checkpoint format.
 */
function tagOf(typeIndex: number, hash: number): number {
  return (Math.imul(hash, 0x2c1b3c6d) & ~0xffff) | typeIndex;
}

/** Minimum number of slots (pairs) of the hash table. */
const MIN_SLOTS = 1024;
const MIN_NODES = 256;
const MIN_BYTES = 4096;
/** `invalid` checks the id table's entries per bucket of 2^BUCKET_SHIFT consecutive nodes. */
const BUCKET_SHIFT = 16;
const BUCKET_MASK = (1 << BUCKET_SHIFT) - 1;
/** Node arrays read from elsewhere of at least this many elements grow by an eighth (see `grown`). */
const LARGE_ARRAY = 1 << 20;
/** Longest id (isValidObjectId); `idOf` decodes one in a single call. */
const MAX_ID_BYTES = 1024;

/**
 * What a table over arrays read from elsewhere does with the objects it adds: `copy` the node arrays
 * first (they are never written: the default), `write` them into the arrays' room (the one thread that
 * applies each commit first), or `compare` them with what that thread wrote there (the others).
 */
export type NodeRoom = "copy" | "write" | "compare";

/** The node table's arrays, exactly as held (each may be longer than used: only the prefix counts). */
export interface NodeArrays {
  nodes: number;
  types: Uint16Array;
  /** nodes + 1 entries. */
  offsets: Uint32Array;
  bytes: Uint8Array;
  /** 2 × slots entries: (tag, node + 1) pairs, node + 1 = 0 for an empty slot (see `tagOf`). */
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
  /** The table is a view of bytes the caller may keep (a checkpoint in memory, shared memory): never written. */
  private tableShared: boolean;
  /** With a shared table: (tag, node + 1) pairs of the nodes added since (from `addedFrom`), else undefined. */
  private added: Int32Array | undefined = undefined;
  private addedFrom = 0;
  /** How an added object reaches the node arrays (`own`: they are this table's). */
  private adds: NodeRoom | "own";

  /**
   * Empty, or over arrays read from elsewhere (check them with `invalid` first): the hash table is
   * never written to, the node arrays only as `room` says.
   */
  constructor(arrays?: NodeArrays, room: NodeRoom = "copy") {
    this.adds = arrays === undefined ? "own" : room;
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

  /**
   * Bytes of node arrays this table holds of its own (allocated, used or not); 0 while they are
   * views of arrays read from elsewhere (a checkpoint, a shared base and the room after it).
   */
  get ownBytes(): number {
    return this.adds === "own" ? this.types.byteLength + this.offsets.byteLength + this.bytes.byteLength : 0;
  }

  /** Type index per node (length = node count); valid until the next `intern` of a new object. */
  get typeView(): Uint16Array {
    return this.view;
  }

  /** The arrays cut to their used length, for encoding (the table whole: a shared one with the added nodes in a copy). */
  arrays(): NodeArrays {
    const n = this.count;
    return { nodes: n, types: this.types.subarray(0, n), offsets: this.offsets.subarray(0, n + 1), bytes: this.bytes.subarray(0, this.offsets[n]!), table: this.wholeTable() };
  }

  /** The table with every node: the shared one as it is, or a copy of it holding the added nodes too. */
  private wholeTable(): Int32Array {
    if (this.added === undefined) return this.table;
    const table = this.table.slice();
    this.place(table, this.addedFrom);
    return table;
  }

  /** Enters nodes `from` .. count into `table` (their hashes computed again from their bytes, in node order). */
  private place(table: Int32Array, from: number): void {
    const mask = (table.length >>> 1) - 1;
    const { types, offsets, bytes } = this;
    for (let node = from; node < this.count; node++) {
      const type = types[node]!;
      const hash = bytesHash(type, bytes, offsets[node]!, offsets[node + 1]!);
      let i = hash & mask;
      while (table[2 * i + 1] !== 0) i = (i + 1) & mask;
      table[2 * i] = tagOf(type, hash);
      table[2 * i + 1] = node + 1;
    }
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

  /**
   * The id bytes as held now (`bytes[offsets[n], offsets[n + 1])` is node n's id): for comparing ids
   * without decoding them. Valid until the next `intern` of a new object (the arrays may grow).
   */
  idArrays(): { offsets: Uint32Array; bytes: Uint8Array } {
    return { offsets: this.offsets, bytes: this.bytes };
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
    const hash = idHash(typeIndex, id);
    const tag = tagOf(typeIndex, hash);
    const found = this.probe(this.table, hash, tag, id);
    return found < 0 && this.added !== undefined ? this.probe(this.added, hash, tag, id) : found;
  }

  /** Node of the id with this hash and tag in `table`, or -1. */
  private probe(table: Int32Array, hash: number, tag: number, id: string): number {
    const mask = (table.length >>> 1) - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = table[2 * i + 1]!;
      if (entry === 0) return -1;
      if (table[2 * i] === tag && this.idIs(entry - 1, id)) return entry - 1;
    }
  }

  /**
   * `find` of two objects at once (a check's resource and subject), into `out[0]` and `out[1]`.
   * Each lookup is three dependent reads (table slot, id offsets, id bytes), cache misses at
   * millions of nodes; taking both lookups a step at a time keeps two misses in flight instead of
   * one. Anything but the common case (each object in its first slot) finishes with `find`.
   */
  findPair(typeA: number, idA: string, typeB: number, idB: string, out: Int32Array): void {
    const { table, offsets, bytes } = this;
    const hashA = idHash(typeA, idA);
    const hashB = idHash(typeB, idB);
    const mask = (table.length >>> 1) - 1;
    const slotA = 2 * (hashA & mask);
    const slotB = 2 * (hashB & mask);
    const nodeA = table[slotA + 1]! - 1;
    const nodeB = table[slotB + 1]! - 1;
    if (nodeA >= 0 && nodeB >= 0 && table[slotA] === tagOf(typeA, hashA) && table[slotB] === tagOf(typeB, hashB)) {
      const fromA = offsets[nodeA]!;
      const fromB = offsets[nodeB]!;
      const sameA = offsets[nodeA + 1]! - fromA === idA.length && bytes[fromA] === idA.charCodeAt(0);
      const sameB = offsets[nodeB + 1]! - fromB === idB.length && bytes[fromB] === idB.charCodeAt(0);
      out[0] = sameA && this.idIs(nodeA, idA) ? nodeA : this.find(typeA, idA);
      out[1] = sameB && this.idIs(nodeB, idB) ? nodeB : this.find(typeB, idB);
      return;
    }
    out[0] = this.find(typeA, idA);
    out[1] = this.find(typeB, idB);
  }

  /** Node of (type, id), added as the next node if it is new. The id must be ASCII. */
  intern(typeIndex: number, id: string): number {
    const hash = idHash(typeIndex, id);
    const tag = tagOf(typeIndex, hash);
    const known = this.probe(this.table, hash, tag, id);
    if (known >= 0) return known;
    if (this.added !== undefined) {
      const added = this.probe(this.added, hash, tag, id);
      if (added >= 0) return added;
    }
    const node = this.count;
    let table: Int32Array;
    if ((node + 1) * 4 > (this.table.length >>> 1) * 3) {
      // Three quarters full at most: every probe sequence ends at an empty slot, and a probe past
      // a slot costs one more 8-byte read in the same cache line (the stored hash rarely matches).
      // The grown table is this one's own, with every node (the added ones' table is dropped).
      table = this.grow();
      this.tableShared = false;
      this.added = undefined;
    } else if (this.tableShared) {
      // A shared table is not written: the node goes to the added nodes' table.
      if (this.added === undefined) {
        this.added = new Int32Array(2 * MIN_SLOTS);
        this.addedFrom = node;
      }
      table = this.added;
      if ((node - this.addedFrom + 1) * 4 > (table.length >>> 1) * 3) {
        table = this.added = new Int32Array(table.length * 2);
        this.place(table, this.addedFrom);
      }
    } else table = this.table;
    const mask = (table.length >>> 1) - 1;
    let i = hash & mask;
    while (table[2 * i + 1] !== 0) i = (i + 1) & mask;
    // Bytes first: a refused id leaves no table entry behind.
    this.append(typeIndex, id);
    table[2 * i] = tag;
    table[2 * i + 1] = node + 1;
    return node;
  }

  private append(typeIndex: number, id: string): void {
    const node = this.count;
    if (this.adds === "compare") {
      if (this.holds(node, typeIndex, id)) {
        this.count = node + 1;
        this.view = this.types.subarray(0, this.count);
        return;
      }
      this.adds = "copy";
    }
    // Out of room: the arrays are copied whole, so none is written in shared memory after this.
    if (this.adds === "write" && (node + 2 > this.offsets.length || this.offsets[node]! + id.length > this.bytes.length)) this.adds = "copy";
    if (this.adds === "copy") this.ownArrays();
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

  /** Whether the arrays already hold (type, id) as `node` (written there by the thread that applies commits first). */
  private holds(node: number, typeIndex: number, id: string): boolean {
    const { types, offsets, bytes } = this;
    if (node + 1 >= offsets.length || types[node] !== typeIndex) return false;
    const from = offsets[node]!;
    if (offsets[node + 1] !== from + id.length) return false;
    for (let i = 0; i < id.length; i++) if (bytes[from + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  /** Copies the node arrays read from elsewhere (their used part, with room to grow): this table writes its own from now on. */
  private ownArrays(): void {
    const n = this.count;
    const used = this.offsets[n]!;
    this.types = grown(this.types.subarray(0, n), n + 1) as Uint16Array;
    this.offsets = grown(this.offsets.subarray(0, n + 1), n + 2) as Uint32Array;
    this.bytes = grown(this.bytes.subarray(0, used), used + MAX_ID_BYTES) as Uint8Array;
    this.adds = "own";
  }

  /** Drops the spare capacity of the node arrays (after a bulk load: doubling leaves up to half unused). */
  trim(): void {
    const n = this.count;
    const owned = (a: Uint8Array | Uint16Array | Uint32Array) => a.buffer.byteLength === a.byteLength;
    if (this.types.length > n && owned(this.types)) this.types = this.types.slice(0, n);
    if (this.offsets.length > n + 1 && owned(this.offsets)) this.offsets = this.offsets.slice(0, n + 1);
    const used = this.offsets[n]!;
    if (this.bytes.length > used && owned(this.bytes)) this.bytes = this.bytes.slice(0, used);
    this.view = this.types.subarray(0, n);
  }

  /**
   * Doubles the hash table. Tags keep too few bits of the hash to place an entry, so each node's
   * hash is computed again from its bytes, in node order (the bytes are read in sequence).
   */
  private grow(): Int32Array {
    const table = new Int32Array(this.table.length * 2);
    this.place(table, 0);
    this.table = table;
    return table;
  }

  /**
   * Checks arrays read from elsewhere before they are used: every type below `types`, id offsets
   * ascending and within the bytes, and a hash table of a power-of-two size, at most 3/4 full
   * (so every probe ends) and holding every node exactly once, each under a tag of its own type.
   * Hashes are not recomputed: a wrong one can only make a lookup miss (the checksum guards against
   * that), never read out of bounds nor find an object of another type. Returns a reason, or
   * undefined if the arrays are usable. `scratch` (at least one element per node, overwritten):
   * room the caller needs next anyway, so the check takes no fresh pages of its own.
   */
  static invalid(arrays: NodeArrays, typeCount: number, scratch?: Int32Array): string | undefined {
    const { nodes, types, offsets, bytes, table } = arrays;
    if (types.length !== nodes || offsets.length !== nodes + 1) return "node array lengths";
    if (offsets[0] !== 0 || offsets[nodes] !== bytes.length) return "id offsets";
    // Types and id offsets in one pass (each offset read once).
    for (let n = 0, from = 0; n < nodes; n++) {
      if (types[n]! >= typeCount) return `node ${n} has type ${types[n]}`;
      const to = offsets[n + 1]!;
      const length = to - from;
      if (length < 0 || length > MAX_ID_BYTES) return "id offsets";
      from = to;
    }
    const slots = table.length >>> 1;
    if (table.length % 2 !== 0 || slots < MIN_SLOTS || (slots & (slots - 1)) !== 0) return "id index size";
    if (nodes * 4 > slots * 3) return "id index too full";
    // Every entry names a node in range, each node once, under a tag of the node's own type. The
    // entries come in hash order, so checking them against the nodes directly is one cache (and
    // TLB) miss per entry: at 94 million nodes, about 2.5 s of CPU. Instead the entries are first sorted
    // into buckets of 2^16 consecutive nodes (one counting pass, one pass writing each entry as
    // its node's low 16 bits under its tag's type), then each bucket is checked against a 64 KiB
    // mark array and its slice of `types`, both in cache.
    let count = 0;
    const buckets = new Int32Array((nodes >>> BUCKET_SHIFT) + 2);
    for (let i = 1; i < table.length; i += 2) {
      const entry = table[i]!;
      if (entry === 0) continue;
      if (entry < 0 || entry > nodes) return "id index entry";
      buckets[((entry - 1) >>> BUCKET_SHIFT) + 1]!++;
      count++;
    }
    if (count !== nodes) return "id index count";
    for (let b = 1; b < buckets.length; b++) buckets[b]! += buckets[b - 1]!;
    const next = buckets.slice();
    const sorted = scratch !== undefined && scratch.length >= nodes ? scratch : new Int32Array(nodes);
    for (let i = 1; i < table.length; i += 2) {
      const entry = table[i]!;
      if (entry === 0) continue;
      const node = entry - 1;
      sorted[next[node >>> BUCKET_SHIFT]!++] = ((table[i - 1]! & 0xffff) << 16) | (node & BUCKET_MASK);
    }
    const marks = new Uint8Array(BUCKET_MASK + 1);
    for (let b = 0; b + 1 < buckets.length; b++) {
      const first = b * (BUCKET_MASK + 1);
      for (let p = buckets[b]!, end = buckets[b + 1]!; p < end; p++) {
        const packed = sorted[p]!;
        const low = packed & BUCKET_MASK;
        // count === nodes and no node twice: every node has exactly one entry.
        if (marks[low] !== 0 || types[first + low] !== packed >>> 16) return "id index entry";
        marks[low] = 1;
      }
      marks.fill(0);
    }
    return undefined;
  }
}

/**
 * A copy of `array` with room for at least `needed` elements: twice the room (amortised O(1)
 * appends), but only an eighth more for a large view of arrays read from elsewhere (a checkpoint,
 * a shared base), so the first object added does not hold a large graph's node arrays twice over.
 */
function grown(array: Uint8Array | Uint16Array | Uint32Array, needed: number): Uint8Array | Uint16Array | Uint32Array {
  const view = array.buffer.byteLength !== array.byteLength;
  const room = view && array.length >= LARGE_ARRAY ? array.length + (array.length >>> 3) : array.length * 2;
  const bigger = new (array.constructor as new (n: number) => typeof array)(Math.max(needed, room));
  bigger.set(array);
  return bigger;
}
