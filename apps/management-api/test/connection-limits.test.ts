// Idle and excess connections are closed (bounded counts and generous deadlines, never timings).
import { connect, type Socket } from "node:net";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_HTTP_LIMITS } from "@gatehouse/telemetry";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const limits = { ...DEFAULT_HTTP_LIMITS, idleTimeoutMs: 300, headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, maxConnections: 5 };

beforeAll(async () => {
  app = await startApp({ http: limits }, { backend: "pglite" });
});
afterAll(() => app.stop());

function open(): Promise<Socket> {
  const url = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
    socket.on("error", () => undefined);
    socket.once("error", reject);
  });
}

/** Resolves true once the server closes the socket, false if it is still open after `withinMs`. */
function closedWithin(socket: Socket, withinMs: number): Promise<boolean> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), withinMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.resume();
  });
}

describe("HTTP connection limits", () => {
  it("closes a connection that never sends a request", async () => {
    const socket = await open();
    expect(await closedWithin(socket, 10_000)).toBe(true);
  });

  it("closes a connection whose headers never finish", async () => {
    const socket = await open();
    socket.write(`GET ${V2}/workspaces/ HTTP/1.1\r\nHost: x\r\n`);
    expect(await closedWithin(socket, 10_000)).toBe(true);
  });

  it("closes an idle keep-alive connection after a request", async () => {
    const socket = await open();
    socket.write(`GET /livez HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await closedWithin(socket, 10_000)).toBe(true);
  });

  it("refuses connections beyond the cap and serves again once some close", async () => {
    const held = await Promise.all(Array.from({ length: limits.maxConnections }, () => open()));
    const extra = await open();
    expect(await closedWithin(extra, 5_000)).toBe(true);
    for (const socket of held) socket.destroy();
    // Once the held sockets are gone, a normal request is served.
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = await fetch(`${app.baseUrl}/livez`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(200);
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
    expect(await closedWithin(socket, 10_000)).toBe(true);
    const answer = Buffer.concat(received).toString("latin1");
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 204 No Content");
    expect((await app.request("GET", `${V2}/workspaces/${created.body.id}/`, { as })).status).toBe(404);
  });

  it("still answers garbage on an idle connection with 400", async () => {
    const socket = await open();
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.write("[]\r\n\r\n");
    expect(await closedWithin(socket, 10_000)).toBe(true);
    expect(Buffer.concat(received).toString("latin1").split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
  });
});
