// The graph's arrays in shared memory: a checkpoint's bytes (graph/checkpoint.ts: flat typed arrays,
// no pointers) encoded once straight into a SharedArrayBuffer, and a graph over views of it on every
// thread. The buffer is never written after it is made (each thread's later changes go to its
// graph's own overlay and added-objects table), so reading it needs no synchronisation: it reaches
// another thread by postMessage, which orders the writes before any read there. The bytes never
// leave the process, so they carry no checksum and are decoded without the checks a checkpoint
// read from storage gets (decodeInProcessCheckpoint).
import type { Model, RelationshipGraph } from "@gatehouse/evaluator";
import { decodeInProcessCheckpoint, encodeCheckpoint, schemaHash } from "../graph/checkpoint.js";

/** The base every thread answers from: the graph at `revision`, as checkpoint bytes in shared memory. */
export interface SharedBase {
  buffer: SharedArrayBuffer;
  revision: number;
}

/** Copies `graph` (at `revision`) into shared memory. */
export function shareGraph(graph: RelationshipGraph, model: Model, storeId: string, revision: number): SharedBase {
  const bytes = encodeCheckpoint(graph, { storeId, schemaHash: schemaHash(model), revision }, { inProcess: { allocate: (length) => new Uint8Array(new SharedArrayBuffer(length)) } });
  return { buffer: bytes.buffer as SharedArrayBuffer, revision };
}

/** A graph over the shared base's arrays (views: nothing is copied), checked as a checkpoint is. */
export function graphOfBase(base: SharedBase, model: Model, storeId: string): RelationshipGraph {
  const { graph, header } = decodeInProcessCheckpoint(new Uint8Array(base.buffer), model, { storeId, schemaHash: schemaHash(model) });
  if (header.revision !== base.revision) throw new Error(`shared graph of revision ${header.revision}, announced as ${base.revision}`);
  return graph;
}
