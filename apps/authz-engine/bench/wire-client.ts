// The load generator of the wire benchmark (wire.ts), in its own process: `calls` unary calls of
// one RPC with `concurrency` in flight on one channel, the same client for every server.
import { credentials, Metadata, type Client } from "@grpc/grpc-js";
import { KesselInventoryServiceClient } from "@gatehouse/proto";
import { percentile } from "@gatehouse/telemetry";
import { definitionOf, REQUESTS, type Rpc } from "./wire-workload.js";

interface Job {
  port: number;
  rpc: Rpc;
  concurrency: number;
  calls: number;
}

const clients = new Map<number, Client>();
function clientFor(port: number): Client {
  let client = clients.get(port);
  if (client === undefined) {
    client = new KesselInventoryServiceClient(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as Client;
    clients.set(port, client);
  }
  return client;
}

async function run(job: Job) {
  const client = clientFor(job.port);
  const definition = definitionOf(job.rpc);
  const request = REQUESTS[job.rpc];
  const once = () =>
    new Promise<void>((resolve, reject) =>
      client.makeUnaryRequest(
        definition.path,
        definition.requestSerialize as (value: object) => Buffer,
        definition.responseDeserialize as (bytes: Buffer) => unknown,
        request,
        new Metadata(),
        (error) => (error ? reject(error) : resolve()),
      ),
    );
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (issued < job.calls) {
        issued++;
        const t0 = performance.now();
        await once();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { calls: latencies.length, perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

process.on("message", (job: Job) => {
  run(job).then(
    (result) => process.send!({ ok: true, result }),
    (error: unknown) => process.send!({ ok: false, error: String(error) }),
  );
});
