// Idle and excess connections are closed: each test waits for the server's close event, with no
// deadline of its own (the suite's hang bound ends a test whose server never closes).
import type { Socket } from "node:net";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_HTTP_LIMITS } from "@gatehouse/telemetry";
import { closedByServer, H2_FLOODS, MALFORMED_FRAMINGS, openSocket, sendUntilClosed, statusLineOf, trickleUntilClosed } from "@gatehouse/telemetry/testing";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const limits = { ...DEFAULT_HTTP_LIMITS, idleTimeoutMs: 300, headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, maxConnections: 5 };

beforeAll(async () => {
  app = await startApp({ http: limits }, { backend: "pglite" });
});
afterAll(() => app.stop());

const open = (): Promise<Socket> => openSocket(Number(new URL(app.baseUrl).port));

describe("HTTP connection limits", () => {
  it("closes a connection that never sends a request", async () => {
    const socket = await open();
    expect(await closedByServer(socket)).toBe(true);
  });

  it("closes a connection whose headers never finish", async () => {
    const socket = await open();
    socket.write(`GET ${V2}/workspaces/ HTTP/1.1\r\nHost: x\r\n`);
    expect(await closedByServer(socket)).toBe(true);
  });

  it("closes an idle keep-alive connection after a request", async () => {
    const socket = await open();
    socket.write(`GET /livez HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await closedByServer(socket)).toBe(true);
  });

  it("at the cap, one source holding every slot with unfinished headers gives way to a client from another", async () => {
    const port = Number(new URL(app.baseUrl).port);
    const held = await Promise.all(Array.from({ length: limits.maxConnections }, () => openSocket(port, "127.0.0.1", "127.0.0.2")));
    for (const socket of held) socket.write(`GET ${V2}/workspaces/ HTTP/1.1\r\nHost: x\r\n`);
    try {
      expect((await fetch(`${app.baseUrl}/livez`)).status).toBe(200);
      expect(await closedByServer(held[0]!)).toBe(true);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it.each(Object.entries(H2_FLOODS))("closes a connection sending a %s and serves others", async (_name, flood) => {
    expect(await sendUntilClosed(Number(new URL(app.baseUrl).port), flood(20_000), "127.0.0.1", "127.0.0.2")).toBe(true);
    expect((await fetch(`${app.baseUrl}/livez`)).status).toBe(200);
  });
});

describe("bytes after a complete request", () => {
  // The production limits: with the tiny ones above, a loaded machine can let the pipelined bytes'
  // headers timeout cut the connection while the DELETE is still being written, which is not what
  // this test is about. It waits for the status line itself, never for a timeout.
  let framed: TestApp;
  beforeAll(async () => {
    framed = await startApp({ http: DEFAULT_HTTP_LIMITS }, { backend: "pglite" });
  });
  afterAll(() => framed.stop());

  it("do not answer for the request in flight: a DELETE whose unframed body follows it gets its own 204, and a write never reads as refused", async () => {
    const as = { org: "framing-org", user: "framing-admin", admin: true };
    const created = await framed.request("POST", `${V2}/workspaces/`, { as, body: { name: "framing target" } });
    expect(created.status).toBe(201);
    const identity = encodeIdentityHeader({ orgId: as.org, userId: as.user, username: as.user, isOrgAdmin: true });
    const socket = await openSocket(Number(new URL(framed.baseUrl).port));
    // What Node's client sends for DELETE + end(body): no Content-Length, the body right after the head.
    socket.write(`DELETE ${V2}/workspaces/${created.body.id}/ HTTP/1.1\r\nHost: x\r\nx-rh-identity: ${identity}\r\n\r\n[]`);
    const statusLine = await firstLineFrom(socket);
    socket.destroy();
    expect(statusLine).toBe("HTTP/1.1 204 No Content");
    expect((await framed.request("GET", `${V2}/workspaces/${created.body.id}/`, { as })).status).toBe(404);
  });

  it("still answers garbage on an idle connection with 400", async () => {
    const socket = await openSocket(Number(new URL(framed.baseUrl).port));
    socket.write("[]\r\n\r\n");
    const statusLine = await firstLineFrom(socket);
    expect(await closedByServer(socket)).toBe(true);
    expect(statusLine).toBe("HTTP/1.1 400 Bad Request");
  });
});

/** The first line the server sends, once it has arrived whole (or what came before the socket closed). */
function firstLineFrom(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = "";
    const done = () => {
      socket.off("data", onData);
      resolve(received.split("\r\n")[0] ?? "");
    };
    const onData = (chunk: Buffer) => {
      received += chunk.toString("latin1");
      if (received.includes("\r\n")) done();
    };
    socket.on("data", onData);
    socket.once("close", done);
  });
}

describe("slow senders are cut within their configured bounds", () => {
  // Each waits for the server's close, with no deadline of its own; how often the server scans for
  // overdue requests (Node's default, 30 s, cut a trickle 30 s late) is pinned in the telemetry
  // package's server-limits test.
  const port = () => Number(new URL(app.baseUrl).port);
  it("cuts a client that trickles header lines at the headers timeout", async () => {
    expect(await trickleUntilClosed(port(), `GET ${V2}/workspaces/ HTTP/1.1\r\nHost: x\r\n`, "X-Slow: 1\r\n", 50)).toBe(true);
  });

  it("cuts a client that trickles its body at the request timeout", async () => {
    const head = `POST ${V2}/workspaces/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`;
    expect(await trickleUntilClosed(port(), head, " ", 50)).toBe(true);
  });
});

describe("malformed framing", () => {
  // Both were left hanging with no status line until the socket timed out.
  it.each(MALFORMED_FRAMINGS)("answers %s with 400 and closes", async (_name, framing) => {
    const identity = encodeIdentityHeader({ orgId: "framing-org", userId: "framing-admin", username: "framing-admin", isOrgAdmin: true });
    const head = `POST ${V2}/workspaces/ HTTP/1.1\r\nHost: x\r\nx-rh-identity: ${identity}\r\nContent-Type: application/json\r\n`;
    expect(await statusLineOf(Number(new URL(app.baseUrl).port), head, framing)).toBe("HTTP/1.1 400 Bad Request");
  });
});
