// The SDK's calls carry the application's trace context (W3C traceparent) when the application
// traces: gRPC metadata of Check and the workspace lookup's HTTP headers. Nothing without it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Server, ServerCredentials, type Metadata } from "@grpc/grpc-js";
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { Allowed, KesselInventoryServiceService } from "@gatehouse/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceResolver } from "@gatehouse/client";
import { createGrpcTransport } from "../src/transport.js";

const TRACE = "5a1c2e3f4b5c6d7e8f90a1b2c3d4e5f6";
const SPAN = "1122334455667788";
const traced = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED });

const seenMetadata: Metadata[] = [];
const seenHeaders: http.IncomingHttpHeaders[] = [];
let grpcServer: Server;
let grpcPort: number;
let httpServer: http.Server;
let httpBase: string;

beforeAll(async () => {
  grpcServer = new Server();
  grpcServer.addService(KesselInventoryServiceService, {
    check: (call: { metadata: Metadata }, callback: (error: null, response: object) => void) => {
      seenMetadata.push(call.metadata);
      callback(null, { allowed: Allowed.ALLOWED_TRUE });
    },
  } as never);
  grpcPort = await new Promise<number>((resolve, reject) => grpcServer.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, port) => (e ? reject(e) : resolve(port))));
  httpServer = http.createServer((req, res) => {
    seenHeaders.push(req.headers);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ meta: { count: 1 }, data: [{ id: "ws-1", type: "default" }] }));
  });
  await new Promise<void>((r) => httpServer.listen(0, "127.0.0.1", r));
  httpBase = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  grpcServer.forceShutdown();
  await new Promise((r) => httpServer.close(r));
  propagation.disable();
  context.disable();
});

const checkRequest = {
  object: { resourceType: "host", resourceId: "h1", reporter: { type: "hbi" } },
  relation: "view",
  subject: { resource: { resourceType: "principal", resourceId: "redhat/a", reporter: { type: "rbac" } } },
};

describe("trace context on outgoing calls", () => {
  it("is absent while the application does not trace", async () => {
    const transport = createGrpcTransport({ target: `127.0.0.1:${grpcPort}`, insecure: true, timeoutMs: 5_000 });
    await transport.check(checkRequest);
    transport.close();
    await createWorkspaceResolver({ baseUrl: httpBase }).defaultWorkspaceId("o-untraced");
    expect(seenMetadata.at(-1)!.get("traceparent")).toEqual([]);
    expect(seenHeaders.at(-1)!["traceparent"]).toBeUndefined();
  });

  it("carries the active span's traceparent on Check and on the workspace lookup", async () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const transport = createGrpcTransport({ target: `127.0.0.1:${grpcPort}`, insecure: true, timeoutMs: 5_000 });
    await context.with(traced, async () => {
      await transport.check(checkRequest);
      await createWorkspaceResolver({ baseUrl: httpBase }).defaultWorkspaceId("o-traced");
    });
    transport.close();
    expect(seenMetadata.at(-1)!.get("traceparent")).toEqual([`00-${TRACE}-${SPAN}-01`]);
    expect(seenHeaders.at(-1)!["traceparent"]).toBe(`00-${TRACE}-${SPAN}-01`);
  });
});
