// Check on one and two engine threads against the transport's own cost, in one process tree: three
// server processes — the engine with threads: 1, the engine with threads: 2 (one graph in shared
// memory, SO_REUSEPORT), and a bare grpc-js server answering a constant response (the floor) — driven
// by one load-generator process over several HTTP/2 connections, in alternating rounds (the server
// order rotates each round). Prints, per server, the medians over rounds of calls/s, server CPU per
// call (every thread of its process), p50 and p99, the RSS each holds after a full collection, the
// ratios (two threads to one; one thread to the floor; medians of the per-round paired ratios), the
// load average, and the scaling model's predictions (docs/SCALING.md, "Threads and replicas").
// Run: pnpm --filter @gatehouse/authz-engine bench:threads
//   BENCH_RELATIONSHIPS (default 1,000,000; the goal's figure is at 10,000,000), BENCH_ROUNDS (5),
//   BENCH_CALLS per cell (4000), BENCH_CONCURRENCY (64), BENCH_CONNECTIONS (8).
import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ask } from "./fixture.js";

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);
const CALLS = Number(process.env["BENCH_CALLS"] ?? 4000);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 64);
const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 8);
const RELATIONSHIPS = Number(process.env["BENCH_RELATIONSHIPS"] ?? 1_000_000);
const SERVERS = ["floor", "engine-1", "engine-2"] as const;

const spawn = (file: string, args: string[]): ChildProcess =>
  fork(join(here, file), args, { execArgv: ["--import", "tsx", "--conditions=source"], stdio: "inherit", env: { ...process.env, BENCH_RELATIONSHIPS: String(RELATIONSHIPS) } });
const next = <T>(child: ChildProcess) => new Promise<T>((resolve) => child.once("message", (m) => resolve(m as T)));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

interface Sample {
  cpu: number;
  perSecond: number;
  p50: number;
  p99: number;
}

async function main() {
  console.log(
    `threads bench: node ${process.version}, ${availableParallelism()} cores, ${RELATIONSHIPS.toLocaleString("en")} relationships, ${ROUNDS} rounds of ${CALLS} Check calls at ${CONCURRENCY} in flight over ${CONNECTIONS} connections, load average ${load()}`,
  );
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-threads-"));
  const prepared = spawn("threads-server.ts", ["prepare", dir]);
  await new Promise((resolve) => prepared.once("exit", resolve));
  const servers = new Map<string, { child: ChildProcess; port: number }>();
  // One at a time, so each load's peak memory is not another's.
  for (const name of SERVERS) {
    const child = spawn("threads-server.ts", [name, dir]);
    servers.set(name, { child, port: (await next<{ port: number }>(child)).port });
  }
  const client = spawn("threads-client.ts", []);
  const cpuOf = async (child: ChildProcess) => {
    const answer = next<{ cpu: number }>(child);
    child.send("cpu");
    return (await answer).cpu;
  };
  const memoryOf = async (child: ChildProcess) => {
    const answer = next<{ rss: number; shareMs?: number }>(child);
    child.send("memory");
    return await answer;
  };
  const measure = async (server: { child: ChildProcess; port: number }, calls: number): Promise<Sample> => {
    const before = await cpuOf(server.child);
    const r = await ask<{ calls: number; perSecond: number; p50: number; p99: number }>(client, { port: server.port, concurrency: CONCURRENCY, calls, connections: CONNECTIONS });
    const cpu = (await cpuOf(server.child)) - before;
    return { cpu: cpu / r.calls, perSecond: r.perSecond, p50: r.p50, p99: r.p99 };
  };
  // Warm-up: JIT and every connection settled before the first round.
  for (const server of servers.values()) await measure(server, Math.min(CALLS, 2000));

  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < SERVERS.length; k++) {
      const name = SERVERS[(k + round) % SERVERS.length]!;
      samples.set(name, [...(samples.get(name) ?? []), await measure(servers.get(name)!, CALLS)]);
    }
    process.stdout.write(`round ${round + 1}/${ROUNDS} done, load average ${load()}\n`);
  }
  const rss = new Map<string, number>();
  let shareMs: number | undefined;
  for (const [name, server] of servers) {
    const memory = await memoryOf(server.child);
    rss.set(name, memory.rss);
    shareMs ??= memory.shareMs;
  }

  const ratio = (a: string, b: string, of: (s: Sample) => number) => median(samples.get(a)!.map((s, i) => of(s) / of(samples.get(b)![i]!)));
  console.log("\nmedians over rounds");
  console.log("server     calls/s  CPU µs/call   p50 ms   p99 ms   RSS MiB");
  for (const name of SERVERS) {
    const mine = samples.get(name)!;
    console.log(
      `${name.padEnd(9)} ${median(mine.map((s) => s.perSecond))
        .toFixed(0)
        .padStart(8)} ${median(mine.map((s) => s.cpu))
        .toFixed(1)
        .padStart(12)} ${median(mine.map((s) => s.p50))
        .toFixed(2)
        .padStart(8)} ${median(mine.map((s) => s.p99))
        .toFixed(2)
        .padStart(8)} ${(rss.get(name)! / 2 ** 20).toFixed(0).padStart(9)}`,
    );
  }
  const rate = (s: Sample) => s.perSecond;
  const cpu = (s: Sample) => s.cpu;
  const p99 = (s: Sample) => s.p99;
  console.log("\nratios (medians of per-round ratios)                goal");
  console.log(`2 threads / 1: calls/s      ${ratio("engine-2", "engine-1", rate).toFixed(2)}x                  >= 1.5x`);
  console.log(`2 threads / 1: CPU per call ${ratio("engine-2", "engine-1", cpu).toFixed(2)}x                  <= 1.1x`);
  console.log(`2 threads / 1: p99          ${ratio("engine-2", "engine-1", p99).toFixed(2)}x                  <= 1.0x`);
  console.log(`2 threads / 1: RSS          ${(rss.get("engine-2")! / rss.get("engine-1")!).toFixed(2)}x                  <= 1.1x`);
  console.log(`1 thread / floor: CPU/call  ${ratio("engine-1", "floor", cpu).toFixed(2)}x                  <= 1.2x`);
  console.log(`1 thread / floor: calls/s   ${ratio("engine-1", "floor", rate).toFixed(2)}x                  >= 0.85x`);

  // The model: a thread serves a connection's calls alone (its HTTP/2 session is on that thread);
  // connections are spread by the kernel (no accept loop in between); what every thread repeats is
  // each commit's apply (small next to a call), and the first thread alone moves the shared base
  // on. So calls/s on N cores ≈ N × (1 / CPU per call of the threaded engine), less the feed's share.
  const perCall = median(samples.get("engine-2")!.map(cpu));
  console.log(`\nscaling model (CPU-bound, the load generator on other cores, ${CONNECTIONS}+ connections per thread):`);
  for (const cores of [4, 8, 16]) console.log(`  ${String(cores).padStart(2)} cores: ~${Math.round((cores * 1e6) / perCall).toLocaleString("en")} Check calls/s`);
  console.log(`making and adopting a shared base (the first thread, serialized): ${shareMs?.toFixed(0)} ms at this size`);
  console.log(`load average at the end ${load()}`);

  client.kill();
  for (const { child } of servers.values()) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.send("exit");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
