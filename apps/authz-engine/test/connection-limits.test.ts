// The engine's ports hold nothing for clients that do nothing: a connection cap, idle connections
// closed (never a byte, or an HTTP/2 session with no call), calls whose request never arrives
// ended, and the metrics port bounded like the HTTP services. Each waits on the close event, with
// no deadline of its own (the suite's hang bound ends a test whose server never closes); none of
// these closed at all before.
import { get } from "node:http";
import { connect as connectHttp2 } from "node:http2";
import { Metadata } from "@grpc/grpc-js";
import { Allowed } from "@gatehouse/proto";
import { closedByServer, MALFORMED_FRAMINGS, openSocket, statusLineOf, trickleUntilClosed } from "@gatehouse/telemetry/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, principal, startEngine, workspace, type RunningEngine } from "./helpers.js";

const connections = { max: 6, idleTimeoutMs: 400, requestTimeoutMs: 400 };
let engine: RunningEngine;

beforeAll(async () => {
  engine = await startEngine({ connections });
});
afterAll(async () => {
  await engine?.close();
});

/**
 * The refused-connection count, read on a connection of its own: the metrics port closes idle
 * keep-alive connections after 400 ms here, so a pooled one may be gone by the next read.
 */
function refusedCount(): Promise<number> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port: engine.metricsPort, path: "/metrics", agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        const line = text.split("\n").find((l) => l.startsWith("gatehouse_engine_grpc_connections_refused_total "));
        resolve(line ? Number(line.split(" ").pop()) : 0);
      });
    }).on("error", reject);
  });
}

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

  it("refuses connections beyond the cap and serves again once some close", async () => {
    // The extra connection is closed by the server, and for the cap (counted as refused), not by the
    // idle timeout. Only if the machine stalls past the idle timeout while the held connections are
    // opened can one of them close first and let the extra one in: the attempt is then repeated
    // (a bounded number of times; a server without the cap never counts a refusal).
    let refused = 0;
    for (let attempt = 0; attempt < 5 && refused === 0; attempt++) {
      const before = await refusedCount();
      const held = await Promise.all(Array.from({ length: connections.max }, () => openSocket(engine.port)));
      const extra = await openSocket(engine.port);
      expect(await closedByServer(extra)).toBe(true);
      refused = (await refusedCount()) - before;
      for (const socket of held) socket.destroy();
    }
    expect(refused).toBe(1);
    // The server frees the slots when it sees the held connections close, which may come after a
    // first connection attempt is refused: the call waits for the channel to connect (gRPC's
    // wait-for-ready) rather than failing on that attempt.
    const waitForReady = new Metadata();
    waitForReady.setOptions({ waitForReady: true });
    const answer = await call(engine.client, "check", { object: workspace("00000000-0000-0000-0000-000000000000"), relation: "view", subject: { resource: principal("alice") } }, waitForReady);
    expect(answer.allowed).toBe(Allowed.ALLOWED_FALSE);
  });
});

describe("metrics port", () => {
  it("closes a silent connection and cuts a client that trickles header lines", async () => {
    expect(await closedByServer(await openSocket(engine.metricsPort))).toBe(true);
    // The idle timeout is longer than the drip interval: only the headers timeout can cut it.
    expect(await trickleUntilClosed(engine.metricsPort, "GET /metrics HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n", 50)).toBe(true);
  });

  it.each(MALFORMED_FRAMINGS)("answers %s with 400 and closes", async (_name, framing) => {
    expect(await statusLineOf(engine.metricsPort, "GET /metrics HTTP/1.1\r\nHost: x\r\n", framing)).toBe("HTTP/1.1 400 Bad Request");
  });
});
