// Spawns the all-in-one Gatehouse server as a child process (its public interfaces only) and
// reads its CPU time, so the report can give server CPU per request.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface StackEndpoints {
  httpUrl: string;
  grpcTarget: string;
  /** Server process id when this driver started it (CPU accounting), else undefined. */
  pid: number | undefined;
}

export interface SpawnedServer extends StackEndpoints {
  stop(): Promise<void>;
  log(): string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface SpawnOptions {
  dataDir: string;
  /** Real Postgres for the server's store; PGlite in dataDir when absent. */
  databaseUrl?: string;
  startTimeoutMs?: number;
}

export async function spawnServer(options: SpawnOptions): Promise<SpawnedServer> {
  const [http, grpcPort, cache, metrics] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const env = { ...process.env };
  if (options.databaseUrl) env["DATABASE_URL"] = options.databaseUrl;
  else delete env["DATABASE_URL"];
  env["LOG_LEVEL"] = env["LOG_LEVEL"] ?? "warn";
  const args = ["--conditions=source", "--import", "tsx", "apps/gatehouse/src/main.ts", "start", "--data-dir", options.dataDir];
  args.push("--http-port", String(http), "--grpc-port", String(grpcPort), "--cache-port", String(cache), "--metrics-port", String(metrics), "--no-seed");
  const child: ChildProcess = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Gatehouse did not start within ${options.startTimeoutMs ?? 90_000} ms. Output:\n${output}`)), options.startTimeoutMs ?? 90_000);
    const onData = (): void => {
      if (output.includes("Gatehouse is running")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Gatehouse exited with code ${code} before it was ready. Output:\n${output}`));
    });
  });

  return {
    httpUrl: `http://127.0.0.1:${http}`,
    grpcTarget: `127.0.0.1:${grpcPort}`,
    pid: child.pid,
    log: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

/**
 * utime + stime in milliseconds of a process and its live descendants (Linux /proc); undefined
 * elsewhere. The descendants count because `gatehouse start` may run the server as its child (it
 * restarts itself with the huge-pages tunable), leaving the spawned process all but idle.
 */
export function cpuTimeMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const own = processCpuMs(pid);
  if (own === undefined) return undefined;
  let total = own.ms;
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processCpuMs(Number(entry));
    if (stat) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)]);
  }
  const pending = [...(children.get(pid) ?? [])];
  const seen = new Set([pid]);
  while (pending.length > 0) {
    const child = pending.pop()!;
    if (seen.has(child)) continue;
    seen.add(child);
    total += processCpuMs(child)?.ms ?? 0;
    pending.push(...(children.get(child) ?? []));
  }
  return total;
}

function processCpuMs(pid: number): { ms: number; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name: ppid is field 4, utime and stime 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticksPerSecond = 100; // USER_HZ on Linux
    return { ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond, ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}
