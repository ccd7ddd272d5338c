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
//   BENCH_CALLS per cell (4000), BENCH_CONCURRENCY (64), BENCH_CONNECTIONS (8),
//   BENCH_CLIENT: h2load (the default when h2load is installed: HTTP/2 in C, so the load costs the
//   cores little and the server is the bottleneck; bench/h2load.ts) or node (grpc-js, threads-client.ts).
// With h2load each server is checked every round: one Check through grpc-js answers allowed, and
// every h2load call must have received a whole answer of that size (a gRPC error has no message).
import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Allowed } from "@gatehouse/proto";
import { ask } from "./fixture.js";
import { h2load, h2loadAvailable, writeCheckBody } from "./h2load.js";

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);
const CALLS = Number(process.env["BENCH_CALLS"] ?? 4000);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 64);
const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 8);
const RELATIONSHIPS = Number(process.env["BENCH_RELATIONSHIPS"] ?? 1_000_000);
const SERVERS = ["floor", "engine-1", "engine-2"] as const;
const CLIENT = process.env["BENCH_CLIENT"] ?? (h2loadAvailable() ? "h2load" : "node");
if (CLIENT !== "h2load" && CLIENT !== "node") throw new Error(`BENCH_CLIENT must be h2load or node, not ${CLIENT}`);
/** CPU time of each thread of a process so far, ms (Linux: /proc/<pid>/task/<tid>/stat, utime + stime). */
const threadCpu = (pid: number): Map<string, number> => {
  const ticks = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(tid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    }
  } catch {
    // not Linux: no per-thread split
  }
  return ticks;
};

const children: ChildProcess[] = [];
const spawn = (file: string, args: string[]): ChildProcess => {
  const child = fork(join(here, file), args, { execArgv: ["--import", "tsx", "--conditions=source"], stdio: "inherit", env: { ...process.env, BENCH_RELATIONSHIPS: String(RELATIONSHIPS) } });
  children.push(child);
  return child;
};
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
  /** CPU per call of the busiest three threads of the server process, µs. */
  threads: number[];
}

async function main() {
  console.log(
    `threads bench: node ${process.version}, ${availableParallelism()} cores, ${RELATIONSHIPS.toLocaleString("en")} relationships, ${ROUNDS} rounds of ${CALLS} Check calls at ${CONCURRENCY} in flight over ${CONNECTIONS} connections, ${CLIENT} client, load average ${load()}`,
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
  const body = writeCheckBody(dir);
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
  /** The size of a server's allowed answer (gRPC framing included), from `verify`. */
  const answerBytes = new Map<number, number>();
  const measure = async (server: { child: ChildProcess; port: number }, calls: number): Promise<Sample> => {
    const before = await cpuOf(server.child);
    const threadsBefore = threadCpu(server.child.pid!);
    const r =
      CLIENT === "h2load"
        ? await h2load(server.port, body, dir, calls, CONCURRENCY, CONNECTIONS)
        : await ask<{ calls: number; perSecond: number; p50: number; p99: number }>(client, { port: server.port, concurrency: CONCURRENCY, calls, connections: CONNECTIONS });
    const cpu = (await cpuOf(server.child)) - before;
    const expected = answerBytes.get(server.port);
    if ("dataBytes" in r && expected !== undefined && r.dataBytes !== expected * r.calls)
      throw new Error(`h2load received ${r.dataBytes} answer bytes for ${r.calls} calls of ${expected}: not every call was answered`);
    const threads = [...threadCpu(server.child.pid!)].map(([tid, ms]) => ms - (threadsBefore.get(tid) ?? 0)).sort((a, b) => b - a);
    return { cpu: cpu / r.calls, perSecond: r.perSecond, p50: r.p50, p99: r.p99, threads: threads.slice(0, 3).map((ms) => (ms * 1000) / r.calls) };
  };
  /** With h2load: the bench's request answers allowed through grpc-js (and the answer's size, checked on every h2load run). */
  const verify = async (name: string, server: { port: number }) => {
    if (CLIENT !== "h2load") return;
    const { allowed, bytes } = await ask<{ allowed: unknown; bytes: number }>(client, { port: server.port, verify: true });
    if (allowed !== Allowed.ALLOWED_TRUE) throw new Error(`${name}: the bench's Check answered allowed ${String(allowed)}`);
    answerBytes.set(server.port, 5 + bytes);
  };
  // Warm-up: JIT and every connection settled before the first round.
  for (const server of servers.values()) await measure(server, Math.min(CALLS, 2000));

  for (const [name, server] of servers) await verify(name, server);
  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < SERVERS.length; k++) {
      const name = SERVERS[(k + round) % SERVERS.length]!;
      await verify(name, servers.get(name)!);
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
  console.log("\nCPU µs per call of the busiest threads of each server (medians; the engine's event loops first)");
  for (const name of SERVERS)
    console.log(
      `${name.padEnd(9)} ${[0, 1, 2]
        .map((i) =>
          median(samples.get(name)!.map((s) => s.threads[i] ?? 0))
            .toFixed(1)
            .padStart(7),
        )
        .join(" ")}`,
    );
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
  for (const child of children) child.kill();
  process.exit(1);
});
