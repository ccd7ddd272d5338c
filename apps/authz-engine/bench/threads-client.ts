// The load generator of the threads benchmark (threads.ts), in its own process: `calls` Check calls
// with `concurrency` in flight spread over `connections` HTTP/2 connections (a connection lands on
// one engine thread: SO_REUSEPORT spreads connections, not calls), the same client for every server.
// Also answers { port, verify: true } with one Check's `allowed` and answer size (the h2load client's answers checked).
import { credentials, type Client } from "@grpc/grpc-js";
import { KesselInventoryServiceClient } from "@gatehouse/proto";
import { callOnce, runLoad, serveJobs } from "./grpc-load.js";
import { definitionOf } from "./wire-workload.js";

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

/** One Check, answering what came back: the check that the bench's request is really allowed. */
async function verify(port: number): Promise<{ allowed: unknown; bytes: number }> {
  const response = await callOnce<{ allowed?: unknown }>(clientsFor(port, 1)[0]!, "check");
  return { allowed: response.allowed, bytes: (definitionOf("check").responseSerialize as (value: object) => Buffer)(response).length };
}

serveJobs((job: Job & { verify?: boolean }) => (job.verify ? verify(job.port) : runLoad(clientsFor(job.port, job.connections), "check", job.calls, job.concurrency)));
