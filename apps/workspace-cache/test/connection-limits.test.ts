// Idle and excess connections are closed (bounded counts and generous deadlines, never timings).
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedByServer, H2_FLOODS, MALFORMED_FRAMINGS, openSocket, sendUntilClosed, statusLineOf, trickleUntilClosed } from "@gatehouse/telemetry/testing";
import { buildServer } from "@gatehouse/workspace-cache";

let port: number;
let stop: () => Promise<void>;
const maxConnections = 4;
const limits = { idleTimeoutMs: 300, headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, maxConnections };

beforeAll(async () => {
  const server = buildServer({
    port: 0,
    host: "127.0.0.1",
    source: { directory: { builtInWorkspaces: async () => null } },
    auth: { mode: "disabled" },
    http: limits,
  });
  port = (await server.start()).port;
  stop = server.stop;
});
afterAll(() => stop());

const open = (): Promise<Socket> => openSocket(port);

describe("HTTP connection limits", () => {
  it("closes idle, half-sent and kept-alive connections", async () => {
    const idle = await open();
    const partial = await open();
    partial.write("GET /livez HTTP/1.1\r\nHost: x\r\n");
    const kept = await open();
    kept.write("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await Promise.all([idle, partial, kept].map((s) => closedByServer(s)))).toEqual([true, true, true]);
  });

  it("at the cap, one source holding every slot with unfinished headers gives way to a client from another", async () => {
    const held = await Promise.all(Array.from({ length: maxConnections }, () => openSocket(port, "127.0.0.1", "127.0.0.2")));
    for (const socket of held) socket.write("GET /livez HTTP/1.1\r\nHost: x\r\n");
    try {
      expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);
      expect(await closedByServer(held[0]!)).toBe(true);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it.each(Object.entries(H2_FLOODS))("closes a connection sending a %s and serves others", async (_name, flood) => {
    expect(await sendUntilClosed(port, flood(20_000), "127.0.0.1", "127.0.0.2")).toBe(true);
    expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);
  });
});

describe("slow senders and malformed framing", () => {
  // Each waits for the server's close, with no deadline of its own; how often the server scans for
  // overdue requests (Node's default, 30 s, cut a trickle 30 s late) is pinned in the telemetry
  // package's server-limits test.
  it("cuts a client that trickles header lines at the headers timeout", async () => {
    expect(await trickleUntilClosed(port, "GET /api/rbac/v2/workspaces/?type=root HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n", 50)).toBe(true);
  });

  it("cuts a client that trickles its body at the request timeout", async () => {
    const head = "POST /api/rbac/v2/workspaces/ HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n";
    expect(await trickleUntilClosed(port, head, " ", 50)).toBe(true);
  });

  it.each(MALFORMED_FRAMINGS)("answers %s with 400 and closes", async (_name, framing) => {
    expect(await statusLineOf(port, "POST /api/rbac/v2/workspaces/ HTTP/1.1\r\nHost: x\r\n", framing)).toBe("HTTP/1.1 400 Bad Request");
  });
});
