// Check on one and two engine threads against the transport's own cost, in one process tree: three
// server processes — the engine with threads: 1, the engine with threads: 2 (one graph in shared
// memory, SO_REUSEPORT), and a bare grpc-js server answering a constant response (the floor) — driven
// by one load-generator process over several HTTP/2 connections, in alternating rounds (the server
// order rotates each round). Prints, per server, the medians over rounds of calls/s, server CPU per
// call (every thread of its process), p50 and p99, the RSS each holds after a full collection, the
// ratios (two threads to one; one thread to the floor; medians of the per-round paired ratios), the
// load average, and the scaling model's predictions (docs/SCALING.md, "Threads and replicas").
// Run: pnpm --filter @gatehouse/authz-engine bench:threads
//   BENCH_RELATIONSHIPS (default 1,000,000; the goal's figure is at 10,000,000), BENCH_ROUNDS (5; 0:
//   memory only), BENCH_WRITES (0: relationships of new hosts written through each engine's store
//   after the rounds, before memory is measured, so every thread holds changes the shared base does not),
//   BENCH_CALLS per cell (4000), BENCH_CONCURRENCY (64), BENCH_CONNECTIONS (8),
//   BENCH_PREPARED=<dir> (the store and checkpoint of BENCH_RELATIONSHIPS made there by a run of
//   `threads-server.ts prepare <dir>`, used as they are and kept),
//   BENCH_CPU_PROF=<dir> (a V8 CPU profile of every engine thread, one file per thread, written there
//   at the end: summarise each with bench/profile-summary.ts),
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
/** Calls per server before the first round: every thread JIT-compiled and its young generation sized. */
const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 20_000);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 64);
const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 8);
const RELATIONSHIPS = Number(process.env["BENCH_RELATIONSHIPS"] ?? 1_000_000);
const WRITES = Number(process.env["BENCH_WRITES"] ?? 0);
/** A directory an earlier run prepared (kept: preparing ten million relationships takes minutes). */
const PREPARED = process.env["BENCH_PREPARED"];
const SERVERS = ["floor", "engine-1", "engine-2"] as const;
const PROFILE_DIR = process.env["BENCH_CPU_PROF"];
const CLIENT = process.env["BENCH_CLIENT"] ?? (h2loadAvailable() ? "h2load" : "node");
if (CLIENT !== "h2load" && CLIENT !== "node") throw new Error(`BENCH_CLIENT must be h2load or node, not ${CLIENT}`);
/**
 * CPU time of each thread of a process so far, ms, with the thread's name (Linux:
 * /proc/<pid>/task/<tid>/stat, utime + stime, and comm): MainThread (the first engine thread's
 * event loop), WorkerThread (every other engine thread), V8Worker (the V8 platform's pool: GC
 * helpers and background compilation, shared by every isolate of the process), libuv-worker.
 */
const threadCpu = (pid: number): Map<string, { name: string; ms: number }> => {
  const ticks = new Map<string, { name: string; ms: number }>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      ticks.set(tid, { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 });
    }
  } catch {
    // not Linux (or the process ended): no per-thread split
  }
  return ticks;
};
/**
 * The machine's CPU time so far, and the part of it stolen by the hypervisor (Linux /proc/stat:
 * `steal`, time this virtual machine's cores were ready but ran another guest), in clock ticks.
 * Steal varies from run to run on a shared host and slows every server alike.
 */
const machineTicks = (): { total: number; steal: number } => {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return { total: Number.NaN, steal: Number.NaN };
  }
};
/** The thread kinds the report splits a server's CPU into, in order (any other name counts as "other"). */
const THREAD_KINDS = ["MainThread", "WorkerThread", "V8Worker", "libuv-worker", "other"] as const;

const children: ChildProcess[] = [];
const spawn = (file: string, args: string[]): ChildProcess => {
  // BENCH_CPU_PROF=<dir>: every engine thread writes a CPU profile there when the servers exit.
  const profile = PROFILE_DIR !== undefined && args[0]?.startsWith("engine") ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child = fork(join(here, file), args, {
    execArgv: ["--import", "tsx", ...profile],
    stdio: "inherit",
    env: { ...process.env, BENCH_RELATIONSHIPS: String(RELATIONSHIPS) },
  });
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
  /** CPU per call of each kind of thread of the server process (THREAD_KINDS), µs. */
  threads: Record<string, number>;
  /** The load client's own CPU per call, µs (h2load; NaN with the Node client). */
  client: number;
  /** The share of the machine's CPU time stolen by the hypervisor during the run. */
  steal: number;
  /** With several threads: the share of the calls the first thread answered (how the kernel spread the connections). */
  firstShare: number;
}

async function main() {
  console.log(
    `threads bench: node ${process.version}, ${availableParallelism()} cores, ${RELATIONSHIPS.toLocaleString("en")} relationships, ${ROUNDS} rounds of ${CALLS} Check calls at ${CONCURRENCY} in flight over ${CONNECTIONS} connections, ${CLIENT} client, load average ${load()}`,
  );
  const dir = PREPARED ?? mkdtempSync(join(tmpdir(), "gatehouse-bench-threads-"));
  if (PREPARED === undefined) {
    const prepared = spawn("threads-server.ts", ["prepare", dir]);
    await new Promise((resolve) => prepared.once("exit", resolve));
  }
  const servers = new Map<string, { child: ChildProcess; port: number }>();
  // One at a time, so each load's peak memory is not another's.
  for (const name of SERVERS) {
    const child = spawn("threads-server.ts", [name, dir]);
    servers.set(name, { child, port: (await next<{ port: number }>(child)).port });
  }
  const client = spawn("threads-client.ts", []);
  const body = writeCheckBody(dir);
  /** The server's CPU so far (µs) and the calls each of its threads answered so far. */
  const cpuOf = async (child: ChildProcess) => {
    const answer = next<{ cpu: number; calls: number[] }>(child);
    child.send("cpu");
    return await answer;
  };
  const memoryOf = async (child: ChildProcess) => {
    const answer = next<{ rss: number; rssAnon?: number; heaps?: number[]; shareMs?: number }>(child);
    child.send("memory");
    return await answer;
  };
  /** The size of a server's allowed answer (gRPC framing included), from `verify`. */
  const answerBytes = new Map<number, number>();
  const measure = async (server: { child: ChildProcess; port: number }, calls: number): Promise<Sample> => {
    const { cpu: before, calls: callsBefore } = await cpuOf(server.child);
    const threadsBefore = threadCpu(server.child.pid!);
    const ticksBefore = machineTicks();
    const r =
      CLIENT === "h2load"
        ? await h2load(server.port, body, dir, calls, CONCURRENCY, CONNECTIONS)
        : await ask<{ calls: number; perSecond: number; p50: number; p99: number }>(client, { port: server.port, concurrency: CONCURRENCY, calls, connections: CONNECTIONS });
    const after = await cpuOf(server.child);
    const cpu = after.cpu - before;
    const served = after.calls.map((calls, thread) => calls - (callsBefore[thread] ?? 0));
    const firstShare = served.length > 1 ? served[0]! / served.reduce((a, b) => a + b, 0) : Number.NaN;
    const ticks = machineTicks();
    const steal = (ticks.steal - ticksBefore.steal) / (ticks.total - ticksBefore.total);
    const expected = answerBytes.get(server.port);
    if ("dataBytes" in r && expected !== undefined && r.dataBytes !== expected * r.calls)
      throw new Error(`h2load received ${r.dataBytes} answer bytes for ${r.calls} calls of ${expected}: not every call was answered`);
    const threads: Record<string, number> = Object.fromEntries(THREAD_KINDS.map((kind) => [kind, 0]));
    for (const [tid, { name, ms }] of threadCpu(server.child.pid!)) {
      const kind = (THREAD_KINDS as readonly string[]).includes(name) ? name : "other";
      threads[kind]! += ((ms - (threadsBefore.get(tid)?.ms ?? 0)) * 1000) / r.calls;
    }
    return { cpu: cpu / r.calls, perSecond: r.perSecond, p50: r.p50, p99: r.p99, threads, firstShare, steal, client: "clientCpu" in r && typeof r.clientCpu === "number" ? r.clientCpu : Number.NaN };
  };
  /** With h2load: the bench's request answers allowed through grpc-js (and the answer's size, checked on every h2load run). */
  const verify = async (name: string, server: { port: number }) => {
    if (CLIENT !== "h2load") return;
    const { allowed, bytes } = await ask<{ allowed: unknown; bytes: number }>(client, { port: server.port, verify: true });
    if (allowed !== Allowed.ALLOWED_TRUE) throw new Error(`${name}: the bench's Check answered allowed ${String(allowed)}`);
    answerBytes.set(server.port, 5 + bytes);
  };
  // Warm-up: JIT and every connection settled before the first round.
  if (ROUNDS > 0) for (const server of servers.values()) await measure(server, WARMUP);

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
  if (WRITES > 0) {
    for (const name of ["engine-1", "engine-2"]) {
      const { child } = servers.get(name)!;
      const written = next<{ written: true }>(child);
      child.send({ writes: WRITES });
      await written;
    }
    console.log(`${WRITES.toLocaleString("en")} relationships of new hosts written to each engine, load average ${load()}`);
  }
  const rss = new Map<string, number>();
  const rssAnon = new Map<string, number>();
  const heaps = new Map<string, number[]>();
  let shareMs: number | undefined;
  for (const [name, server] of servers) {
    const memory = await memoryOf(server.child);
    rss.set(name, memory.rss);
    rssAnon.set(name, memory.rssAnon ?? Number.NaN);
    heaps.set(name, memory.heaps ?? []);
    shareMs ??= memory.shareMs;
  }
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  console.log("\nmemory after a full collection (every thread's heap)\nserver     RSS MiB   anonymous MiB   V8 heap committed per thread, MiB");
  for (const name of SERVERS) console.log(`${name.padEnd(9)} ${mib(rss.get(name)!).padStart(8)} ${mib(rssAnon.get(name)!).padStart(15)}   ${heaps.get(name)!.map(mib).join(" + ")}`);
  console.log(`2 threads / 1: RSS ${(rss.get("engine-2")! / rss.get("engine-1")!).toFixed(2)}x, anonymous ${(rssAnon.get("engine-2")! / rssAnon.get("engine-1")!).toFixed(2)}x (goal <= 1.1x)`);
  if (ROUNDS === 0) {
    console.log(`making and adopting the last shared base (the first thread, serialized): ${shareMs?.toFixed(0)} ms at this size`);
    await stopAll();
    return;
  }

  const ratio = (a: string, b: string, of: (s: Sample) => number) => median(samples.get(a)!.map((s, i) => of(s) / of(samples.get(b)![i]!)));
  console.log("\nmedians over rounds");
  // The machine's ceiling for a server: every core busy with the server or the client, so
  // calls/s ≤ cores / (server CPU per call + client CPU per call), whatever the server's threads.
  const machineCores = availableParallelism();
  const ceiling = (s: Sample) => (machineCores * 1e6) / (s.cpu + s.client);
  console.log("server     calls/s  CPU µs/call   p50 ms   p99 ms  client µs/call  steal  machine ceiling calls/s (share reached)");
  for (const name of SERVERS) {
    const mine = samples.get(name)!;
    const column = (of: (s: Sample) => number, digits: number, width: number) => median(mine.map(of)).toFixed(digits).padStart(width);
    const reached = median(mine.map((s) => s.perSecond / ceiling(s)));
    console.log(
      `${name.padEnd(9)} ${column((s) => s.perSecond, 0, 8)} ${column((s) => s.cpu, 1, 12)} ${column((s) => s.p50, 2, 8)} ${column((s) => s.p99, 2, 8)} ${column((s) => s.client, 1, 15)} ${column((s) => s.steal * 100, 0, 5)} % ${column(ceiling, 0, 16)} (${(reached * 100).toFixed(0)} %)`,
    );
  }
  console.log(`\nCPU µs per call by thread (medians; 10 ms clock ticks per thread)\nserver    ${THREAD_KINDS.map((kind) => kind.padStart(13)).join("")}   first thread's share of the calls`);
  for (const name of SERVERS) {
    const share = median(samples.get(name)!.map((s) => s.firstShare));
    console.log(
      `${name.padEnd(9)} ${THREAD_KINDS.map((kind) =>
        median(samples.get(name)!.map((s) => s.threads[kind]!))
          .toFixed(1)
          .padStart(13),
      ).join("")}   ${Number.isNaN(share) ? "" : `${(share * 100).toFixed(0)} %`}`,
    );
  }
  const rate = (s: Sample) => s.perSecond;
  const cpu = (s: Sample) => s.cpu;
  const p99 = (s: Sample) => s.p99;
  console.log("\nratios (medians of per-round ratios)                goal");
  // What 2 threads can gain here at most: the machine's ceiling for them against one thread whose
  // event loop has a core to itself (calls/s ≤ 1 / its loop's CPU per call).
  const loopBound = (s: Sample) => 1e6 / s.threads["MainThread"]!;
  const allows = median(samples.get("engine-2")!.map(ceiling)) / median(samples.get("engine-1")!.map(rate));
  const bound = median(samples.get("engine-2")!.map(ceiling)) / median(samples.get("engine-1")!.map(loopBound));
  console.log(
    `2 threads / 1: calls/s      ${ratio("engine-2", "engine-1", rate).toFixed(2)}x                  >= 1.5x (this machine's ceiling: ${allows.toFixed(2)}x against this run's one thread, ${bound.toFixed(2)}x against one thread with a core to itself)`,
  );
  console.log(`2 threads / 1: CPU per call ${ratio("engine-2", "engine-1", cpu).toFixed(2)}x                  <= 1.1x`);
  console.log(`2 threads / 1: p99          ${ratio("engine-2", "engine-1", p99).toFixed(2)}x                  <= 1.0x`);
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
  await stopAll();

  async function stopAll() {
    client.kill();
    for (const { child } of servers.values()) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.send("exit");
      await exited;
    }
    if (PREPARED === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  for (const child of children) child.kill();
  process.exit(1);
});
