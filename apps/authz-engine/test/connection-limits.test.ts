// The engine's ports hold nothing for clients that do nothing: a connection cap, idle connections
// closed (never a byte, or an HTTP/2 session with no call), calls whose request never arrives
// ended, and the metrics port bounded like the HTTP services. Each waits on the close event, with
// a generous bound counted in configured periods; none of these closed at all before.
import { connect as connectHttp2 } from "node:http2";
import { Allowed } from "@gatehouse/proto";
import { closedWithin, MALFORMED_FRAMINGS, openSocket, statusLineOf, trickleClosedWithin } from "@gatehouse/telemetry/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, principal, startEngine, workspace, type RunningEngine } from "./helpers.js";

const connections = { max: 6, idleTimeoutMs: 400, requestTimeoutMs: 400 };
const BOUND = 20;
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
    expect(await closedWithin(socket, BOUND * connections.idleTimeoutMs)).toBe(true);
  });

  it("closes an HTTP/2 connection that opens no call", async () => {
    const session = connectHttp2(`http://127.0.0.1:${engine.port}`);
    session.on("error", () => undefined);
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), BOUND * connections.idleTimeoutMs);
      session.once("close", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
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
    const ended = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), BOUND * connections.requestTimeoutMs);
      stream.once("close", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    expect(ended).toBe(true);
    expect(grpcStatus).toBe("4"); // DEADLINE_EXCEEDED
    const closed = await Promise.race([sessionClosed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), BOUND * connections.idleTimeoutMs))]);
    session.destroy();
    expect(closed).toBe(true);
  });

  it("refuses connections beyond the cap and serves again once some close", async () => {
    const held = await Promise.all(Array.from({ length: connections.max }, () => openSocket(engine.port)));
    const extra = await openSocket(engine.port);
    // Refused at once: well before the idle timeout could have closed it.
    expect(await closedWithin(extra, connections.idleTimeoutMs / 2)).toBe(true);
    for (const socket of held) socket.destroy();
    const answer = await call(engine.client, "check", { object: workspace("00000000-0000-0000-0000-000000000000"), relation: "view", subject: { resource: principal("alice") } });
    expect(answer.allowed).toBe(Allowed.ALLOWED_FALSE);
  });
});

describe("metrics port", () => {
  it("closes a silent connection and cuts a client that trickles header lines", async () => {
    expect(await closedWithin(await openSocket(engine.metricsPort), BOUND * connections.idleTimeoutMs)).toBe(true);
    // The idle timeout is longer than the drip interval: only the headers timeout can cut it.
    expect(await trickleClosedWithin(engine.metricsPort, "GET /metrics HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n", 50, 20_000 + BOUND * 1000)).toBe(true);
  });

  it.each(MALFORMED_FRAMINGS)("answers %s with 400 and closes", async (_name, framing) => {
    expect(await statusLineOf(engine.metricsPort, "GET /metrics HTTP/1.1\r\nHost: x\r\n", framing, BOUND * connections.idleTimeoutMs)).toBe("HTTP/1.1 400 Bad Request");
  });
});
