// A soak: the engine under a steady mixed load for SOAK_MINUTES (default 30; 1440 is a day, the
// script is the same), with its heap, RSS, open file descriptors, event-loop delay and each
// interface's p99 sampled every SOAK_SAMPLE_SECONDS (default 60). The load runs in a child process
// (its CPU is not the engine's): gRPC Checks, HTTP/JSON Checks, ReportResource and DeleteResource
// writes, StreamedListObjects, and a /metrics scrape, at a fixed rate each. Drift shows as a column
// that keeps growing after the first samples (warm-up).
// Run: pnpm --filter @gatehouse/authz-engine bench:soak   (SOAK_MINUTES, SOAK_SAMPLE_SECONDS, SOAK_RATE)
import { readdir } from "node:fs/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { openStore } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { buildServer } from "../src/index.js";
import { ask, forkHelper, seedReadableHosts } from "./fixture.js";

const MINUTES = Number(process.env["SOAK_MINUTES"] ?? 30);
const SAMPLE_SECONDS = Number(process.env["SOAK_SAMPLE_SECONDS"] ?? 60);
/** Operations per second of each kind. */
const RATE = Number(process.env["SOAK_RATE"] ?? 50);

const store = await openStore({ pollIntervalMs: 50 });
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
console.log(`soak: ${MINUTES} min, a sample every ${SAMPLE_SECONDS} s, ${RATE}/s of each operation`);
console.log("min  heap MB  rss MB  fds  loop p99 ms  loop max ms  p99 ms: grpc-check http-check report delete list metrics  ops  errors");
const samples = Math.floor((MINUTES * 60) / SAMPLE_SECONDS);
for (let i = 1; i <= samples; i++) {
  await new Promise((resolve) => setTimeout(resolve, SAMPLE_SECONDS * 1000));
  const window = await ask<{ p99: Record<string, number>; ops: number; errors: number; failures: Record<string, number> }>(load, { sample: true });
  const memory = process.memoryUsage();
  const fds = (await readdir("/proc/self/fd")).length;
  const p99 = ["grpc-check", "http-check", "report", "delete", "list", "metrics"].map((k) => (window.p99[k] ?? Number.NaN).toFixed(1).padStart(6)).join(" ");
  console.log(
    `${((i * SAMPLE_SECONDS) / 60).toFixed(1).padStart(4)} ${mb(memory.heapUsed).padStart(8)} ${mb(memory.rss).padStart(7)} ${String(fds).padStart(4)} ${(delay.percentile(99) / 1e6).toFixed(1).padStart(12)} ${(delay.max / 1e6).toFixed(1).padStart(12)}        ${p99} ${String(window.ops).padStart(6)} ${String(window.errors).padStart(7)}`,
  );
  for (const [text, count] of Object.entries(window.failures)) console.log(`     ${count} × ${text}`);
  delay.reset();
}
await ask(load, { stop: true });
await engine.stop();
await store.close();
