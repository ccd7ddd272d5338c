// A soak: the engine under a steady mixed load for SOAK_MINUTES (default 30; 1440 is a day, the
// script is the same), with its heap, RSS, open file descriptors, event-loop delay and each
// interface's p99 sampled every SOAK_SAMPLE_SECONDS (default 60). The load runs in a child process
// (its CPU is not the engine's): gRPC Checks, HTTP/JSON Checks, ReportResource and DeleteResource
// writes, StreamedListObjects, and a /metrics scrape, at a fixed rate each. Drift shows as a column
// that keeps growing after the first samples (warm-up).
// Where RSS goes is sampled too: V8's external memory and array buffers, the anonymous memory of
// the process (/proc/self/smaps_rollup), the part of it that WebAssembly memories hold (the
// embedded PGlite: its mappings are the multi-GiB reservations), and the graph's objects beside the
// hosts alive. SOAK_DATABASE_URL runs the store on that Postgres (a schema of its own) instead of
// the embedded PGlite, as a deployed engine runs.
// At the end it prints each column's drift (bench/drift.ts): after SOAK_WARMUP_MINUTES (default 10),
// the later half's mean against the earlier half's, flat when within 10%.
// Run: pnpm --filter @gatehouse/authz-engine bench:soak   (SOAK_MINUTES, SOAK_SAMPLE_SECONDS, SOAK_RATE, SOAK_WARMUP_MINUTES, SOAK_DATABASE_URL)
import { readdir, readFile } from "node:fs/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { openStore } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { buildServer } from "../src/index.js";
import { drift, formatDrift } from "./drift.js";
import { ask, forkHelper, seedReadableHosts } from "./fixture.js";

const MINUTES = Number(process.env["SOAK_MINUTES"] ?? 30);
const SAMPLE_SECONDS = Number(process.env["SOAK_SAMPLE_SECONDS"] ?? 60);
/** Operations per second of each kind. */
const RATE = Number(process.env["SOAK_RATE"] ?? 50);

const DATABASE_URL = process.env["SOAK_DATABASE_URL"];
/** Minutes left out of the drift summary at the start (caches, pools and heaps filling). */
const WARMUP_MINUTES = Number(process.env["SOAK_WARMUP_MINUTES"] ?? 10);
/** The columns that must stay within 10% after warm-up; the rest (objects, ops) are printed only. */
const MUST_STAY_FLAT = ["heap MB", "rss MB", "anon MB", "fds", "loop p99 ms", "grpc-check p99", "http-check p99"];

const store = await openStore({ pollIntervalMs: 50, ...(DATABASE_URL ? { databaseUrl: DATABASE_URL, schema: `soak_${process.pid}` } : {}) });
const ws = await seedReadableHosts(
  store,
  "bench-soak",
  "alice",
  Array.from({ length: 2000 }, (_, i) => `host-${i}`),
);
const engine = buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, store, logger: createSilentLogger() });
const { port, metricsPort } = await engine.start();
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();

const load = forkHelper("soak-load.ts");
await ask(load, { start: { port, metricsPort, workspaceId: ws, rate: RATE } });

const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
const KIB = 1024;
/** Anonymous memory of the process and the resident part of its WebAssembly memories (bytes). */
async function anonymousMemory(): Promise<{ anonymous: number; wasm: number }> {
  const rollup = await readFile("/proc/self/smaps_rollup", "utf8");
  const anonymous = Number(/^Anonymous:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * KIB;
  // V8 reserves each WebAssembly memory as 8 GiB or more of address space and makes its used part
  // accessible from the start, which splits it into two mappings: the used part, then the rest of
  // the reservation (nothing else here is that large). The used part is the mapping that ends
  // where such a reservation begins.
  let wasm = 0;
  let previous = { end: "", rss: 0 };
  let current = { start: "", end: "", size: 0, rss: 0 };
  const close = () => {
    if (current.size >= 4 * KIB ** 3 && current.start === previous.end) wasm += previous.rss;
    previous = current;
  };
  for (const line of (await readFile("/proc/self/smaps", "utf8")).split("\n")) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (range) {
      close();
      current = { start: range[1]!, end: range[2]!, size: 0, rss: 0 };
      continue;
    }
    const field = /^(Size|Rss):\s+(\d+) kB/.exec(line);
    if (field?.[1] === "Size") current.size = Number(field[2]) * KIB;
    else if (field?.[1] === "Rss") current.rss = Number(field[2]) * KIB;
  }
  close();
  return { anonymous, wasm };
}
/** The graph's objects, from the engine's own /metrics. */
async function graphObjects(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return Number(/^gatehouse_engine_graph_objects (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}
console.log(`soak: ${MINUTES} min, a sample every ${SAMPLE_SECONDS} s, ${RATE}/s of each operation, store: ${DATABASE_URL ? "Postgres" : "embedded PGlite"}`);
console.log("min  heap MB  rss MB  anon MB  wasm MB  ext MB  ab MB  objects  live  fds  loop p99 ms  loop max ms  p99 ms: grpc-check http-check report delete list metrics  ops  errors");
const samples = Math.floor((MINUTES * 60) / SAMPLE_SECONDS);
const rows: Record<string, number>[] = [];
for (let i = 1; i <= samples; i++) {
  await new Promise((resolve) => setTimeout(resolve, SAMPLE_SECONDS * 1000));
  const window = await ask<{ p99: Record<string, number>; ops: number; errors: number; failures: Record<string, number>; live: number }>(load, { sample: true });
  // The live heap and what RSS keeps after a full collection: a sample at a random point of the
  // collector's cycle is noise of tens of MB, which would hide or fake a slow leak.
  globalThis.gc?.();
  const memory = process.memoryUsage();
  const { anonymous, wasm } = await anonymousMemory();
  const objects = await graphObjects();
  const fds = (await readdir("/proc/self/fd")).length;
  const p99 = ["grpc-check", "http-check", "report", "delete", "list", "metrics"].map((k) => (window.p99[k] ?? Number.NaN).toFixed(1).padStart(6)).join(" ");
  console.log(
    `${((i * SAMPLE_SECONDS) / 60).toFixed(1).padStart(4)} ${mb(memory.heapUsed).padStart(8)} ${mb(memory.rss).padStart(7)} ${mb(anonymous).padStart(8)} ${mb(wasm).padStart(8)} ${mb(memory.external).padStart(7)} ${mb(memory.arrayBuffers).padStart(6)} ${String(objects).padStart(8)} ${String(window.live).padStart(5)} ${String(fds).padStart(4)} ${(delay.percentile(99) / 1e6).toFixed(1).padStart(12)} ${(delay.max / 1e6).toFixed(1).padStart(12)}        ${p99} ${String(window.ops).padStart(6)} ${String(window.errors).padStart(7)}`,
  );
  rows.push({
    "heap MB": memory.heapUsed / 2 ** 20,
    "rss MB": memory.rss / 2 ** 20,
    "anon MB": anonymous / 2 ** 20,
    "ext MB": memory.external / 2 ** 20,
    objects,
    fds,
    "loop p99 ms": delay.percentile(99) / 1e6,
    "grpc-check p99": window.p99["grpc-check"] ?? Number.NaN,
    "http-check p99": window.p99["http-check"] ?? Number.NaN,
    "report p99": window.p99["report"] ?? Number.NaN,
    ops: window.ops,
  });
  for (const [text, count] of Object.entries(window.failures)) console.log(`     ${count} × ${text}`);
  delay.reset();
}
const warmup = Math.ceil((WARMUP_MINUTES * 60) / SAMPLE_SECONDS);
console.log(`\ndrift after ${WARMUP_MINUTES} min of warm-up: the later half's mean against the earlier half's (flat: within 10%)`);
console.log(formatDrift(drift(rows, warmup, MUST_STAY_FLAT)));
await ask(load, { stop: true });
await engine.stop();
await store.close();
