// Idle and excess connections are closed (bounded counts and generous deadlines, never timings).
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "@gatehouse/workspace-cache";

let port: number;
let stop: () => Promise<void>;
const maxConnections = 4;

beforeAll(async () => {
  const server = buildServer({
    port: 0,
    host: "127.0.0.1",
    source: { directory: { builtInWorkspaces: async () => null } },
    auth: { mode: "disabled" },
    http: { idleTimeoutMs: 300, headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, maxConnections },
  });
  port = (await server.start()).port;
  stop = server.stop;
});
afterAll(() => stop());

const open = () =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", () => undefined);
    socket.once("error", reject);
  });

const closedWithin = (socket: Socket, withinMs: number) =>
  new Promise<boolean>((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), withinMs);
    socket.once("close", () => (clearTimeout(timer), resolve(true)));
    socket.resume();
  });

describe("HTTP connection limits", () => {
  it("closes idle, half-sent and kept-alive connections", async () => {
    const idle = await open();
    const partial = await open();
    partial.write("GET /livez HTTP/1.1\r\nHost: x\r\n");
    const kept = await open();
    kept.write("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await Promise.all([idle, partial, kept].map((s) => closedWithin(s, 10_000)))).toEqual([true, true, true]);
  });

  it("refuses connections beyond the cap", async () => {
    const held = await Promise.all(Array.from({ length: maxConnections }, () => open()));
    expect(await closedWithin(await open(), 5_000)).toBe(true);
    for (const socket of held) socket.destroy();
  });
});
