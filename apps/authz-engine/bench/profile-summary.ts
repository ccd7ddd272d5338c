// Summarises a V8 CPU profile (node --cpu-prof; bench:wire writes one with BENCH_PROFILE=engine):
// self time by component as a share of the busy time (idle excluded), and the heaviest functions.
// Run: pnpm --filter @gatehouse/authz-engine exec tsx bench/profile-summary.ts <file.cpuprofile> [top] [--serving]
//   --serving: only the samples from the first to the last answer sent (node:http2's `respond`), so
//   a profile of a whole server run (bench:threads with BENCH_CPU_PROF) leaves its start and stop out.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The component a frame belongs to, by where its code lives. */
export function componentOf(frame: ProfileNode["callFrame"]): string {
  const { url, functionName } = frame;
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(idle)") return "(idle)";
  if (functionName === "(program)") return "(program: native, unattributed)";
  if (url.includes("/@grpc/grpc-js/")) return "grpc-js";
  if (url.includes("internal/http2") || url === "node:http2") return "node http2";
  if (url.includes("/prom-client/")) return "metrics (prom-client)";
  if (url.includes("/pg/") || url.includes("/pg-protocol/") || url.includes("/pg-pool/")) return "pg client";
  if (url.includes("/packages/evaluator/")) return "evaluator";
  if (url.includes("/packages/proto/") || url.includes("/@bufbuild/")) return "protobuf";
  if (url.includes("/packages/telemetry/") || url.includes("/pino")) return "telemetry";
  if (url.includes("/packages/store/")) return "store";
  if (/\/apps\/authz-engine\/(src|dist)\/grpc\//.test(url)) return "engine: grpc layer";
  if (/\/apps\/authz-engine\/(src|dist)\//.test(url)) return "engine: handlers, commands, graph";
  if (url.startsWith("node:internal/streams") || url.startsWith("node:internal/stream_base")) return "node streams";
  if (url.startsWith("node:internal/timers") || url === "node:timers") return "node timers";
  if (url === "node:events" || url.startsWith("node:internal/event")) return "node events";
  if (url.startsWith("node:internal/process/task_queues") || url.startsWith("node:internal/async_hooks")) return "node ticks (nextTick, microtasks)";
  if (url.startsWith("node:internal/buffer") || url === "node:buffer") return "node buffers";
  if (url.startsWith("node:")) return "node (other)";
  if (url === "") return "native (builtins)";
  return "other";
}

function main() {
  const args = process.argv.slice(2);
  const serving = args.includes("--serving");
  const [file, topArg] = args.filter((arg) => arg !== "--serving");
  if (!file) throw new Error("usage: profile-summary.ts <file.cpuprofile> [top] [--serving]");
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  let first = 0;
  let last = profile.samples.length - 1;
  if (serving) {
    const answering = profile.samples.flatMap((id, i) => (byId.get(id)!.callFrame.functionName === "respond" ? [i] : []));
    if (answering.length === 0) throw new Error("--serving: the profile holds no answer sent");
    first = answering[0]!;
    last = answering[answering.length - 1]!;
  }
  const self = new Map<number, number>();
  // A sample's time delta is the time since the one before it.
  for (let i = first; i <= last; i++) self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  const components = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of self) {
    const node = byId.get(id)!;
    const component = componentOf(node.callFrame);
    // The profiler's own stop, and the benchmark's CPU-time reads.
    if (component === "(idle)" || node.callFrame.url === "node:inspector" || node.callFrame.functionName === "cpuUsage") continue;
    busy += micros;
    components.set(component, (components.get(component) ?? 0) + micros);
    const where = node.callFrame.url.replace(/^.*\/(node_modules|apps|packages)\//, "$1/");
    const key = `${node.callFrame.functionName || "(anonymous)"} ${where}:${node.callFrame.lineNumber + 1}`;
    functions.set(key, (functions.get(key) ?? 0) + micros);
  }
  const pct = (micros: number) => `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
  console.log(`busy ${(busy / 1e6).toFixed(2)} s of CPU samples`);
  for (const [name, micros] of [...components].sort((a, b) => b[1] - a[1])) console.log(`${pct(micros)}  ${name}`);
  console.log("\nheaviest functions (self time)");
  for (const [name, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25))) console.log(`${pct(micros)}  ${name}`);
}

main();
