// Checkpoints of the in-memory graph at a revision, so a replica starts by reading one file (or
// row) and replaying the change feed after it, instead of re-reading every tuple from Postgres.
//
// Layout (little-endian):  0 "GHCK" | 4 format version u32 | 8 header length u32
//                         12 CRC-32 of every byte except these 4 | 16 header JSON, padded to 8 | body
// The body is `encodeGraph` (evaluator): the graph's arrays as they are in memory, so the graph
// loaded from a checkpoint is typed-array views over the bytes read. The header names the store
// (a checkpoint of another database is foreign), the schema hash (node and slot numbering depend
// on the model) and the revision the graph reflects.
//
// The checksum detects damage (a torn or bit-flipped file); it is not a signature (whoever can write
// the volume or the table can write any checkpoint), so the decoder also checks every index it
// reads against its bounds. CRC-32 rather than sha256: over 400 MiB (a checkpoint of ten million
// relationships) node:zlib's crc32 takes 167 ms of CPU and sha256 317 ms on a core with SHA
// instructions (medians of five), and a cryptographic hash buys nothing without a key.
//
// A start from a file uses the machine's second core: the file is read two chunks at a time into
// shared memory, and its CRC-32 is taken on a worker thread (checksum-thread.ts) while the main
// thread decodes; the graph is used only once the checksum matched (`loadCheckpoint`).
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { type DecodeOptions, decodeGraph, encodeGraph, type EncodeOptions, type Model, type NodeRoom, type RelationshipGraph } from "@gatehouse/evaluator";
import type { CheckpointRepository } from "@gatehouse/store";
import { crc32OnThread, type ChecksumWorkerFactory } from "./checksum-thread.js";

// 2: the graph body carries its id index and is loaded without rebuilding maps (codec v2).
// 3: the body is the graph's arrays as held in memory (codec v3), checked by CRC-32.
// 4: the id table's entries carry the object's type in a tag instead of the bare hash (codec v4).
export const CHECKPOINT_FORMAT_VERSION = 4;
const MAGIC = 0x4b434847; // "GHCK" read as a little-endian u32
const PREFIX_BYTES = 16;
const CHECKSUM_AT = 12;
const pad8 = (n: number) => Math.ceil(n / 8) * 8;

export interface CheckpointHeader {
  storeId: string;
  schemaHash: string;
  revision: number;
  relationships: number;
  createdAt: string;
}

/** Why a checkpoint was not used; each is a label of gatehouse_engine_checkpoint_fallbacks_total. */
/** `feed-truncated`: older than the change feed's retention, so the changes after it are gone. */
export type CheckpointRejection = "corrupt" | "old-format" | "foreign-store" | "schema-mismatch" | "unreadable" | "feed-truncated";

export class CheckpointError extends Error {
  constructor(
    readonly reason: CheckpointRejection,
    message: string,
  ) {
    super(message);
    this.name = "CheckpointError";
  }
}

/** Hash of everything the graph's numbering and meaning depend on: types, relations, permissions. */
export function schemaHash(model: Model): string {
  const slots = model.slots.map((s) => ({ t: s.typeIndex, n: s.name, s: s.stored, a: s.allowed, o: s.op }));
  const json = JSON.stringify({ types: model.typeNames, slots }, (_key, value: unknown) => (ArrayBuffer.isView(value) ? Array.from(value as Int32Array) : value));
  return createHash("sha256").update(json).digest("hex");
}

function checksumOf(bytes: Uint8Array): number {
  return crc32Of(bytes.subarray(PREFIX_BYTES), crc32Of(bytes.subarray(0, CHECKSUM_AT)));
}

/**
 * CRC-32 of `bytes`, continuing from `value`, in parts of at most `part` bytes. node:zlib's
 * `crc32` passes the length to zlib as 32 bits: over a buffer of 4 GiB or more (a checkpoint of
 * about 92 million relationships) it silently covers only the length modulo 4 GiB. A CRC continued
 * part by part is the CRC of the whole, so files under 4 GiB keep their checksum.
 */
export function crc32Of(bytes: Uint8Array, value = 0, part = 2 ** 30): number {
  let crc = value;
  for (let at = 0; at < bytes.length; at += part) crc = crc32(bytes.subarray(at, Math.min(bytes.length, at + part)), crc);
  return crc;
}

/**
 * How a checkpoint is made. `inProcess`: for this process alone (a graph shared between its
 * threads, never stored): written into the buffer `allocate` makes (shared memory) and without a
 * checksum, which only `decodeInProcessCheckpoint` reads.
 */
export interface EncodeCheckpointOptions {
  inProcess?: { allocate: (bytes: number) => Uint8Array; room?: EncodeOptions["room"] };
}

export function encodeCheckpoint(graph: RelationshipGraph, header: Omit<CheckpointHeader, "relationships" | "createdAt">, options: EncodeCheckpointOptions = {}): Uint8Array {
  const full: CheckpointHeader = { ...header, relationships: graph.size, createdAt: new Date().toISOString() };
  const json = Buffer.from(JSON.stringify(full));
  // The graph is encoded behind room for the prefix and header: no second copy of the body.
  const out = encodeGraph(graph, { reserve: PREFIX_BYTES + pad8(json.length), ...(options.inProcess ? { allocate: options.inProcess.allocate, room: options.inProcess.room } : {}) });
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, CHECKPOINT_FORMAT_VERSION, true);
  view.setUint32(8, json.length, true);
  out.set(json, PREFIX_BYTES);
  if (!options.inProcess) view.setUint32(CHECKSUM_AT, checksumOf(out), true);
  return out;
}

/** The checks that need no checksum: long enough for the prefix, the magic, the format version. */
function checkPrefix(bytes: Uint8Array): DataView {
  if (bytes.length < PREFIX_BYTES) throw new CheckpointError("corrupt", `checkpoint is ${bytes.length} bytes, shorter than its header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new CheckpointError("corrupt", "not a checkpoint (bad magic)");
  const version = view.getUint32(4, true);
  if (version !== CHECKPOINT_FORMAT_VERSION) {
    throw new CheckpointError("old-format", `checkpoint format ${version}, this engine reads ${CHECKPOINT_FORMAT_VERSION}`);
  }
  return view;
}

const checksumMismatch = () => new CheckpointError("corrupt", "checkpoint checksum mismatch");

/** The header after the prefix (read once the checksum matched, or decoded before it is known and kept only if it matches). */
function parseHeader(bytes: Uint8Array, view: DataView, expect: { storeId: string; schemaHash: string }): { header: CheckpointHeader; bodyOffset: number } {
  const jsonLength = view.getUint32(8, true);
  if (PREFIX_BYTES + jsonLength > bytes.length) throw new CheckpointError("corrupt", "checkpoint header is longer than the checkpoint");
  let header: CheckpointHeader;
  try {
    header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + PREFIX_BYTES, jsonLength).toString("utf8")) as CheckpointHeader;
  } catch {
    throw new CheckpointError("corrupt", "checkpoint header is not readable");
  }
  if (typeof header !== "object" || header === null) throw new CheckpointError("corrupt", "checkpoint header is not an object");
  if (!Number.isSafeInteger(header.revision) || header.revision < 0) throw new CheckpointError("corrupt", "checkpoint header has no valid revision");
  if (header.storeId !== expect.storeId) throw new CheckpointError("foreign-store", "checkpoint was written for another store");
  if (header.schemaHash !== expect.schemaHash) throw new CheckpointError("schema-mismatch", "checkpoint was written under another schema");
  return { header, bodyOffset: PREFIX_BYTES + pad8(jsonLength) };
}

/** Reads and checks a checkpoint's header without decoding the graph (listing, diagnostics). */
export function readCheckpointHeader(bytes: Uint8Array, expect: { storeId: string; schemaHash: string }): { header: CheckpointHeader; bodyOffset: number } {
  const view = checkPrefix(bytes);
  if (checksumOf(bytes) !== view.getUint32(CHECKSUM_AT, true)) throw checksumMismatch();
  return parseHeader(bytes, view, expect);
}

function decodeBody(
  bytes: Uint8Array,
  { header, bodyOffset }: { header: CheckpointHeader; bodyOffset: number },
  model: Model,
  options: DecodeOptions = {},
): { header: CheckpointHeader; graph: RelationshipGraph } {
  let graph: RelationshipGraph;
  try {
    graph = decodeGraph(model, bytes.subarray(bodyOffset), options);
  } catch (e) {
    // The checksum matched, so this is a writer's bug or a hash collision; either way: not usable.
    throw new CheckpointError("corrupt", `checkpoint body is not a graph of this schema: ${(e as Error).message}`);
  }
  if (graph.size !== header.relationships) throw new CheckpointError("corrupt", "checkpoint relationship count mismatch");
  graph.revision = header.revision;
  return { header, graph };
}

/** Verifies and decodes a checkpoint; throws a CheckpointError saying why it cannot be used. */
export function decodeCheckpoint(bytes: Uint8Array, model: Model, expect: { storeId: string; schemaHash: string }): { header: CheckpointHeader; graph: RelationshipGraph } {
  return decodeBody(bytes, readCheckpointHeader(bytes, expect), model);
}

/**
 * Decodes a checkpoint this process made for its threads (`encodeCheckpoint` with `inProcess`, in
 * shared memory): the store and schema are checked, not the checksum nor every array's bounds
 * (the bytes never left the process), and reads never fold an index of the graph into a copy of
 * this thread's own (the owner shares a new base for every thread instead). `room`: what the graph
 * does with the objects it adds (NodeRoom: `compare` with what the first thread wrote, by default).
 */
export function decodeInProcessCheckpoint(
  bytes: Uint8Array,
  model: Model,
  expect: { storeId: string; schemaHash: string },
  room: NodeRoom = "compare",
): { header: CheckpointHeader; graph: RelationshipGraph } {
  return decodeBody(bytes, parseHeader(bytes, checkPrefix(bytes), expect), model, { trusted: true, shared: true, room });
}

/**
 * `decodeCheckpoint` with the checksum computed elsewhere (another thread) while this one decodes:
 * the same checks, refusing the same checkpoints with the same errors. The prefix is checked
 * first; the header and the graph are then decoded (every array bounds-checked, so damaged bytes
 * cannot make the decoder read out of bounds) before the checksum is known, and the graph is
 * returned only once it matched. A checksum that does not match refuses the checkpoint whatever
 * the decode found, as when the checksum is checked first.
 */
export async function decodeCheckpointWithChecksum(
  bytes: Uint8Array,
  checksum: Promise<number>,
  model: Model,
  expect: { storeId: string; schemaHash: string },
): Promise<{ header: CheckpointHeader; graph: RelationshipGraph }> {
  const view = checkPrefix(bytes);
  let decoded: { header: CheckpointHeader; graph: RelationshipGraph } | undefined;
  let failure: unknown;
  try {
    decoded = decodeBody(bytes, parseHeader(bytes, view, expect), model);
  } catch (e) {
    failure = e;
  }
  if ((await checksum) !== view.getUint32(CHECKSUM_AT, true)) throw checksumMismatch();
  if (decoded === undefined) throw failure;
  return decoded;
}

/** Reads and decodes a stored checkpoint, as a start does: with the store's threaded read where it has one. */
export async function loadCheckpoint(
  store: CheckpointStore,
  key: string,
  model: Model,
  expect: { storeId: string; schemaHash: string },
): Promise<{ header: CheckpointHeader; graph: RelationshipGraph }> {
  if (store.inProcess) return decodeInProcessCheckpoint(await store.read(key), model, expect);
  if (!store.readWithChecksum) return decodeCheckpoint(await store.read(key), model, expect);
  const { bytes, checksum } = await store.readWithChecksum(key);
  return decodeCheckpointWithChecksum(bytes, checksum, model, expect);
}

/**
 * The checkpoint checksum of `bytes` (a view of a SharedArrayBuffer) from a worker thread; computed
 * on this thread instead if the worker fails. Start it once the bytes are all read.
 */
export function checksumOnThread(bytes: Uint8Array, start?: ChecksumWorkerFactory): Promise<number> {
  const length = bytes.length;
  const ranges: Array<[number, number]> = [
    [0, Math.min(CHECKSUM_AT, length)],
    [Math.min(PREFIX_BYTES, length), length],
  ];
  return crc32OnThread(bytes, ranges, start).then((crc) => crc ?? checksumOf(bytes));
}

/** A stored checkpoint; `revision` comes from its name or row and is confirmed by its header. */
export interface CheckpointRef {
  key: string;
  revision: number;
}

/** Where checkpoints are shared between replicas (a volume, a table). */
export interface CheckpointStore {
  /** For logs: where the checkpoints are. */
  readonly location: string;
  /** Stored checkpoints, newest revision first. */
  list(): Promise<CheckpointRef[]>;
  read(key: string): Promise<Uint8Array>;
  /** Stores a checkpoint atomically (readers never see half of one) and drops old ones beyond the kept count. */
  write(revision: number, bytes: Uint8Array): Promise<void>;
  /**
   * Optional (the file store has it): the bytes with their checksum being computed on another
   * thread, for `loadCheckpoint` to decode meanwhile. Without it a start uses `read`.
   */
  readWithChecksum?(key: string): Promise<CheckpointRead>;
  /** Checkpoints this process made for its threads (`decodeInProcessCheckpoint` reads them). */
  readonly inProcess?: boolean;
}

/** A checkpoint's bytes and their checksum (of every byte but the checksum field), computed elsewhere. */
export interface CheckpointRead {
  bytes: Uint8Array;
  checksum: Promise<number>;
}

const FILE_PATTERN = /^graph-(\d{16})\.ghck$/;

export interface FileCheckpointOptions {
  /**
   * A start reads the file with two threads into shared memory and takes its checksum on a worker
   * thread while the main thread decodes (`readWithChecksum`); false: one thread, as `read`.
   * Default true.
   */
  threads?: boolean;
  /** With threads: chunks of the file read at once (default 2). */
  readers?: number;
  /** How the checksum worker is started (tests replace it with one that fails). */
  checksumWorker?: ChecksumWorkerFactory;
}

/**
 * Checkpoints as files in a directory (a volume shared by the replicas). Writes go to a temporary
 * name and are renamed into place, so a concurrent reader sees a whole file or none; the newest
 * `keep` are kept.
 */
export function fileCheckpointStore(dir: string, keep = 2, options: FileCheckpointOptions = {}): CheckpointStore {
  const store: CheckpointStore = {
    location: dir,
    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw e;
      }
      return names
        .map((name) => ({ key: name, match: FILE_PATTERN.exec(name) }))
        .filter((f) => f.match !== null)
        .map((f) => ({ key: f.key, revision: Number(f.match![1]) }))
        .sort((a, b) => b.revision - a.revision);
    },
    async read(key) {
      return readWhole(join(dir, key));
    },
    async write(revision, bytes) {
      await mkdir(dir, { recursive: true });
      const name = `graph-${String(revision).padStart(16, "0")}.ghck`;
      const temporary = join(dir, `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
      await writeFile(temporary, bytes);
      await rename(temporary, join(dir, name));
      const stale = (await this.list()).slice(keep);
      await Promise.all(stale.map((ref) => rm(join(dir, ref.key), { force: true })));
    },
  };
  if (options.threads !== false) {
    store.readWithChecksum = async (key) => {
      const bytes = await readWhole(join(dir, key), { shared: true, readers: options.readers ?? 2 });
      return { bytes, checksum: checksumOnThread(bytes, options.checksumWorker) };
    };
  }
  return store;
}

const READ_CHUNK = 64 * 2 ** 20;

/**
 * A file's bytes in one buffer of exactly its size, read in chunks: `readFile` refuses files over
 * 2 GiB (a checkpoint of about 30 million relationships), and the graph keeps viewing this buffer.
 * `shared`: the buffer is a SharedArrayBuffer (a worker thread can read it without a copy).
 * `readers`: chunks read at once; each read runs on libuv's thread pool, so with two the kernel's
 * work (a fresh page for every 4 KiB, and the copy from the page cache) is done on two cores.
 */
async function readWhole(path: string, options: { shared?: boolean; readers?: number } = {}): Promise<Uint8Array> {
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    const bytes = options.shared ? new Uint8Array(new SharedArrayBuffer(size)) : new Uint8Array(size);
    let next = 0;
    const reader = async () => {
      // Each reader claims the next chunk until none is left.
      for (let at = next; at < size; at = next) {
        const end = Math.min(size, at + READ_CHUNK);
        next = end;
        while (at < end) {
          const { bytesRead } = await file.read(bytes, at, end - at, at);
          if (bytesRead === 0) throw new Error(`checkpoint ${path} ended at ${at} of ${size} bytes`);
          at += bytesRead;
        }
      }
    };
    // Settled, not raced: the file is closed only when no read is left running on it.
    const results = await Promise.allSettled(Array.from({ length: options.readers ?? 1 }, reader));
    for (const result of results) if (result.status === "rejected") throw result.reason;
    return bytes;
  } finally {
    await file.close();
  }
}

/** Checkpoints as rows of the store's database (`gh_checkpoints`): no shared volume needed. */
export function databaseCheckpointStore(repository: CheckpointRepository, keep = 2): CheckpointStore {
  return {
    location: "database table gh_checkpoints",
    async list() {
      return (await repository.list()).map((revision) => ({ key: String(revision), revision }));
    },
    async read(key) {
      const bytes = await repository.read(Number(key));
      if (!bytes) throw new Error(`checkpoint ${key} was removed`);
      return bytes;
    },
    write: (revision, bytes) => repository.write(revision, bytes, keep),
  };
}

/** Checkpoints in this process only (tests, embedding). */
export function memoryCheckpointStore(keep = 2): CheckpointStore & { entries: Map<string, Uint8Array> } {
  const entries = new Map<string, Uint8Array>();
  const keyOf = (revision: number) => `graph-${String(revision).padStart(16, "0")}`;
  return {
    location: "memory",
    entries,
    async list() {
      return [...entries.keys()].map((key) => ({ key, revision: Number(key.slice(6)) })).sort((a, b) => b.revision - a.revision);
    },
    async read(key) {
      const bytes = entries.get(key);
      if (!bytes) throw new Error(`no checkpoint ${key}`);
      return bytes;
    },
    async write(revision, bytes) {
      entries.set(keyOf(revision), bytes);
      for (const ref of (await this.list()).slice(keep)) entries.delete(ref.key);
    },
  };
}
