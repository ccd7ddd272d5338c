// Resource bench: memory and a healthy caller's Check latency while 1,000 StreamedListObjects
// streams stall (raw HTTP/2 clients that send a request and never read), side by side with the
// same figures before, and after the engine resets the stalled streams.
// Run: pnpm --filter @gatehouse/authz-engine bench:stalled
import { connect, type ClientHttp2Session } from "node:http2";
import { credentials, Metadata } from "@grpc/grpc-js";
import { type CheckRequest, KesselInventoryServiceClient, StreamedListObjectsRequest } from "@gatehouse/proto";
import { openStore } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { buildServer } from "../src/index.js";
import { seedReadableHosts } from "./fixture.js";
import { percentile } from "@gatehouse/telemetry";

const STREAMS = Number(process.env["BENCH_STREAMS"] ?? 1000);
const HOSTS = Number(process.env["BENCH_HOSTS"] ?? 5000);
const IDLE_MS = Number(process.env["BENCH_IDLE_MS"] ?? 15_000);
const store = await openStore({ pollIntervalMs: 50 });
const ws = await seedReadableHosts(
  store,
  "bench-stall",
  "alice",
  Array.from({ length: HOSTS }, (_, i) => `host-${i}-${"p".repeat(30)}`),
);
const engine = buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, store, logger: createSilentLogger(), streams: { idleTimeoutMs: IDLE_MS } });
const { port, metricsPort } = await engine.start();
await new Promise((resolve) => setTimeout(resolve, 500));

const client = new KesselInventoryServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
const check: CheckRequest = {
  object: { resourceType: "workspace", resourceId: ws, reporter: { type: "rbac" } },
  relation: "view",
  subject: { resource: { resourceType: "principal", resourceId: "redhat/alice", reporter: { type: "rbac" } } },
};
const once = () => new Promise<void>((resolve, reject) => client.check(check, new Metadata(), (error) => (error ? reject(error) : resolve())));

async function sample(label: string): Promise<{ rssMb: number; heapMb: number; p50: number; p99: number }> {
  global.gc?.();
  const latencies: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t0 = performance.now();
    await once();
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  const memory = process.memoryUsage();
  const result = { rssMb: Math.round(memory.rss / 1048576), heapMb: Math.round((memory.heapUsed + memory.external) / 1048576), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  console.log(
    `${label.padEnd(34)} rss ${String(result.rssMb).padStart(5)} MB  heap+external ${String(result.heapMb).padStart(5)} MB   check p50 ${result.p50.toFixed(3)} ms  p99 ${result.p99.toFixed(3)} ms`,
  );
  return result;
}

function frame(message: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(message.length, 1);
  Buffer.from(message).copy(out, 5);
  return out;
}

for (let i = 0; i < 200; i++) await once();
const before = await sample("before");

// Raw HTTP/2 clients: 100 streams per connection (the per-connection cap), none ever read.
const body = frame(
  StreamedListObjectsRequest.encode({
    objectType: { resourceType: "host", reporterType: "hbi" },
    relation: "view",
    subject: { resource: { resourceType: "principal", resourceId: "redhat/alice", reporter: { type: "rbac" } } },
  }).finish(),
);
const sessions: ClientHttp2Session[] = [];
for (let opened = 0; opened < STREAMS + 1; opened += 100) {
  const session = connect(`http://127.0.0.1:${port}`);
  session.on("error", () => undefined);
  sessions.push(session);
  for (let i = 0; i < Math.min(100, STREAMS + 1 - opened); i++) {
    const stream = session.request({ ":method": "POST", ":path": "/kessel.inventory.v1beta2.KesselInventoryService/StreamedListObjects", "content-type": "application/grpc", te: "trailers" });
    stream.on("error", () => undefined);
    stream.pause();
    stream.end(body);
  }
}
await new Promise((resolve) => setTimeout(resolve, 3000));
const during = await sample(`${STREAMS} streams stalled (+1 more)`);
await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 3000));
const after = await sample("after the idle reset");
console.log(
  `stalled vs before: rss +${during.rssMb - before.rssMb} MB, heap+external +${during.heapMb - before.heapMb} MB, check p50 ×${(during.p50 / before.p50).toFixed(2)}, p99 ×${(during.p99 / before.p99).toFixed(2)}; after reset heap+external +${after.heapMb - before.heapMb} MB`,
);
const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
console.log(
  metrics
    .split("\n")
    .filter((l) => /stalled_streams_total\{|grpc_server_handled_total\{[^}]*grpc_method="StreamedListObjects"/.test(l))
    .join("\n"),
);
for (const session of sessions) session.destroy();
client.close();
await engine.stop();
await store.close();
