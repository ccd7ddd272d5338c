// A stream whose client stops reading is reset by the engine's idle timeout, through a real
// grpc-js client that never cancels it: the client sees the stream end with an error, the engine's
// stream handlers and open-stream count return to zero, and the memory the stalled streams held
// is released (heap and outside-heap memory back within 8 MiB of the baseline after GC). Bounds,
// not timings.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { status, type ServiceError } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceClient, type StreamedListObjectsRequest } from "@gatehouse/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, engineMetric, listAll, ownConnection, principal, seedViewableHosts, startEngine, workspace, type RunningEngine } from "./helpers.js";

// Enough per stream that an unread one blocks on HTTP/2 flow control with buffers filled at both ends.
const HOSTS = 30_000;
const STALLED = 12;
let engine: RunningEngine;
const clients: KesselInventoryServiceClient[] = [];

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

beforeAll(async () => {
  engine = await startEngine({ list: { defaultLimit: HOSTS, maxLimit: HOSTS }, streams: { idleTimeoutMs: 1000 } });
  await seedViewableHosts(engine, "idle-org", HOSTS);
}, 120_000);
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

const metric = (name: string) => engineMetric(engine, name);
const inFlight = () => metric('gatehouse_engine_grpc_in_flight{method="StreamedListObjects"}');
const resets = () => metric('gatehouse_engine_grpc_stalled_streams_total{grpc_type="server_stream",grpc_service="kessel.inventory.v1beta2.KesselInventoryService",grpc_method="StreamedListObjects"}');

async function until(predicate: () => Promise<boolean>): Promise<void> {
  while (!(await predicate())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Heap plus memory outside it (Buffers, HTTP/2 frames queued for a client), after a full collection. */
function retained(): number {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

describe("stream idle timeout", () => {
  it("resets streams a real client stops reading, and the engine returns to its baseline", { timeout: 90_000 }, async () => {
    // Warm up: the lookup the streams share is computed and cached before the baseline.
    expect(await listAll(newClient(), request)).toHaveLength(HOSTS);
    const baseline = retained();
    const resetsBefore = await resets();

    // All on one connection (their data then competes for one flow-control window), each paused:
    // reads nothing and never cancels.
    const client = newClient();
    const streams = Array.from({ length: STALLED }, () => {
      const stream = client.streamedListObjects(request);
      stream.pause();
      let items = 0;
      const ended = new Promise<{ error: ServiceError | null; items: number }>((resolve) => {
        stream.on("data", () => void items++);
        stream.on("error", (error: ServiceError) => resolve({ error, items }));
        stream.on("end", () => resolve({ error: null, items }));
      });
      return { stream, ended };
    });
    await until(async () => (await inFlight()) === STALLED);
    const held = retained() - baseline;

    // The engine gives up on them by itself: its stream handlers finish, each counted as reset.
    await until(async () => (await inFlight()) === 0);
    const reset = (await resets()) - resetsBefore;
    // A client that reads again gets what was already sent, then an error: never the whole list.
    // (A stream whose whole answer fitted in the HTTP/2 buffers before the window closed was not
    // stalled: it ends normally once read.)
    for (const { stream } of streams) stream.resume();
    const outcomes = await Promise.all(streams.map((s) => s.ended));
    const cancelled = outcomes.filter((o) => o.error !== null);
    for (const o of cancelled) expect([o.error?.code, o.items < HOSTS]).toEqual([status.CANCELLED, true]);
    for (const o of outcomes.filter((o) => o.error === null)) expect(o.items).toBe(HOSTS);
    expect(cancelled.length).toBe(reset);
    // How many answers fit the buffers before the window closes varies with the machine's speed;
    // at least one stream always stalls at this size.
    expect(reset).toBeGreaterThanOrEqual(1);

    // What the stalled streams held is released: back within a small margin of the baseline.
    client.close();
    const after = retained() - baseline;
    console.log(`${reset} of ${STALLED} stalled streams reset; heap+external vs baseline: ${(held / 2 ** 20).toFixed(1)} MiB while stalled, ${(after / 2 ** 20).toFixed(1)} MiB after the resets`);
    expect(after).toBeLessThan(8 * 2 ** 20);

    // And the engine still serves: a Check and a full stream.
    expect((await call(newClient(), "check", { object: workspace("x"), relation: "view", subject: { resource: principal("alice") } })).allowed).toBe(Allowed.ALLOWED_FALSE);
    expect(await listAll(newClient(), request)).toHaveLength(HOSTS);
  });
});
