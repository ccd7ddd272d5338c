// Compact binary form of a RelationshipGraph: a small JSON description (type and slot names, counts),
// the object ids as one newline-joined UTF-8 string table, and typed arrays for node types, the id
// index's hash table, subject sets and edges. Loading it skips parsing and validating every
// relationship and hashing every id: the indexes are filled by typed-array passes, which is what
// makes a checkpoint start faster than a snapshot. Integrity (checksum, store, revision) is the caller's job:
// this module stays pure (no Node APIs), so it runs in a browser too.
import { EvaluationError } from "../errors.js";
import type { Model } from "../model/model.js";
import type { Relationship } from "../relationship.js";
import { RelationshipGraph, type GraphTables } from "./relationship-graph.js";

/** Version of the body layout below; a decoder refuses any other. */
export const GRAPH_CODEC_VERSION = 2;

interface Description {
  v: number;
  /** Type names and `type#relation` of every slot, so a body is only read by the model it was made by. */
  types: string[];
  slots: string[];
  nodes: number;
  idBytes: number;
  /** Slots of the id index's table (v2). */
  idSlots: number;
  usersets: number;
  edges: Array<[slot: number, count: number]>;
  /** Relationships that expire, whole (they are few; the edges above hold them too). */
  expiring?: Relationship[];
}

const slotNames = (model: Model) => model.slots.map((s) => `${model.typeNames[s.typeIndex]}#${s.name}`);
const pad4 = (n: number) => (n + 3) & ~3;
// Object ids are ASCII without newlines (see isValidObjectId), so one join/split encodes the whole
// table, one byte per character. (TextEncoder would do too, but this package avoids platform APIs.)
const SEPARATOR = "\n";

function asciiBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) throw new EvaluationError("invalid-relationship", "graph encoding: a name or id is not ASCII");
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

/** Encodes the graph's contents; `decodeGraph(model, bytes)` rebuilds an equal graph. */
export function encodeGraph(graph: RelationshipGraph): Uint8Array {
  const tables = graph.toTables();
  const ids = asciiBytes(tables.nodeId.join(SEPARATOR));
  const description: Description = {
    v: GRAPH_CODEC_VERSION,
    types: [...graph.model.typeNames],
    slots: slotNames(graph.model),
    nodes: tables.nodeType.length,
    idBytes: ids.length,
    idSlots: tables.idIndex?.length ?? 0,
    usersets: tables.usersetNode.length,
    edges: tables.edges.map((e) => [e.slot, e.resources.length]),
    ...(tables.expiring && tables.expiring.length > 0 ? { expiring: tables.expiring } : {}),
  };
  const head = asciiBytes(asciiJson(description));
  const parts: Uint8Array[] = [
    new Uint8Array(new Uint32Array([head.length]).buffer),
    head,
    ids,
    new Uint8Array(Uint16Array.from(tables.nodeType).buffer),
    ...(tables.idIndex ? [new Uint8Array(tables.idIndex.buffer, tables.idIndex.byteOffset, tables.idIndex.byteLength)] : []),
    new Uint8Array(Int32Array.from(tables.usersetNode).buffer),
    new Uint8Array(Uint16Array.from(tables.usersetSlot).buffer),
    ...tables.edges.flatMap((e) => [new Uint8Array(e.resources.buffer), new Uint8Array(e.subjects.buffer)]),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + pad4(p.length), 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += pad4(part.length);
  }
  return out;
}

export interface DecodeOptions {
  /**
   * Decodes the id table's ASCII bytes to a string; the platform's (Node's `latin1` Buffer
   * decoding, say) is many times faster than the portable default.
   */
  ascii?: (bytes: Uint8Array) => string;
}

/** Rebuilds a graph from `encodeGraph` output; throws an EvaluationError if it is malformed or of another model. */
export function decodeGraph(model: Model, bytes: Uint8Array, options: DecodeOptions = {}): RelationshipGraph {
  const bad = (why: string): never => {
    throw new EvaluationError("invalid-relationship", `graph encoding is invalid: ${why}`);
  };
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) bad("only little-endian platforms are supported");
  // Typed-array views need 4-byte alignment of the underlying buffer.
  const body = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  let at = 0;
  const take = (length: number): Uint8Array => {
    if (at + length > body.length) bad("truncated");
    const part = body.subarray(at, at + length);
    at += pad4(length);
    return part;
  };
  const view = <T>(make: (buffer: ArrayBufferLike, offset: number, length: number) => T, count: number, width: number): T => {
    const part = take(count * width);
    return make(part.buffer, part.byteOffset, count);
  };
  const headLength = view((b, o, n) => new Uint32Array(b, o, n), 1, 4)[0]!;
  let d: Description;
  try {
    d = JSON.parse(asciiText(take(headLength))) as Description;
  } catch {
    return bad("unreadable description");
  }
  if (d.v !== GRAPH_CODEC_VERSION) bad(`version ${String(d.v)}, expected ${GRAPH_CODEC_VERSION}`);
  if (JSON.stringify(d.types) !== JSON.stringify(model.typeNames) || JSON.stringify(d.slots) !== JSON.stringify(slotNames(model))) {
    bad("made for another schema");
  }
  const idText = (options.ascii ?? asciiText)(take(d.idBytes));
  const nodeId = d.nodes === 0 ? [] : idText.split(SEPARATOR);
  const tables: GraphTables = {
    nodeId,
    nodeType: view((b, o, n) => new Uint16Array(b, o, n), d.nodes, 2),
    // A copy: the graph keeps the table, and a view would keep the whole encoding alive.
    ...(d.idSlots > 0 ? { idIndex: view((b, o, n) => new Int32Array(b, o, n), d.idSlots, 4).slice() } : {}),
    usersetNode: view((b, o, n) => new Int32Array(b, o, n), d.usersets, 4),
    usersetSlot: view((b, o, n) => new Uint16Array(b, o, n), d.usersets, 2),
    edges: d.edges.map(([slot, count]) => ({
      slot,
      resources: view((b, o, n) => new Int32Array(b, o, n), count, 4),
      subjects: view((b, o, n) => new Int32Array(b, o, n), count, 4),
    })),
    ...(d.expiring ? { expiring: d.expiring } : {}),
  };
  if (at !== body.length) bad("trailing bytes");
  return RelationshipGraph.fromTables(model, tables);
}
