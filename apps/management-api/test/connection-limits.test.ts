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
  it("do not answer for the request in flight: a DELETE whose unframed body follows it gets its own 204, and a write never reads as refused", async () => {
    const as = { org: "framing-org", user: "framing-admin", admin: true };
    const created = await app.request("POST", `${V2}/workspaces/`, { as, body: { name: "framing target" } });
    expect(created.status).toBe(201);
    const identity = encodeIdentityHeader({ orgId: as.org, userId: as.user, username: as.user, isOrgAdmin: true });
    const socket = await open();
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    // What Node's client sends for DELETE + end(body): no Content-Length, the body right after the head.
    socket.write(`DELETE ${V2}/workspaces/${created.body.id}/ HTTP/1.1\r\nHost: x\r\nx-rh-identity: ${identity}\r\n\r\n[]`);
    expect(await closedByServer(socket)).toBe(true);
    const answer = Buffer.concat(received).toString("latin1");
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 204 No Content");
    expect((await app.request("GET", `${V2}/workspaces/${created.body.id}/`, { as })).status).toBe(404);
  });

  it("still answers garbage on an idle connection with 400", async () => {
    const socket = await open();
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.write("[]\r\n\r\n");
    expect(await closedByServer(socket)).toBe(true);
    expect(Buffer.concat(received).toString("latin1").split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
  });
});

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
