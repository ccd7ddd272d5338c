// HTTP/2 flow control on the gRPC port. A proxy (HAProxy, the ingress) multiplexes many clients'
// calls over a few long-lived connections to the engine, so any receive window the engine fails
// to give back adds up on one connection until requests stop mid-body; Node's HTTP/2 returns a
// connection's window only as its streams' data is read. The engine widens each connection's
// window to the largest allowed (grpc/listener.ts): the first tests see it from a client, the last
// send many large CheckBulk calls through a real HAProxy on one client connection.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type ClientHttp2Session, connect, constants } from "node:http2";
import { createServer, connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KesselInventoryServiceService } from "@gatehouse/proto";
import { openStore, type Store } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECTION_WINDOW_BYTES } from "../src/grpc/listener.js";
import { hostIn, readGrant, startEngine, type RunningEngine } from "./helpers.js";

const HAPROXY = "/usr/sbin/haproxy";
const haproxyInstalled = (() => {
  try {
    execFileSync(HAPROXY, ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (process.env["CI"] === "true" && !haproxyInstalled) throw new Error("haproxy is required under CI (.ci/run installs it)");

/** Calls in all, two at a time on one client connection: the stall came after about 300. */
const CALLS = 800;
const ITEMS = 1000;

function item(id: string) {
  return {
    object: { resourceType: "host", resourceId: id, reporter: { type: "hbi" } },
    relation: "view",
    subject: { resource: { resourceType: "principal", resourceId: "redhat/alice", reporter: { type: "rbac" } } },
  };
}

function frame(message: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** One CheckBulk call: its grpc-status (undefined when the stream ended without one). */
function checkBulk(session: ClientHttp2Session, body: Buffer): Promise<string | undefined> {
  return new Promise((resolve) => {
    const stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: "POST",
      [constants.HTTP2_HEADER_PATH]: KesselInventoryServiceService.checkBulk.path,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc",
      te: "trailers",
    });
    let grpcStatus: string | undefined;
    stream.on("response", (h) => (grpcStatus ??= h["grpc-status"] as string | undefined));
    stream.on("trailers", (t) => (grpcStatus = t["grpc-status"] as string));
    stream.on("data", () => undefined);
    stream.on("error", () => undefined);
    stream.on("close", () => resolve(grpcStatus));
    stream.end(body);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once `port` accepts a connection, rejects if HAProxy exits first. */
async function accepting(port: number, proxy: ChildProcess): Promise<void> {
  let exited = false;
  proxy.once("exit", () => (exited = true));
  for (;;) {
    if (exited) throw new Error("haproxy exited");
    const ok = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

let store: Store;
const engines: RunningEngine[] = [];
const proxies: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), "gatehouse-flow-control-"));

beforeAll(async () => {
  store = await openStore({ pollIntervalMs: 50 });
  const tenant = (await store.tenants.bootstrap("org-flow")).value;
  await store.relationships.write("org-flow", { touch: [...readGrant(tenant.defaultWorkspaceId, "alice"), hostIn("h-1", tenant.defaultWorkspaceId)] });
});
afterAll(async () => {
  for (const proxy of proxies) proxy.kill();
  for (const engine of engines) await engine.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An HAProxy in front of `enginePort` as the ingress has it (h2 to the server); its port. */
async function haproxyTo(enginePort: number, name: string): Promise<number> {
  const port = await freePort();
  const config = join(dir, `${name}.cfg`);
  // A stalled call fails (no status) after the server timeout instead of hanging the test.
  writeFileSync(
    config,
    [
      "defaults",
      "  mode http",
      "  timeout connect 2s",
      "  timeout client 120s",
      "  timeout server 60s",
      "  timeout http-request 10s",
      "frontend public",
      `  bind 127.0.0.1:${port}`,
      "  default_backend engine",
      "backend engine",
      `  server e1 127.0.0.1:${enginePort} proto h2`,
      "",
    ].join("\n"),
  );
  const proxy = spawn(HAPROXY, ["-db", "-q", "-f", config], { stdio: "ignore" });
  proxies.push(proxy);
  await accepting(port, proxy);
  return port;
}

describe("the gRPC connection's receive window", () => {
  for (const directChecks of [true, false]) {
    it(`is widened to the largest allowed as the connection opens (${directChecks ? "served directly" : "by grpc-js"})`, async () => {
      const engine = await startEngine({ directChecks }, store);
      engines.push(engine);
      const session = connect(`http://127.0.0.1:${engine.port}`);
      await new Promise<void>((resolve) => session.once("remoteSettings", () => resolve()));
      // The engine's WINDOW_UPDATE is sent as its session opens, so before the answer to a ping.
      await new Promise<void>((resolve, reject) => session.ping((error) => (error ? reject(error) : resolve())));
      const window = session.state.remoteWindowSize;
      session.close();
      expect(window).toBe(CONNECTION_WINDOW_BYTES);
    });
  }
});

describe.skipIf(!haproxyInstalled)("flow control through HAProxy", () => {
  for (const directChecks of [true, false]) {
    it(`answers ${CALLS} large CheckBulk calls on one multiplexed connection (${directChecks ? "served directly" : "by grpc-js"})`, async () => {
      const engine = await startEngine({ directChecks }, store);
      engines.push(engine);
      const port = await haproxyTo(engine.port, directChecks ? "direct" : "grpc-js");
      const session = connect(`http://127.0.0.1:${port}`);
      // The client's own window wide as well: this measures the engine's side only.
      session.on("connect", () => session.setLocalWindowSize(2 ** 31 - 1));
      const serialize = KesselInventoryServiceService.checkBulk.requestSerialize as (value: unknown) => Buffer;
      const body = frame(serialize({ items: Array.from({ length: ITEMS }, (_, i) => item(`host-${String(i).padStart(8, "0")}-abcdef`)) }));
      const statuses = new Map<string, number>();
      let sent = 0;
      const worker = async () => {
        while (sent < CALLS) {
          sent++;
          const code = String(await checkBulk(session, body));
          statuses.set(code, (statuses.get(code) ?? 0) + 1);
        }
      };
      await Promise.all([worker(), worker()]);
      session.close();
      expect(Object.fromEntries(statuses)).toEqual({ "0": CALLS });
    }, 600_000);
  }
});
