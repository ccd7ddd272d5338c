// Binary form of a RelationshipGraph: the graph's own arrays as they are held in memory (node
// types, id offsets and id bytes, the id hash table, subject sets, and each relation index's
// offsets and targets), each an 8-byte-aligned section, after a small JSON description (type and
// slot names, array lengths). Decoding makes typed-array views over the bytes and checks them in
// one pass each (`RelationshipGraph.fromArrays`): no string per object, no map entry, no rebuilt
// index (a checkpoint start at ten million relationships: 1.7 s of CPU in all, docs/history/scaling.md).
// Integrity (checksum, store, revision) is the caller's job: this module stays pure
// (no Node APIs), so it runs in a browser too.
import { EvaluationError } from "../errors.js";
import type { Model } from "../model/model.js";
import type { Relationship } from "../relationship.js";
import type { AdjacencyBase } from "./adjacency.js";
import type { NodeRoom } from "./node-table.js";
import { RelationshipGraph, type GraphArrays } from "./relationship-graph.js";

/** Version of the body layout below; a decoder refuses any other. */
export const GRAPH_CODEC_VERSION = 4;

/** An index's base: [keyed (1) or dense (0), bias, keys, offsets, targets] (counts of elements). */
type BaseShape = [keyed: number, bias: number, keys: number, offsets: number, targets: number];

interface Description {
  v: number;
  /** Type names and `type#relation` of every slot, so a body is only read by the model it was made by. */
  types: string[];
  slots: string[];
  nodes: number;
  idBytes: number;
  /** Entries (two per slot) of the id hash table. */
  idTable: number;
  usersets: number;
  /** Per stored slot: its forward, reverse and (if the slot allows subject sets) subject-set index. */
  indexes: Array<[slot: number, forward: BaseShape, reverse: BaseShape, sets?: BaseShape]>;
  /** Relationships that expire, whole (they are few; the indexes above hold them too). */
  expiring?: Relationship[];
  /** Zeroed room after the node arrays (`EncodeOptions.room`): objects, and their id bytes. */
  room?: [nodes: number, idBytes: number];
}

const slotNames = (model: Model) => model.slots.map((s) => `${model.typeNames[s.typeIndex]}#${s.name}`);
/** Sections start at multiples of 8 (of the body), so any typed array can view them. */
const ALIGN = 8;
const pad = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

function asciiBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) throw new EvaluationError("invalid-relationship", "graph encoding: a name is not ASCII");
    bytes[i] = code;
  }
  return bytes;
}

function asciiText(bytes: Uint8Array): string {
  const chunks: string[] = [];
  for (let i = 0; i < bytes.length; i += 8192) chunks.push(String.fromCharCode(...bytes.subarray(i, i + 8192)));
  return chunks.join("");
}

/** JSON with every non-ASCII character escaped, so it fits `asciiBytes`. */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const shapeOf = (b: AdjacencyBase): BaseShape => [b.keys ? 1 : 0, b.bias, b.keys?.length ?? 0, b.offsets.length, b.targets.length];
const partsOf = (b: AdjacencyBase): ArrayBufferView[] => [...(b.keys ? [b.keys] : []), b.offsets, b.targets];

export interface EncodeOptions {
  /**
   * Bytes left zero before the encoding, for the caller's own header (a multiple of 8, so the
   * encoding stays aligned): one buffer instead of encoding and copying hundreds of MiB again.
   */
  reserve?: number;
  /** Makes the zeroed buffer the encoding is written into (default: a Uint8Array; shared memory, for one). */
  allocate?: (bytes: number) => Uint8Array;
  /**
   * Zeroed room after the node arrays, for this many objects and id bytes: a graph decoded with
   * `DecodeOptions.room` adds its objects there instead of copying the node arrays (a graph shared
   * by threads, see NodeTable). Never stored: only a trusted decode reads an encoding with room.
   * Untouched room costs address space, not memory.
   */
  room?: { nodes: number; idBytes: number };
}

/** How `decodeGraph` takes the bytes (see `RelationshipGraph.fromArrays`). */
export interface DecodeOptions {
  /** Encoded by this process (shared memory it made): decoded without the checks on every array. */
  trusted?: boolean;
  /** Shared with other threads and replaced whole by its owner: reads never fold an index into a private copy. */
  shared?: boolean;
  /** An encoding with room: this graph writes the objects it adds there, or compares them with what the writer put there (NodeRoom). */
  room?: NodeRoom;
}

/** Encodes the graph's contents; `decodeGraph(model, bytes)` rebuilds an equal graph. */
export function encodeGraph(graph: RelationshipGraph, options: EncodeOptions = {}): Uint8Array {
  const reserve = options.reserve ?? 0;
  if (!Number.isSafeInteger(reserve) || reserve < 0 || reserve % ALIGN !== 0) throw new RangeError(`reserve must be a multiple of ${ALIGN}`);
  const arrays = graph.toArrays();
  const { nodes } = arrays;
  const room = options.room;
  if (room !== undefined && !(Number.isSafeInteger(room.nodes) && room.nodes >= 0 && Number.isSafeInteger(room.idBytes) && room.idBytes >= 0)) {
    throw new RangeError("room must be counts of objects and id bytes");
  }
  const description: Description = {
    v: GRAPH_CODEC_VERSION,
    types: [...graph.model.typeNames],
    slots: slotNames(graph.model),
    nodes: nodes.nodes,
    idBytes: nodes.bytes.length,
    idTable: nodes.table.length,
    usersets: arrays.usersetNode.length,
    indexes: arrays.adjacencies.map((a) => [a.slot, shapeOf(a.forward), shapeOf(a.reverse), ...(a.sets ? [shapeOf(a.sets)] : [])] as Description["indexes"][number]),
    ...(arrays.expiring ? { expiring: arrays.expiring } : {}),
    ...(room ? { room: [room.nodes, room.idBytes] as [number, number] } : {}),
  };
  const head = asciiBytes(asciiJson(description));
  const parts: ArrayBufferView[] = [
    nodes.types,
    nodes.offsets,
    nodes.bytes,
    nodes.table,
    arrays.usersetNode,
    arrays.usersetSlot,
    ...arrays.adjacencies.flatMap((a) => [...partsOf(a.forward), ...partsOf(a.reverse), ...(a.sets ? partsOf(a.sets) : [])]),
  ];
  // Room follows the node types, id offsets and id bytes (the first three parts), left zero.
  const extra = room ? [2 * room.nodes, 4 * room.nodes, room.idBytes] : [];
  const sizes = parts.map((p, i) => pad(p.byteLength + (extra[i] ?? 0)));
  const length = reserve + ALIGN + pad(head.length) + sizes.reduce((n, size) => n + size, 0);
  const out = options.allocate ? options.allocate(length) : new Uint8Array(length);
  if (out.length !== length || out.byteOffset % ALIGN !== 0) throw new RangeError(`allocate must return ${length} aligned bytes`);
  new DataView(out.buffer, out.byteOffset, out.byteLength).setUint32(reserve, head.length, true);
  out.set(head, reserve + ALIGN);
  let at = reserve + ALIGN + pad(head.length);
  parts.forEach((part, i) => {
    out.set(bytesOf(part), at);
    at += sizes[i]!;
  });
  return out;
}

/**
 * Rebuilds a graph from `encodeGraph` output; throws an EvaluationError if it is malformed or of
 * another model. The graph views `bytes` (never writes them): keep them unchanged while it lives.
 */
export function decodeGraph(model: Model, bytes: Uint8Array, options: DecodeOptions = {}): RelationshipGraph {
  const bad = (why: string): never => {
    throw new EvaluationError("invalid-relationship", `graph encoding is invalid: ${why}`);
  };
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) bad("only little-endian platforms are supported");
  // Typed-array views need aligned offsets in the underlying buffer: copy once if the bytes are not.
  const body = bytes.byteOffset % ALIGN === 0 ? bytes : bytes.slice();
  if (body.length < ALIGN) bad("truncated");
  let at = 0;
  const take = (count: unknown, width: number): Uint8Array => {
    if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0) bad("an array length is not a count");
    const length = (count as number) * width;
    if (at + length > body.length) bad("truncated");
    const part = body.subarray(at, at + length);
    at += pad(length);
    return part;
  };
  const int32 = (count: unknown) => {
    const part = take(count, 4);
    return new Int32Array(part.buffer, part.byteOffset, part.length / 4);
  };
  const uint16 = (count: unknown) => {
    const part = take(count, 2);
    return new Uint16Array(part.buffer, part.byteOffset, part.length / 2);
  };
  const headLength = new DataView(body.buffer, body.byteOffset, ALIGN).getUint32(0, true);
  at = ALIGN;
  let d: Description;
  try {
    d = JSON.parse(asciiText(take(headLength, 1))) as Description;
  } catch (e) {
    if (e instanceof EvaluationError) throw e;
    return bad("unreadable description");
  }
  if (typeof d !== "object" || d === null || d.v !== GRAPH_CODEC_VERSION) bad(`version ${String(d?.v)}, expected ${GRAPH_CODEC_VERSION}`);
  if (JSON.stringify(d.types) !== JSON.stringify(model.typeNames) || JSON.stringify(d.slots) !== JSON.stringify(slotNames(model))) {
    bad("made for another schema");
  }
  if (!Array.isArray(d.indexes) || (d.expiring !== undefined && !(Array.isArray(d.expiring) && d.expiring.every((r) => typeof r === "object" && r !== null)))) {
    bad("description shape");
  }
  // Room is written only for this process's threads (never stored), so only a trusted decode takes it.
  const room = d.room ?? [0, 0];
  if (d.room !== undefined && (!options.trusted || !Array.isArray(d.room) || d.room.length !== 2)) bad("spare room outside a graph shared in one process");
  const [roomNodes, roomBytes] = room;
  const types = uint16(d.nodes + roomNodes);
  const offsetsPart = take(typeof d.nodes === "number" ? d.nodes + 1 + roomNodes : d.nodes, 4);
  const offsets = new Uint32Array(offsetsPart.buffer, offsetsPart.byteOffset, offsetsPart.length / 4);
  const idBytes = take(d.idBytes + roomBytes, 1);
  const table = int32(d.idTable);
  const usersetNode = int32(d.usersets);
  const usersetSlot = uint16(d.usersets);
  const base = (shape: unknown): AdjacencyBase => {
    if (!Array.isArray(shape) || shape.length !== 5) return bad("index shape");
    const [keyed, bias, keys, offsetCount, targets] = shape as BaseShape;
    if ((keyed !== 0 && keyed !== 1) || (keyed === 0 && keys !== 0) || typeof bias !== "number") bad("index shape");
    return { keys: keyed === 1 ? int32(keys) : undefined, bias, offsets: int32(offsetCount), targets: int32(targets) };
  };
  const adjacencies: GraphArrays["adjacencies"] = d.indexes.map((entry) => {
    if (!Array.isArray(entry) || (entry.length !== 3 && entry.length !== 4) || typeof entry[0] !== "number") return bad("index entry");
    const forward = base(entry[1]);
    const reverse = base(entry[2]);
    return { slot: entry[0], forward, reverse, ...(entry.length === 4 ? { sets: base(entry[3]) } : {}) };
  });
  if (at !== body.length) bad("trailing bytes");
  return RelationshipGraph.fromArrays(
    model,
    {
      nodes: { nodes: d.nodes, types, offsets, bytes: idBytes, table },
      usersetNode,
      usersetSlot,
      adjacencies,
      ...(d.expiring ? { expiring: d.expiring } : {}),
    },
    options,
  );
}
