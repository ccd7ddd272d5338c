// The load generator of the threads benchmark (threads.ts), in its own process: `calls` Check calls
// with `concurrency` in flight spread over `connections` HTTP/2 connections (a connection lands on
// one engine thread: SO_REUSEPORT spreads connections, not calls), the same client for every server.
// Also answers { port, verify: true } with one Check's `allowed` and answer size (the h2load client's answers checked).
import { credentials, Metadata, type Client } from "@grpc/grpc-js";
import { KesselInventoryServiceClient } from "@gatehouse/proto";
import { percentile } from "@gatehouse/telemetry";
import { definitionOf, REQUESTS } from "./wire-workload.js";

interface Job {
  port: number;
  concurrency: number;
  calls: number;
  connections: number;
}

const pools = new Map<string, Client[]>();
function clientsFor(port: number, connections: number): Client[] {
  const key = `${port}/${connections}`;
  let clients = pools.get(key);
  if (clients === undefined) {
    clients = Array.from(
      { length: connections },
      () => new KesselInventoryServiceClient(`127.0.0.1:${port}`, credentials.createInsecure(), { "grpc.use_local_subchannel_pool": 1 }) as unknown as Client,
    );
    pools.set(key, clients);
  }
  return clients;
}

async function run(job: Job) {
  const clients = clientsFor(job.port, job.connections);
  const definition = definitionOf("check");
  const request = REQUESTS.check;
  const once = (client: Client) =>
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
    Array.from({ length: job.concurrency }, async (_, lane) => {
      const client = clients[lane % clients.length]!;
      while (issued < job.calls) {
        issued++;
        const t0 = performance.now();
        await once(client);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { calls: latencies.length, perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** One Check, answering what came back: the check that the bench's request is really allowed. */
async function verify(port: number): Promise<{ allowed: unknown; bytes: number }> {
  const [client] = clientsFor(port, 1);
  const definition = definitionOf("check");
  const response = await new Promise<{ allowed?: unknown }>((resolve, reject) =>
    client!.makeUnaryRequest(
      definition.path,
      definition.requestSerialize as (value: object) => Buffer,
      definition.responseDeserialize as (bytes: Buffer) => { allowed?: unknown },
      REQUESTS.check,
      new Metadata(),
      (error, value) => (error ? reject(error) : resolve(value!)),
    ),
  );
  return { allowed: response.allowed, bytes: (definition.responseSerialize as (value: object) => Buffer)(response).length };
}

process.on("message", (job: Job & { verify?: boolean }) => {
  (job.verify ? verify(job.port) : run(job)).then(
    (result) => process.send!({ ok: true, result }),
    (error: unknown) => process.send!({ ok: false, error: String(error) }),
  );
});
