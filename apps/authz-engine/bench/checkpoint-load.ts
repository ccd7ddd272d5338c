// Where a checkpoint load's CPU goes: reads a kept checkpoint file (bench:scale with
// SCALE_CHECKPOINT_DIR) several times and splits each load into its steps, with user and system
// CPU apart (on a shared machine wall time is mostly waiting for a core; system time is mostly
// the kernel giving the process fresh pages):
//   fault   — a buffer of the file's size allocated and written once (first-touch page faults only)
//   read    — the file read into a fresh buffer (page faults + copy from the page cache)
//   crc     — CRC-32 over the bytes (in parts of 1 GiB, as the checkpoint checks it)
//   decode  — decodeCheckpoint: CRC-32 again + header checks + the graph's arrays viewed and
//             bounds-checked (no copy)
// and a whole load as a start does it (loadCheckpoint through the file store), both ways in every
// round, alternating which goes first:
//   load, one thread       — the file read in chunks one at a time, then CRC-32, then the decode's
//                            checks (the file store with threads: false; the path before)
//   read, two readers      — the file read into shared memory two chunks at a time
//   load, two threads      — that read, then the CRC-32 on a worker thread while the main thread
//                            decodes (the file store's default); the CPU columns count every thread
//   load, one reader + CRC on a worker — the same with the file read one chunk at a time
// Run: CHECKPOINT_FILE=<dir>/graph-….ghck [CHECKPOINT_ROUNDS=5] pnpm bench:checkpoint-load
import { open } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { availableParallelism, loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { compileRoleModel } from "@gatehouse/role-config";
import { crc32Of, decodeCheckpoint, fileCheckpointStore, loadCheckpoint, schemaHash } from "../src/graph/checkpoint.js";

const FILE = process.env["CHECKPOINT_FILE"] ?? "";
if (!FILE) throw new Error("CHECKPOINT_FILE=<path of a .ghck file> is needed");
const ROUNDS = Number(process.env["CHECKPOINT_ROUNDS"] ?? 5);
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
/**
 * Frees the buffers of the step before: a full collection only queues an array buffer's memory for
 * a sweeper that frees it later, and at 100M each step's buffer is 4.4 GiB; left queued, two or
 * three are held at once and the kernel reclaims the page cache (the file's pages too) under the
 * next step, which then pays for it. Two collections and a turn of the event loop free them.
 */
async function gc(): Promise<void> {
  collect();
  collect();
  await new Promise((resolve) => setImmediate(resolve));
}
const model = compileRoleModel("stage");

interface Step {
  wall: number;
  user: number;
  system: number;
}
function measure<T>(work: () => T): { value: T; step: Step } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = work();
  const used = process.cpuUsage(cpu);
  return { value, step: { wall: performance.now() - started, user: used.user / 1000, system: used.system / 1000 } };
}
async function measureAsync<T>(work: () => Promise<T>): Promise<{ value: T; step: Step }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { value, step: { wall: performance.now() - started, user: used.user / 1000, system: used.system / 1000 } };
}

async function readFileWhole(path: string, shared = false, readers = 1): Promise<Uint8Array> {
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    const bytes = shared ? new Uint8Array(new SharedArrayBuffer(size)) : new Uint8Array(size);
    let next = 0;
    const reader = async () => {
      for (let at = next; at < size; at = next) {
        const end = Math.min(size, at + 64 * 2 ** 20);
        next = end;
        while (at < end) {
          const { bytesRead } = await file.read(bytes, at, end - at, at);
          if (bytesRead === 0) throw new Error("short read");
          at += bytesRead;
        }
      }
    };
    await Promise.all(Array.from({ length: readers }, reader));
    return bytes;
  } finally {
    await file.close();
  }
}

const steps: Record<string, Step[]> = { fault: [], read: [], crc: [], decode: [], "load, one thread": [], "read, two readers": [], "load, two threads": [], "load, one reader + CRC on a worker": [] };
const oneThread = fileCheckpointStore(dirname(FILE), 2, { threads: false });
const twoThreads = fileCheckpointStore(dirname(FILE));
const oneReader = fileCheckpointStore(dirname(FILE), 2, { readers: 1 });
const key = basename(FILE);
let size = 0;
let relationships = 0;
let expect = { storeId: "", schemaHash: schemaHash(model) };
// Every step runs in a function of its own that returns numbers only: no buffer of one step (4.4 GiB
// at 100M) outlives it in a variable of this loop, so each step starts with the memory of none.
for (let round = 0; round < ROUNDS; round++) {
  await gc();
  const faulted = measure(() => {
    const file = new Uint8Array(size || 1);
    for (let at = 0; at < file.length; at += 4096) file[at] = 1;
    return file.length;
  }).step;
  if (round > 0) steps["fault"]!.push(faulted);
  await gc();
  await readChecksumDecode();
  const loads = [
    async () => {
      await gc();
      steps["load, one thread"]!.push((await measureAsync(async () => (await loadCheckpoint(oneThread, key, model, expect)).graph.size)).step);
    },
    async () => {
      await gc();
      steps["read, two readers"]!.push((await measureAsync(async () => (await readFileWhole(FILE, true, 2)).length)).step);
      await gc();
      const loaded = await measureAsync(async () => (await loadCheckpoint(twoThreads, key, model, expect)).graph.size);
      if (loaded.value !== relationships) throw new Error("the two loads disagree");
      steps["load, two threads"]!.push(loaded.step);
    },
    async () => {
      await gc();
      steps["load, one reader + CRC on a worker"]!.push((await measureAsync(async () => (await loadCheckpoint(oneReader, key, model, expect)).graph.size)).step);
    },
  ];
  for (const load of round % 2 === 0 ? loads : loads.reverse()) await load();
}

/** The read, CRC-32 and decode steps over one buffer (dropped when this returns). */
async function readChecksumDecode(): Promise<void> {
  const read = await measureAsync(() => readFileWhole(FILE));
  const bytes = read.value;
  size = bytes.length;
  steps["read"]!.push(read.step);
  steps["crc"]!.push(measure(() => crc32Of(bytes)).step);
  // The store id is whatever the file names (this bench reads a kept file, not a store's).
  const headerLength = new DataView(bytes.buffer).getUint32(8, true);
  const storeId = (JSON.parse(Buffer.from(bytes.buffer, 16, headerLength).toString("utf8")) as { storeId: string }).storeId;
  expect = { storeId, schemaHash: schemaHash(model) };
  const decoded = measure(() => decodeCheckpoint(bytes, model, expect).graph.size);
  steps["decode"]!.push(decoded.step);
  relationships = decoded.value;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
const ms = (x: number) => `${x.toFixed(0)} ms`;
console.log(
  `\ncheckpoint load steps, ${(size / 2 ** 20).toFixed(1)} MiB, ${relationships.toLocaleString("en")} relationships, ${ROUNDS} rounds (medians), node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} on ${availableParallelism()} cores\n`,
);
console.log("| step | wall | user CPU | system CPU | system CPU per 4 KiB page |\n|---|---|---|---|---|");
for (const [name, list] of Object.entries(steps)) {
  const pages = name === "fault" || name.startsWith("read") ? size / 4096 : 0;
  const system = median(list.map((s) => s.system));
  console.log(`| ${name} | ${ms(median(list.map((s) => s.wall)))} | ${ms(median(list.map((s) => s.user)))} | ${ms(system)} | ${pages ? `${((system * 1000) / pages).toFixed(2)} µs` : ""} |`);
}
