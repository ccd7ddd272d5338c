// A stream whose client stops reading is reset by the engine's idle timeout. The stalled client is
// a plain HTTP/2 client speaking gRPC's framing that never reads and never cancels (a paused grpc-js
// client may still drain the socket into its own buffers, so it stalls the server only on a slow
// machine): each stream is reset with CANCEL, the engine's stream handlers and open-stream count
// return to zero, and the memory the stalled streams held is released (heap and outside-heap memory
// back within 8 MiB of the baseline after GC). Bounds, not timings.
import { connect, type ClientHttp2Session } from "node:http2";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Allowed, type KesselInventoryServiceClient, StreamedListObjectsRequest } from "@gatehouse/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, engineMetric, listAll, ownConnection, principal, seedViewableHosts, startEngine, workspace, type RunningEngine } from "./helpers.js";

// Enough per stream that an unread one blocks on HTTP/2 flow control (the client's window is 1 KiB).
const HOSTS = 30_000;
const STALLED = 12;
let engine: RunningEngine;
const clients: KesselInventoryServiceClient[] = [];

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

// The idle timeout also applies to the healthy listings around the stalled streams: under heavy load a
// process can go a second without reading its socket (a 1 s timeout reset the warm-up listing under
// stress), never ten. The test waits on the resets (events), so a longer timeout costs only its length.
const IDLE_TIMEOUT_MS = 10_000;

beforeAll(async () => {
  engine = await startEngine({ list: { defaultLimit: HOSTS, maxLimit: HOSTS }, streams: { idleTimeoutMs: IDLE_TIMEOUT_MS } });
  await seedViewableHosts(engine, "idle-org", HOSTS);
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

/** Opens StreamedListObjects on a raw HTTP/2 session and never reads: resolves with the stream's close code. */
function stalledStream(session: ClientHttp2Session): Promise<number> {
  const stream = session.request({ ":method": "POST", ":path": "/kessel.inventory.v1beta2.KesselInventoryService/StreamedListObjects", "content-type": "application/grpc", te: "trailers" });
  stream.pause();
  const message = StreamedListObjectsRequest.encode(request).finish();
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  stream.end(frame);
  return new Promise((resolve) => stream.on("close", () => resolve(stream.rstCode ?? 0)));
}

const NGHTTP2_CANCEL = 8;

describe("stream idle timeout", () => {
  it("resets streams a client stops reading, and the engine returns to its baseline", async () => {
    // Warm up: the lookup the streams share is computed and cached before the baseline.
    expect(await listAll(newClient(), request)).toHaveLength(HOSTS);
    const baseline = retained();
    const resetsBefore = await resets();

    // All on one connection with a 1 KiB window, each stream paused: reads nothing, never cancels.
    const session = connect(`http://127.0.0.1:${engine.port}`, { settings: { initialWindowSize: 1024 } });
    const closed = Array.from({ length: STALLED }, () => stalledStream(session));
    await until(async () => (await inFlight()) === STALLED);
    const held = retained() - baseline;

    // The engine gives up on every one by itself: its handlers finish, each counted as reset, and
    // the client sees each stream reset with CANCEL.
    await until(async () => (await inFlight()) === 0);
    expect(await Promise.all(closed)).toEqual(Array(STALLED).fill(NGHTTP2_CANCEL));
    expect((await resets()) - resetsBefore).toBe(STALLED);

    // What the stalled streams held is released: back within a small margin of the baseline.
    session.close();
    const after = retained() - baseline;
    console.log(`${STALLED} stalled streams reset; heap+external vs baseline: ${(held / 2 ** 20).toFixed(1)} MiB while stalled, ${(after / 2 ** 20).toFixed(1)} MiB after the resets`);
    expect(after).toBeLessThan(8 * 2 ** 20);

    // And the engine still serves: a Check and a full stream.
    expect((await call(newClient(), "check", { object: workspace("x"), relation: "view", subject: { resource: principal("alice") } })).allowed).toBe(Allowed.ALLOWED_FALSE);
    expect(await listAll(newClient(), request)).toHaveLength(HOSTS);
  });
});
