// What tracing and metrics cost per Check: server CPU time per call (process.cpuUsage; the load
// generator and the OTLP collector run in child processes, so their CPU is not counted) over real
// gRPC, side by side for
//   baseline        tracing off (no OTEL_* set), metrics on   (a default deployment)
//   metrics off     tracing off, call metrics replaced by no-ops
//   tracing none    tracing on, nothing sampled (the fixed cost of having it on)
//   tracing default tracing on (OTLP to a local collector), default sampler (parentbased, 1 % of new traces)
//   tracing all     tracing on, every call sampled (always_on)
// in several rounds (the order rotates each round); prints medians and minimums and their ratios to the baseline.
// Run: pnpm --filter @gatehouse/authz-engine bench:telemetry
//   BENCH_ROUNDS (default 5), BENCH_SECONDS per cell (default 3), BENCH_CONCURRENCY (default 16).
import { createSilentLogger, percentile, startTracing, type Tracing, type TracingSettings } from "@gatehouse/telemetry";
import { buildServer } from "../src/index.js";
import { createEngineMetrics, type EngineMetrics } from "../src/metrics.js";
import { ask, BENCH_CHECK, forkHelper, openCheckBenchStore } from "./fixture.js";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 3);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 16);

/** Call metrics that record nothing: the "metrics off" cell (the rest of the registry stays). */
function withoutCallMetrics(): EngineMetrics {
  const base = createEngineMetrics(false);
  const none = { record() {} } as unknown as ReturnType<EngineMetrics["grpcMethod"]>;
  return { ...base, grpcMethod: () => none };
}

interface Cell {
  name: string;
  server: "metrics" | "noMetrics";
  tracing: TracingSettings | null;
}

async function main() {
  const store = await openCheckBenchStore();
  const servers = {
    metrics: buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, store, logger: createSilentLogger() }),
    noMetrics: buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, store, logger: createSilentLogger(), metrics: withoutCallMetrics() }),
  };
  const ports = { metrics: (await servers.metrics.start()).port, noMetrics: (await servers.noMetrics.start()).port };

  const collector = forkHelper("collector.ts");
  const { endpoint } = await new Promise<{ endpoint: string }>((resolve) => collector.once("message", (m) => resolve(m as { endpoint: string })));
  const client = forkHelper("client.ts");
  const request = BENCH_CHECK;

  const cells: Cell[] = [
    { name: "baseline (tracing off, metrics on)", server: "metrics", tracing: null },
    { name: "metrics off (tracing off)", server: "noMetrics", tracing: null },
    { name: "tracing on, nothing sampled", server: "metrics", tracing: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: "always_off" } },
    { name: "tracing on, default sampler", server: "metrics", tracing: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } },
    { name: "tracing on, every call sampled", server: "metrics", tracing: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: "always_on" } },
  ];
  const samples = new Map<string, { cpu: number[]; perSecond: number[] }>(cells.map((c) => [c.name, { cpu: [], perSecond: [] }]));
  console.log(`Check over gRPC, ${CONCURRENCY} in flight, ${SECONDS} s per cell, ${ROUNDS} rounds, node ${process.version}`);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[(k + round) % cells.length]!;
      const tracing: Tracing | null = cell.tracing ? startTracing("authz-engine", cell.tracing) : null;
      const cpu0 = process.cpuUsage();
      const r = await ask<{ calls: number; perSecond: number }>(client, { kind: "unary", path: "check", concurrency: CONCURRENCY, seconds: SECONDS, port: ports[cell.server], request });
      // Exporting is part of the cost: the batch still queued is flushed inside the measurement.
      await tracing?.shutdown();
      const cpu = process.cpuUsage(cpu0);
      const s = samples.get(cell.name)!;
      s.cpu.push((cpu.user + cpu.system) / (r.calls + 200)); // + the client's 200 warm-up calls
      s.perSecond.push(r.perSecond);
    }
    console.log(`round ${round + 1}: ${cells.map((c) => `${samples.get(c.name)!.cpu.at(-1)!.toFixed(1)}`).join(" / ")} µs CPU per Check`);
  }
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  // The minimum is printed too: on a shared machine other load only ever adds CPU time per call.
  const base = median(samples.get(cells[0]!.name)!.cpu);
  const baseMin = Math.min(...samples.get(cells[0]!.name)!.cpu);
  const pct = (value: number, of: number) => `${((value / of - 1) * 100).toFixed(1)} %`;
  console.log("\ncell                                   CPU µs/Check: median (vs baseline)   minimum (vs baseline)   calls/s (median)");
  for (const cell of cells) {
    const s = samples.get(cell.name)!;
    const cpu = median(s.cpu);
    const least = Math.min(...s.cpu);
    console.log(
      `${cell.name.padEnd(38)} ${cpu.toFixed(1).padStart(8)} (${pct(cpu, base).padStart(8)}) ${least.toFixed(1).padStart(14)} (${pct(least, baseMin).padStart(8)}) ${median(s.perSecond).toFixed(0).padStart(12)}`,
    );
  }
  client.kill();
  collector.kill();
  await servers.metrics.stop();
  await servers.noMetrics.stop();
  await store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
