// A load generator that costs the machine little CPU, for the threads benchmark (threads.ts): h2load
// (nghttp2's HTTP/2 load tester, written in C) posting one fixed gRPC message — the length-prefixed
// Check request — over HTTP/2, so the server under test, not the client, is what saturates the cores.
// h2load counts HTTP statuses only (a gRPC error still answers HTTP 200, with no message), so the
// caller also checks the response bytes: every call must have received one whole answer message.
import { execFile } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { percentile } from "@gatehouse/telemetry";
import { definitionOf, REQUESTS } from "./wire-workload.js";

const run = promisify(execFile);
export const H2LOAD = process.env["BENCH_H2LOAD"] ?? "/usr/bin/h2load";
export const h2loadAvailable = () => existsSync(H2LOAD);

/** Writes the Check request as one gRPC message (uncompressed flag, 4-byte length, protobuf) and returns the file. */
export function writeCheckBody(dir: string): string {
  const definition = definitionOf("check");
  const message = (definition.requestSerialize as (value: object) => Buffer)(REQUESTS.check);
  const framed = Buffer.alloc(5 + message.length);
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  const file = join(dir, "check.grpc");
  writeFileSync(file, framed);
  return file;
}

const argsFor = (port: number, body: string, connections: number, streams: number, calls: number) => [
  "-n",
  String(calls),
  "-c",
  String(connections),
  "-m",
  String(streams),
  "-H",
  "content-type: application/grpc",
  "-H",
  "te: trailers",
  "-d",
  body,
  `http://127.0.0.1:${port}${definitionOf("check").path}`,
];

export interface H2loadResult {
  calls: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** Response DATA bytes over all calls (gRPC framing included). */
  dataBytes: number;
  /** h2load's own CPU per call (user + system), µs; NaN where it cannot be read (not Linux). */
  clientCpu?: number;
}

/**
 * CPU of this process's children that ended so far (Linux: cutime + cstime of /proc/self/stat, in
 * clock ticks of 10 ms), ms; NaN elsewhere. Across one h2load run it is h2load's own CPU: the run
 * is the only child that ends meanwhile.
 */
function endedChildrenCpuMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Parses h2load's summary (succeeded count, elapsed) and its per-request log (µs until the end of each response). */
export function parseH2load(stdout: string, log: string): H2loadResult {
  const done = /requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(stdout);
  const finished = /finished in ([\d.]+)(ms|s),/.exec(stdout);
  const data = /traffic: .*\((\d+)\) data/.exec(stdout);
  if (!done || !finished || !data) throw new Error(`h2load: unexpected output\n${stdout}`);
  const [, total, succeeded, failed, errored] = done.map(Number);
  if (failed !== 0 || errored !== 0 || succeeded !== total) throw new Error(`h2load: ${failed} failed, ${errored} errored of ${total}\n${stdout}`);
  const latencies = log
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const [, status, micros] = line.split("\t");
      if (status !== "200") throw new Error(`h2load: HTTP status ${status}`);
      return Number(micros) / 1000;
    })
    .sort((a, b) => a - b);
  const seconds = Number(finished[1]) / (finished[2] === "ms" ? 1000 : 1);
  return { calls: succeeded!, perSecond: succeeded! / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), dataBytes: Number(data[1]) };
}

/** `calls` Check calls, `concurrency` in flight as `connections` connections × concurrency/connections streams. */
export async function h2load(port: number, body: string, dir: string, calls: number, concurrency: number, connections: number): Promise<H2loadResult> {
  const logFile = join(dir, `h2load-${port}.log`);
  rmSync(logFile, { force: true });
  const streams = Math.max(1, Math.round(concurrency / connections));
  const cpuBefore = endedChildrenCpuMs();
  const { stdout } = await run(H2LOAD, [...argsFor(port, body, connections, streams, calls), `--log-file=${logFile}`], { maxBuffer: 1 << 24 });
  const result = parseH2load(stdout, readFileSync(logFile, "utf8"));
  return { ...result, clientCpu: ((endedChildrenCpuMs() - cpuBefore) * 1000) / result.calls };
}
