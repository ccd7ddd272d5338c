// CRC-32 of a buffer computed on a worker thread, so a checkpoint's checksum is taken on a second
// core while the main thread decodes and bounds-checks the same bytes (src/graph/checkpoint.ts).
// The buffer is shared, not copied: it must be a view of a SharedArrayBuffer.
//
// The answer is a number, or null when the worker could not answer (it did not start, threw,
// exited or answered something else): the caller then computes the checksum itself. The promise
// never rejects and always settles: the worker's loop is bounded by the buffer's length, and its
// end is observed whether it answered or not.
import { Worker } from "node:worker_threads";

/**
 * What the worker is given: the shared buffer itself and the [start, end) ranges of it to checksum,
 * in order. Not a typed array over it: structured cloning keeps a view's offset and length as 32
 * bits, so a view of a buffer of 4 GiB or more would arrive cut to its length modulo 4 GiB.
 */
export interface ChecksumWork {
  buffer: SharedArrayBuffer;
  ranges: Array<[start: number, end: number]>;
}

/** Starts the worker for `work` (replaceable in tests by one that fails). */
export type ChecksumWorkerFactory = (work: ChecksumWork) => Worker;

// CommonJS, evaluated as the worker's entry: nothing to resolve on disk, in source or built form.
// node:zlib's crc32 takes lengths as 32 bits, so each range is checksummed in parts of 1 GiB.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { crc32 } = require("node:zlib");
const { buffer, ranges } = workerData;
const bytes = new Uint8Array(buffer);
let crc = 0;
for (const [start, end] of ranges) {
  for (let at = start; at < end; at += 2 ** 30) crc = crc32(bytes.subarray(at, Math.min(end, at + 2 ** 30)), crc);
}
parentPort.postMessage(crc);
`;

export const startChecksumWorker: ChecksumWorkerFactory = (work) => new Worker(WORKER_SOURCE, { eval: true, workerData: work });

/**
 * The CRC-32 of the [start, end) `ranges` of `bytes` (a view of a SharedArrayBuffer), continued range
 * after range, from a worker thread; null if it failed or `bytes` is not shared.
 */
export function crc32OnThread(bytes: Uint8Array, ranges: Array<[start: number, end: number]>, start: ChecksumWorkerFactory = startChecksumWorker): Promise<number | null> {
  const buffer = bytes.buffer;
  if (!(buffer instanceof SharedArrayBuffer)) return Promise.resolve(null);
  const work: ChecksumWork = { buffer, ranges: ranges.map(([from, to]) => [bytes.byteOffset + from, bytes.byteOffset + to]) };
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = start(work);
    } catch {
      resolve(null);
      return;
    }
    // The first of these settles the promise; the others are then no-ops. After its one message
    // the worker is stopped (it ends by itself when it is ours; one that misbehaves must not linger).
    worker.once("message", (crc: unknown) => {
      resolve(typeof crc === "number" && Number.isInteger(crc) && crc >= 0 && crc < 2 ** 32 ? crc : null);
      void worker.terminate();
    });
    worker.once("error", () => resolve(null));
    worker.once("exit", () => resolve(null));
  });
}
