// Half-sent requests and HTTP/2 floods hold nothing on the engine's ports: a header block that never
// ends, a TLS handshake that never finishes, CONTINUATION, rapid reset, SETTINGS and PING floods, and an answer left untaken (a zero
// flow-control window) each end their connection or stream, and at the connection cap one source
// holding every slot gives way to a client from elsewhere. Each test waits on the server's close
// (no deadline of its own; the suite's hang bound ends a server that never closes) and bounds the
// attack by a count of frames or connections. Before, a header block that never ended held its
// connection forever, and 10,000 of them locked every other client out.
import { readFileSync } from "node:fs";
import { connect as connectHttp2, constants } from "node:http2";
import { join } from "node:path";
import type { Socket } from "node:net";
import { Allowed, KesselInventoryServiceService } from "@gatehouse/proto";
import { closedByServer, H2_FLOODS, H2_PREFACE, h2Frame, headersOnlyRequest, openSocket, requestHeaderBlock, sendUntilClosed, statusLineOf, unfinishedHeaderBlock } from "@gatehouse/telemetry/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, engineMetric, principal, startEngine, workspace, type RunningEngine } from "./helpers.js";

const ATTACKER = "127.0.0.2";
const nobody = { object: workspace("00000000-0000-0000-0000-000000000000"), relation: "view", subject: { resource: principal("alice") } };
const closed = (engine: RunningEngine, reason: string) => engineMetric(engine, `gatehouse_engine_grpc_connections_closed_total{reason="${reason}"}`);

/** Frames of a byte stream: type, flags, stream id (enough to see a stream's end). */
function framesOf(bytes: Buffer): { type: number; flags: number; stream: number }[] {
  const frames = [];
  for (let at = 0; at + 9 <= bytes.length; ) {
    const length = bytes.readUIntBE(at, 3);
    frames.push({ type: bytes[at + 3]!, flags: bytes[at + 4]!, stream: bytes.readUInt32BE(at + 5) & 0x7fffffff });
    at += 9 + length;
  }
  return frames;
}

describe("deadlines on the gRPC port", () => {
  // The idle timeout is far away: only the headers deadline can close these connections.
  let engine: RunningEngine;
  beforeAll(async () => {
    engine = await startEngine({ connections: { max: 100, idleTimeoutMs: 600_000, headersTimeoutMs: 300, requestTimeoutMs: 300 } });
  });
  afterAll(() => engine?.close());

  it("closes a connection whose first header block never ends", async () => {
    const before = await closed(engine, "headers_timeout");
    expect(await sendUntilClosed(engine.port, unfinishedHeaderBlock("/kessel.inventory.v1beta2.KesselInventoryService/Check"))).toBe(true);
    expect(await closed(engine, "headers_timeout")).toBeGreaterThan(before);
  });

  it("closes a connection that sends nothing after the TCP handshake (no preface)", async () => {
    expect(await closedByServer(await openSocket(engine.port))).toBe(true);
  });

  it("closes a connection whose header block never ends after a call it completed", async () => {
    const socket = await openSocket(engine.port);
    let received = Buffer.alloc(0);
    const answered = new Promise<void>((resolve) => {
      socket.on("data", (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (framesOf(received).some((f) => f.stream === 1 && f.type === 1 && (f.flags & 0x1) !== 0)) resolve();
      });
    });
    const closedNow = closedByServer(socket);
    socket.write(Buffer.concat([H2_PREFACE, h2Frame(4, 0, 0), headersOnlyRequest(1, "/kessel.inventory.v1beta2.KesselInventoryService/Check")]));
    await answered;
    socket.write(h2Frame(1, 0, 3, Buffer.from([0x83, 0x86])));
    expect(await closedNow).toBe(true);
    socket.destroy();
  });

  it("resets a call whose client never opens its flow-control window for the answer", async () => {
    const session = connectHttp2(`http://127.0.0.1:${engine.port}`, { settings: { initialWindowSize: 0 } });
    session.on("error", () => undefined);
    const stream = session.request({ ":method": "POST", ":path": "/kessel.inventory.v1beta2.KesselInventoryService/Check", "content-type": "application/grpc", te: "trailers" });
    stream.on("error", () => undefined);
    const message = (KesselInventoryServiceService.check.requestSerialize as (value: unknown) => Buffer)(nobody);
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    stream.end(frame);
    let headers: Record<string, unknown> | undefined;
    stream.on("response", (h) => (headers = h));
    await new Promise((resolve) => stream.once("close", resolve));
    // The answer's headers came (they are not flow-controlled); its message never could.
    expect(headers?.[":status"]).toBe(200);
    expect(stream.rstCode).toBe(constants.NGHTTP2_CANCEL);
    session.destroy();
  });
});

describe("deadlines on the gRPC port with TLS", () => {
  const tlsDir = inject("tlsDir");
  let engine: RunningEngine;
  beforeAll(async () => {
    engine = await startEngine({
      tls: { cert: readFileSync(join(tlsDir, "server.pem"), "utf8"), key: readFileSync(join(tlsDir, "server-key.pem"), "utf8") },
      connections: { max: 100, idleTimeoutMs: 600_000, headersTimeoutMs: 300, requestTimeoutMs: 300 },
    });
  });
  afterAll(() => engine?.close());

  it("closes a connection whose TLS handshake never finishes", async () => {
    // The start of a ClientHello record, and nothing more.
    expect(await sendUntilClosed(engine.port, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]))).toBe(true);
  });
});

describe("floods and a full connection table", () => {
  // Deadlines far away: only the flood bounds and the table's fairness can close these.
  const max = 8;
  let engine: RunningEngine;
  beforeAll(async () => {
    engine = await startEngine({ connections: { max, idleTimeoutMs: 600_000, headersTimeoutMs: 600_000, requestTimeoutMs: 600_000 } });
  });
  afterAll(() => engine?.close());

  it.each(Object.entries(H2_FLOODS))("closes a connection sending a %s and serves others", async (_name, flood) => {
    expect(await sendUntilClosed(engine.port, flood(20_000), "127.0.0.1", ATTACKER)).toBe(true);
    expect((await call(engine.client, "check", nobody)).allowed).toBe(Allowed.ALLOWED_FALSE);
  });

  it("serves a client from another source while one source holds every slot with unfinished header blocks", async () => {
    const evictedBefore = await closed(engine, "evicted");
    const refusedBefore = await engineMetric(engine, "gatehouse_engine_grpc_connections_refused_total");
    const held: Socket[] = [];
    let attackerClosed = 0;
    const hold = async () => {
      const socket = await openSocket(engine.port, "127.0.0.1", ATTACKER);
      socket.on("close", () => attackerClosed++);
      socket.write(unfinishedHeaderBlock());
      held.push(socket);
    };
    try {
      for (let i = 0; i < max; i++) await hold();
      // The table is full of the attacker's connections; the client's gets in, one of theirs gives way.
      for (let round = 0; round < 3; round++) {
        expect((await call(engine.client, "check", nobody)).allowed).toBe(Allowed.ALLOWED_FALSE);
        // More from the attacker only displace its own connections, never the client's.
        for (let i = 0; i < 5; i++) await hold();
      }
      expect((await call(engine.client, "check", nobody)).allowed).toBe(Allowed.ALLOWED_FALSE);
      const evicted = (await closed(engine, "evicted")) - evictedBefore;
      // One for the client's connection, one per later attacker connection; none of them the client's.
      expect(evicted).toBe(1 + 15);
      await Promise.all(held.slice(0, evicted).map((s) => closedByServer(s)));
      expect(attackerClosed).toBeGreaterThanOrEqual(evicted);
      expect(await engineMetric(engine, "gatehouse_engine_grpc_connections_refused_total")).toBe(refusedBefore);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
  it("refuses a newcomer from a source whose every connection has a call in progress, and still lets another source in", async () => {
    const refusedBefore = await engineMetric(engine, "gatehouse_engine_grpc_connections_refused_total");
    const held: Socket[] = [];
    try {
      // Each holds a call whose request never ends (a busy connection, not an idle one). The PING
      // after it is answered only once the engine has read the header block, so the call is open.
      // Whatever else holds slots, within max + 1 of them one is refused.
      let refusedOne = false;
      for (let i = 0; i <= max && !refusedOne; i++) {
        const socket = await openSocket(engine.port, "127.0.0.1", ATTACKER);
        socket.on("error", () => undefined);
        held.push(socket);
        let received = Buffer.alloc(0);
        const pinged = new Promise<boolean>((resolve) => {
          socket.on("data", (chunk: Buffer) => {
            received = Buffer.concat([received, chunk]);
            if (framesOf(received).some((f) => f.type === 6 && (f.flags & 0x1) !== 0)) resolve(false);
          });
          socket.once("close", () => resolve(true));
        });
        const check = requestHeaderBlock("/kessel.inventory.v1beta2.KesselInventoryService/Check");
        socket.write(Buffer.concat([H2_PREFACE, h2Frame(4, 0, 0), h2Frame(1, 0x4, 1, check), h2Frame(6, 0, 0, Buffer.alloc(8))]));
        refusedOne = await pinged;
      }
      expect(refusedOne).toBe(true);
      expect(await engineMetric(engine, "gatehouse_engine_grpc_connections_refused_total")).toBeGreaterThan(refusedBefore);
      expect((await call(engine.client, "check", nobody)).allowed).toBe(Allowed.ALLOWED_FALSE);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});

describe("the HTTP port (/metrics and the HTTP/JSON API)", () => {
  let engine: RunningEngine;
  beforeAll(async () => {
    engine = await startEngine({ connections: { max: 8, idleTimeoutMs: 600_000, headersTimeoutMs: 600_000, requestTimeoutMs: 600_000 } });
  });
  afterAll(() => engine?.close());

  it.each(Object.entries(H2_FLOODS))("closes a connection sending a %s and serves others", async (_name, flood) => {
    expect(await sendUntilClosed(engine.metricsPort, flood(20_000), "127.0.0.1", ATTACKER)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${engine.metricsPort}/livez`)).status).toBe(200);
  });

  it("answers an HTTP/2 preface with 400 and closes", async () => {
    expect(await statusLineOf(engine.metricsPort, "", H2_PREFACE.toString("latin1"))).toBe("HTTP/1.1 400 Bad Request");
  });

  it("serves a client from another source while one source holds every slot with unfinished headers", async () => {
    const held = await Promise.all(Array.from({ length: 8 }, () => openSocket(engine.metricsPort, "127.0.0.1", ATTACKER)));
    for (const socket of held) socket.write("GET /metrics HTTP/1.1\r\nHost: x\r\n");
    try {
      const answer = await fetch(`http://127.0.0.1:${engine.metricsPort}/livez`);
      expect(answer.status).toBe(200);
      expect(await closedByServer(held[0]!)).toBe(true);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});
