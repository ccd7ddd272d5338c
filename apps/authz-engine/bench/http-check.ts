// The HTTP/JSON Check (POST /api/kessel/v1beta2/check on the engine's HTTP port) against the gRPC
// Check it adapts, side by side in one run on one engine: client-observed p50/p99 latency and
// calls/s, and the server's CPU time per call (process.cpuUsage; the load generator runs in a
// child process, so its CPU is not counted). Cells alternate in every round.
// Run: pnpm --filter @gatehouse/authz-engine bench:http
//   BENCH_ROUNDS (default 3), BENCH_SECONDS per cell (default 2), BENCH_CONCURRENCY (default 8).
import { CheckRequest, protoJsonCodec } from "@gatehouse/proto";
import { createSilentLogger, percentile } from "@gatehouse/telemetry";
import { buildServer } from "../src/index.js";
import { ask, BENCH_CHECK, forkHelper, openCheckBenchStore } from "./fixture.js";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 2);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 8);

interface Result {
  calls: number;
  perSecond: number;
  p50: number;
  p99: number;
}

async function main() {
  const store = await openCheckBenchStore();
  const server = buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, store, logger: createSilentLogger() });
  const { port, metricsPort } = await server.start();
  const client = forkHelper("client.ts");
  const request = BENCH_CHECK;
  const body = JSON.stringify(protoJsonCodec("kessel.inventory.v1beta2.CheckRequest", CheckRequest).write(request));
  const cells = [
    { name: "gRPC Check (baseline)", job: { kind: "unary", path: "check", concurrency: CONCURRENCY, seconds: SECONDS, port, request } },
    { name: "HTTP/JSON POST /check", job: { kind: "unary", path: "http-check", concurrency: CONCURRENCY, seconds: SECONDS, port: metricsPort, request, body } },
  ];
  const samples = new Map(cells.map((c) => [c.name, { cpu: [] as number[], p50: [] as number[], p99: [] as number[], perSecond: [] as number[] }]));
  console.log(`Check over gRPC and over HTTP/JSON, ${CONCURRENCY} in flight, ${SECONDS} s per cell, ${ROUNDS} rounds, node ${process.version}`);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[(k + round) % cells.length]!;
      const cpu0 = process.cpuUsage();
      const r = await ask<Result>(client, cell.job);
      const cpu = process.cpuUsage(cpu0);
      const s = samples.get(cell.name)!;
      s.cpu.push((cpu.user + cpu.system) / (r.calls + 200)); // + the client's 200 warm-up calls
      s.p50.push(r.p50);
      s.p99.push(r.p99);
      s.perSecond.push(r.perSecond);
    }
  }
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  const base = samples.get(cells[0]!.name)!;
  const ratio = (value: number, of: number) => `×${(value / of).toFixed(2)}`;
  console.log("\ncell                        CPU µs/call (vs gRPC)   p50 ms (vs gRPC)   p99 ms (vs gRPC)   calls/s   [medians over rounds]");
  for (const cell of cells) {
    const s = samples.get(cell.name)!;
    const [cpu, p50, p99] = [median(s.cpu), median(s.p50), median(s.p99)];
    console.log(
      `${cell.name.padEnd(27)} ${cpu.toFixed(1).padStart(8)} (${ratio(cpu, median(base.cpu)).padStart(6)})   ${p50.toFixed(3).padStart(7)} (${ratio(p50, median(base.p50)).padStart(6)})   ${p99.toFixed(3).padStart(7)} (${ratio(p99, median(base.p99)).padStart(6)})   ${median(s.perSecond).toFixed(0).padStart(7)}`,
    );
  }
  client.kill();
  await server.stop();
  await store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
