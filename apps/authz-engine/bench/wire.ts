// Check on the wire against the transport's own cost. Three server processes — the engine, a bare
// grpc-js server whose handlers answer a constant response (the floor), and the same constant
// answers served over node:http2 without grpc-js (h2) — are driven by one load-generator process,
// in alternating rounds (the server order rotates each round), at each concurrency, for Check,
// CheckForUpdate and CheckBulk(50). Each round is a fixed number of calls. Prints, per cell, the
// medians over rounds of the server's CPU per call (process.cpuUsage of that server's process),
// calls/s, p50 and p99, then the ratios to the floor (medians of the per-round paired ratios).
// Run: pnpm --filter @gatehouse/authz-engine bench:wire   (Postgres at DATABASE_URL; builds the
// engine and its packages first: the servers run the built code)
//   BENCH_ROUNDS (default 7), BENCH_CALLS per cell (default 3000; CheckBulk a fifth of it),
//   BENCH_CONCURRENCY (default 16,64), BENCH_RPCS (default check,checkForUpdate,checkBulk),
//   BENCH_SERVERS (default floor,engine-grpc-js,engine,h2-check; also h2, and engine-before with
//   BENCH_ENGINE_BEFORE=<another build's dist/index.js>: see wire-server.ts), BENCH_PROFILE=<server>[,<server>] writes a V8 CPU profile
//   of those servers over the measured rounds (not start-up or warm-up) to
//   BENCH_PROFILE_DIR/<server>.cpuprofile (default: the current directory); summarise one with
//   bench/profile-summary.ts.
import { fork, type ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ask } from "./fixture.js";
import { RPCS, type Rpc } from "./wire-workload.js";

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 7);
const CALLS = Number(process.env["BENCH_CALLS"] ?? 3000);
const CONCURRENCY = (process.env["BENCH_CONCURRENCY"] ?? "16,64").split(",").map(Number);
const RPC_LIST = (process.env["BENCH_RPCS"] ?? RPCS.join(",")).split(",") as Rpc[];
const SERVERS = (process.env["BENCH_SERVERS"] ?? "floor,engine-grpc-js,engine,h2-check").split(",");
const PROFILE = new Set((process.env["BENCH_PROFILE"] ?? "").split(",").filter(Boolean));
const PROFILE_DIR = resolve(process.env["BENCH_PROFILE_DIR"] ?? ".");

const callsOf = (rpc: Rpc) => (rpc === "checkBulk" ? Math.max(1, Math.round(CALLS / 5)) : CALLS);

function spawn(file: string, args: string[], profile: string | null): ChildProcess {
  const env = profile ? { ...process.env, WIRE_PROFILE_FILE: join(PROFILE_DIR, `${profile}.cpuprofile`) } : process.env;
  // Without the "source" condition: the engine and the packages run from their built dist, as
  // deployed (tsx's transform of the sources adds a naming call to every closure it creates).
  return fork(join(here, file), args, { execArgv: ["--import", "tsx"], stdio: "inherit", env });
}

const next = <T>(child: ChildProcess) => new Promise<T>((resolve) => child.once("message", (m) => resolve(m as T)));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface Sample {
  cpu: number;
  perSecond: number;
  p50: number;
  p99: number;
}

async function main() {
  const servers = new Map<string, { child: ChildProcess; port: number }>();
  for (const name of SERVERS) {
    const child = spawn("wire-server.ts", [name], PROFILE.has(name) ? name : null);
    servers.set(name, { child, port: (await next<{ port: number }>(child)).port });
  }
  const client = spawn("wire-client.ts", [], null);
  const cpuOf = async (child: ChildProcess) => {
    const answer = next<{ cpu: number }>(child);
    child.send("cpu");
    return (await answer).cpu;
  };
  const measure = async (server: { child: ChildProcess; port: number }, rpc: Rpc, concurrency: number, calls: number): Promise<Sample> => {
    const before = await cpuOf(server.child);
    const r = await ask<{ calls: number; perSecond: number; p50: number; p99: number }>(client, { port: server.port, rpc, concurrency, calls });
    const cpu = (await cpuOf(server.child)) - before;
    return { cpu: cpu / r.calls, perSecond: r.perSecond, p50: r.p50, p99: r.p99 };
  };

  console.log(
    `wire bench: node ${process.version}, ${ROUNDS} rounds, ${CALLS} calls per cell (CheckBulk ${callsOf("checkBulk")}), servers ${SERVERS.join(", ")}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  // Warm-up: every server and RPC, so JIT and connections are settled before the first round.
  for (const rpc of RPC_LIST) for (const server of servers.values()) await measure(server, rpc, 16, Math.min(callsOf(rpc), 1000));

  for (const name of PROFILE) {
    const profiled = servers.get(name)!;
    const started = next<{ profiling: boolean }>(profiled.child);
    profiled.child.send("profile");
    await started;
  }

  const samples = new Map<string, Sample[]>();
  const names = [...servers.keys()];
  for (let round = 0; round < ROUNDS; round++) {
    for (const rpc of RPC_LIST) {
      for (const concurrency of CONCURRENCY) {
        for (let k = 0; k < names.length; k++) {
          const name = names[(k + round) % names.length]!;
          const sample = await measure(servers.get(name)!, rpc, concurrency, callsOf(rpc));
          const key = `${rpc}@${concurrency}/${name}`;
          samples.set(key, [...(samples.get(key) ?? []), sample]);
        }
      }
    }
    process.stdout.write(`round ${round + 1}/${ROUNDS} done, load average ${loadavg()[0]!.toFixed(1)}\n`);
  }

  console.log("\nmedians over rounds; ratios are medians of the per-round ratios to the floor in the same round");
  console.log("rpc              inflight  server   CPU µs/call  calls/s   p50 ms   p99 ms   CPU ratio  throughput ratio");
  for (const rpc of RPC_LIST) {
    for (const concurrency of CONCURRENCY) {
      const floor = samples.get(`${rpc}@${concurrency}/floor`);
      for (const name of names) {
        const mine = samples.get(`${rpc}@${concurrency}/${name}`)!;
        const cpuRatio = floor ? median(mine.map((s, i) => s.cpu / floor[i]!.cpu)) : Number.NaN;
        const rateRatio = floor ? median(mine.map((s, i) => s.perSecond / floor[i]!.perSecond)) : Number.NaN;
        console.log(
          `${rpc.padEnd(16)} ${String(concurrency).padStart(8)}  ${name.padEnd(7)} ${median(mine.map((s) => s.cpu))
            .toFixed(1)
            .padStart(11)} ${median(mine.map((s) => s.perSecond))
            .toFixed(0)
            .padStart(8)} ${median(mine.map((s) => s.p50))
            .toFixed(2)
            .padStart(8)} ${median(mine.map((s) => s.p99))
            .toFixed(2)
            .padStart(8)} ${cpuRatio.toFixed(2).padStart(10)}x ${rateRatio.toFixed(2).padStart(10)}x`,
        );
      }
    }
  }
  console.log(
    `load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );

  client.kill();
  for (const { child } of servers.values()) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.send("exit");
    await exited;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
