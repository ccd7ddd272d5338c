// The graph's arrays in shared memory: a checkpoint's bytes (graph/checkpoint.ts: flat typed arrays,
// no pointers) encoded once straight into a SharedArrayBuffer, and a graph over views of it on every
// thread. What is in the buffer is never rewritten: each thread's later changes go to its graph's
// own overlay and added-objects table, and the objects the commits add go to the room left after
// the node arrays, written there by the first thread alone and only read by the others once the
// commit that added them reaches them (NodeTable, NodeRoom). So reading needs no synchronisation:
// the buffer, and then each commit, reach another thread by postMessage, which orders the writes
// before any read there. The bytes never leave the process, so they carry no checksum and are
// decoded without the checks a checkpoint read from storage gets (decodeInProcessCheckpoint).
import type { EncodeOptions, Model, NodeRoom, RelationshipGraph } from "@gatehouse/evaluator";
import { decodeInProcessCheckpoint, encodeCheckpoint, schemaHash } from "../graph/checkpoint.js";

/** The base every thread answers from: the graph at `revision`, as checkpoint bytes in shared memory. */
export interface SharedBase {
  buffer: SharedArrayBuffer;
  revision: number;
}

/** Copies `graph` (at `revision`) into shared memory, with `room` for the objects the commits after it add. */
export function shareGraph(graph: RelationshipGraph, model: Model, storeId: string, revision: number, room?: EncodeOptions["room"]): SharedBase {
  const allocate = (length: number) => new Uint8Array(new SharedArrayBuffer(length));
  const bytes = encodeCheckpoint(graph, { storeId, schemaHash: schemaHash(model), revision }, { inProcess: { allocate, ...(room ? { room } : {}) } });
  return { buffer: bytes.buffer as SharedArrayBuffer, revision };
}

/**
 * A graph over the shared base's arrays (views: nothing is copied). `room`: `write` on the one
 * thread that applies each commit first, `compare` on the others (NodeRoom).
 */
export function graphOfBase(base: SharedBase, model: Model, storeId: string, room: NodeRoom = "compare"): RelationshipGraph {
  const { graph, header } = decodeInProcessCheckpoint(new Uint8Array(base.buffer), model, { storeId, schemaHash: schemaHash(model) }, room);
  if (header.revision !== base.revision) throw new Error(`shared graph of revision ${header.revision}, announced as ${base.revision}`);
  return graph;
}
