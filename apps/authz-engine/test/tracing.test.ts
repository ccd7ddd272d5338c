// OpenTelemetry over real gRPC: traceparent in (metadata) and out (response headers), the server
// span and the evaluator span exported to a local OTLP receiver, and log lines with the trace id.
import { Metadata, type ClientUnaryCall } from "@grpc/grpc-js";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { createLogger, startTracing, type Tracing } from "@gatehouse/telemetry";
import { capturedLogLines, startOtlpReceiver, type OtlpReceiver } from "@gatehouse/telemetry/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principal, startEngine, workspace, type RunningEngine } from "./helpers.js";

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";
const CHECK = "kessel.inventory.v1beta2.KesselInventoryService/Check";

let engine: RunningEngine;
let receiver: OtlpReceiver;
const { destination, lines } = capturedLogLines();
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  engine = await startEngine({ logger: createLogger({ name: "authz-engine", level: "debug", destination }) });
});
afterAll(async () => {
  await engine?.close();
  await receiver?.close();
});

/** Sends a Check (resourceType "" makes it fail validation) and resolves with the response headers. */
function checkHeaders(traceparent: string | null, resourceType = "workspace"): Promise<Metadata> {
  const metadata = new Metadata();
  if (traceparent) metadata.set("traceparent", traceparent);
  return new Promise((resolve, reject) => {
    const call: ClientUnaryCall = engine.client.check({ object: { ...workspace("ws-1"), resourceType }, relation: "view", subject: { resource: principal("alice") } }, metadata, () => undefined);
    call.once("metadata", resolve);
    call.once("status", () => setTimeout(() => reject(new Error("no response headers")), 50));
  });
}

describe("tracing off", () => {
  it("sends no traceparent back and exports nothing", async () => {
    const headers = await checkHeaders(`00-${CALLER_TRACE}-${CALLER_SPAN}-01`);
    expect(headers.get("traceparent")).toEqual([]);
    expect(headers.get("x-request-id")).toHaveLength(1);
    expect(receiver.requests).toBe(0);
  });
});

describe("tracing on", () => {
  let tracing: Tracing;
  beforeAll(() => {
    tracing = startTracing("authz-engine", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
  });
  afterAll(async () => {
    await tracing.shutdown();
  });

  it("continues the caller's trace in a server span with an evaluator child, and answers with its traceparent", async () => {
    const headers = await checkHeaders(`00-${CALLER_TRACE}-${CALLER_SPAN}-01`);
    const [, traceId, serverSpanId] = String(headers.get("traceparent")[0]).split("-");
    expect(traceId).toBe(CALLER_TRACE);
    expect(serverSpanId).not.toBe(CALLER_SPAN);

    const failed = await checkHeaders(`00-${CALLER_TRACE}-${CALLER_SPAN}-01`, "");
    const failedSpanId = String(failed.get("traceparent")[0]).split("-")[2];
    // The rejection's debug line carries the call's trace and span ids.
    expect(lines.find((l) => l["msg"] === "call rejected")).toMatchObject({ trace_id: CALLER_TRACE, span_id: failedSpanId });

    await tracing.shutdown();
    const server = receiver.spans.find((s) => s.spanId === serverSpanId);
    expect(server).toMatchObject({ serviceName: "authz-engine", name: CHECK, kind: 2, traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN, statusCode: 0 });
    expect(server?.attributes).toMatchObject({ "rpc.system": "grpc", "rpc.method": "Check", "rpc.grpc.status_code": 0 });
    expect(receiver.spans.find((s) => s.name === "evaluator.check")).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: serverSpanId, kind: 1 });
    // INVALID_ARGUMENT is the caller's fault: recorded, not marked as a server error.
    expect(receiver.spans.find((s) => s.spanId === failedSpanId)).toMatchObject({ name: CHECK, attributes: { "rpc.grpc.status_code": 3 }, statusCode: 0 });
  });
});

describe("tracing on, the HTTP/JSON interface", () => {
  it("continues the caller's trace in a server span named after the route, with an evaluator child", async () => {
    const tracing = startTracing("authz-engine", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    const body = JSON.stringify({ object: workspace("ws-1"), relation: "view", subject: { resource: principal("alice") } });
    const answer = await fetch(`http://127.0.0.1:${engine.metricsPort}/api/kessel/v1beta2/check`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, "x-rh-identity": encodeIdentityHeader({ orgId: "o1", userId: "alice", username: "alice" }) },
      body,
    });
    expect(answer.status).toBe(200);
    const [, traceId, serverSpanId] = String(answer.headers.get("traceparent")).split("-");
    expect(traceId).toBe(CALLER_TRACE);
    await tracing.shutdown();
    const server = receiver.spans.find((s) => s.spanId === serverSpanId);
    expect(server).toMatchObject({ name: "POST /api/kessel/v1beta2/check", kind: 2, traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN, statusCode: 0 });
    expect(server?.attributes).toMatchObject({ "http.route": "/api/kessel/v1beta2/check", "http.response.status_code": 200 });
    expect(receiver.spans.find((s) => s.name === "evaluator.check" && s.parentSpanId === serverSpanId)).toMatchObject({ traceId: CALLER_TRACE, kind: 1 });
  });
});

describe("tracing on, calls the sampler leaves out", () => {
  it("get no server span, no evaluator span and no traceparent back (default sampler: caller unsampled, or no caller trace and the 99 %)", async () => {
    const before = receiver.spans.length;
    const tracing = startTracing("authz-engine", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_TRACES_SAMPLER_ARG: 0 });
    try {
      expect((await checkHeaders(`00-${CALLER_TRACE}-${CALLER_SPAN}-00`)).get("traceparent")).toEqual([]);
      expect((await checkHeaders(null)).get("traceparent")).toEqual([]);
      // The caller's sampled flag still wins under the default parent-based sampler.
      expect((await checkHeaders(`00-${CALLER_TRACE}-${CALLER_SPAN}-01`)).get("traceparent")).toHaveLength(1);
    } finally {
      await tracing.shutdown();
    }
    expect(receiver.spans.slice(before).map((s) => [s.name, s.traceId])).toEqual([
      ["evaluator.check", CALLER_TRACE],
      [CHECK, CALLER_TRACE],
    ]);
  });
});
