// Stream bounds: per connection (HTTP/2 SETTINGS) and per engine (RESOURCE_EXHAUSTED). Bounded
// counts; each wait is for the engine's own in-flight gauge to reach a count, with no deadline.
import { status, type ClientReadableStream, type ServiceError } from "@grpc/grpc-js";
import { Allowed, type KesselInventoryServiceClient, type StreamedListObjectsRequest } from "@gatehouse/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, engineMetric, listAll, ownConnection, principal, seedViewableHosts, startEngine, workspace, type RunningEngine } from "./helpers.js";

// Enough that a stream no client reads fills HTTP/2 flow-control windows and buffers at both ends,
// so its handler stays blocked (in flight) however fast the machine is.
const HOSTS = 30_000;
let engine: RunningEngine;
const clients: KesselInventoryServiceClient[] = [];

beforeAll(async () => {
  engine = await startEngine({
    list: { defaultLimit: HOSTS, maxLimit: HOSTS },
    // No idle reset while the test counts: stalled streams stay open until it cancels them
    // (stream-idle.test.ts covers the reset).
    streams: { maxPerConnection: 2, maxActive: 3, idleTimeoutMs: 600_000 },
  });
  await seedViewableHosts(engine, "streams-org", HOSTS);
});
afterAll(async () => {
  for (const client of clients) client.close();
  await engine?.close();
});

const request: StreamedListObjectsRequest = { objectType: { resourceType: "host", reporterType: "hbi" }, relation: "view", subject: { resource: principal("alice") } };

function newClient(): KesselInventoryServiceClient {
  const client = ownConnection(engine);
  clients.push(client);
  return client;
}

/** A stream whose client never reads: the server soon blocks on HTTP/2 flow control. */
function stalled(client: KesselInventoryServiceClient): { stream: ClientReadableStream<unknown>; ended: Promise<ServiceError | null> } {
  const stream = client.streamedListObjects(request);
  stream.pause();
  const ended = new Promise<ServiceError | null>((resolve) => {
    stream.on("error", (error: ServiceError) => resolve(error));
    stream.on("end", () => resolve(null));
  });
  return { stream, ended };
}

const metric = (name: string) => engineMetric(engine, name);

/** Waits until the predicate holds, however long the machine takes (the suite's hang bound ends a test that never gets there). */
async function eventually(predicate: () => Promise<boolean>): Promise<boolean> {
  while (!(await predicate())) await new Promise((resolve) => setTimeout(resolve, 50));
  return true;
}

const inFlightStreams = () => metric('gatehouse_engine_grpc_in_flight{method="StreamedListObjects"}');

describe("stream limits", () => {
  it("bounds streams per connection and per engine and keeps unary calls answering", async () => {
    const a = newClient();
    // Three streams on one connection: the server admits two at a time (the third waits in the client).
    const onA = [stalled(a), stalled(a), stalled(a)];
    expect(await eventually(async () => (await inFlightStreams()) === 2)).toBe(true);
    const b = newClient();
    const onB = stalled(b);
    expect(await eventually(async () => (await inFlightStreams()) === 3)).toBe(true);
    // The engine-wide bound: a fourth open stream is refused at once.
    const refused = await listAll(newClient(), request).then(
      () => null,
      (error: ServiceError) => error,
    );
    expect(refused?.code).toBe(status.RESOURCE_EXHAUSTED);
    // Healthy callers are still answered while streams stall.
    const check = await call(newClient(), "check", { object: workspace("x"), relation: "view", subject: { resource: principal("alice") } });
    expect(check.allowed).toBe(Allowed.ALLOWED_FALSE);
    for (const s of [...onA, onB]) s.stream.cancel();
    expect(await eventually(async () => (await inFlightStreams()) === 0)).toBe(true);
    // And a client that reads gets everything once slots are free.
    expect(await listAll(newClient(), request)).toHaveLength(HOSTS);
  });
});
