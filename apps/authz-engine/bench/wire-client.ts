// The load generator of the wire benchmark (wire.ts), in its own process: `calls` unary calls of
// one RPC with `concurrency` in flight on one channel, the same client for every server.
import { credentials, type Client } from "@grpc/grpc-js";
import { KesselInventoryServiceClient } from "@gatehouse/proto";
import { runLoad, serveJobs } from "./grpc-load.js";
import type { Rpc } from "./wire-workload.js";

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

serveJobs((job: Job) => runLoad([clientFor(job.port)], job.rpc, job.calls, job.concurrency));
