// The engine's ports hold nothing for clients that do nothing: idle connections closed (never a byte, or an HTTP/2 session with no call), calls whose request never arrives
// ended, and the metrics port bounded like the HTTP services. Each waits on the close event, with
// no deadline of its own (the suite's hang bound ends a test whose server never closes); none of
// these closed at all before.
import { connect as connectHttp2 } from "node:http2";
import { closedByServer, MALFORMED_FRAMINGS, openSocket, statusLineOf, trickleUntilClosed } from "@gatehouse/telemetry/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngine, type RunningEngine } from "./helpers.js";

const connections = { max: 6, idleTimeoutMs: 400, requestTimeoutMs: 400 };
let engine: RunningEngine;

beforeAll(async () => {
  engine = await startEngine({ connections });
});
afterAll(async () => {
  await engine?.close();
});

describe("gRPC port", () => {
  it("closes a connection that never sends a byte", async () => {
    const socket = await openSocket(engine.port);
    expect(await closedByServer(socket)).toBe(true);
  });

  it("closes an HTTP/2 connection that opens no call", async () => {
    const session = connectHttp2(`http://127.0.0.1:${engine.port}`);
    session.on("error", () => undefined);
    const closed = await new Promise<boolean>((resolve) => session.once("close", () => resolve(true)));
    session.destroy();
    expect(closed).toBe(true);
  });

  it("ends a call whose request never arrives, then closes its connection", async () => {
    const session = connectHttp2(`http://127.0.0.1:${engine.port}`);
    session.on("error", () => undefined);
    const sessionClosed = new Promise<void>((resolve) => session.once("close", resolve));
    const stream = session.request({ ":method": "POST", ":path": "/kessel.inventory.v1beta2.KesselInventoryService/Check", "content-type": "application/grpc", te: "trailers" }, { endStream: false });
    stream.on("error", () => undefined);
    let grpcStatus: string | undefined;
    stream.on("trailers", (trailers) => (grpcStatus = String(trailers["grpc-status"])));
    stream.on("response", (headers) => (grpcStatus ??= headers["grpc-status"] === undefined ? undefined : String(headers["grpc-status"])));
    stream.resume();
    const ended = await new Promise<boolean>((resolve) => stream.once("close", () => resolve(true)));
    expect(ended).toBe(true);
    expect(grpcStatus).toBe("4"); // DEADLINE_EXCEEDED
    await sessionClosed;
    session.destroy();
  });
  // The cap: test/h2-abuse.test.ts (who gives way at a full table).
});

describe("metrics port", () => {
  it("closes a silent connection and cuts a client that trickles header lines", async () => {
    expect(await closedByServer(await openSocket(engine.metricsPort))).toBe(true);
    // The idle timeout is longer than the drip interval: only the headers timeout can cut it.
    expect(await trickleUntilClosed(engine.metricsPort, "GET /metrics HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n", 50)).toBe(true);
  });

  it("cuts a client that trickles the body of an HTTP/JSON call at the request timeout", async () => {
    const head = "POST /api/kessel/v1beta2/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n";
    expect(await trickleUntilClosed(engine.metricsPort, head, " ", 50)).toBe(true);
  });

  it.each(MALFORMED_FRAMINGS)("answers %s with 400 and closes", async (_name, framing) => {
    expect(await statusLineOf(engine.metricsPort, "GET /metrics HTTP/1.1\r\nHost: x\r\n", framing)).toBe("HTTP/1.1 400 Bad Request");
  });
});
