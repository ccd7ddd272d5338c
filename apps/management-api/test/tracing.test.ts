// OpenTelemetry over real HTTP (Postgres store): traceparent in and out, the server span named
// after the matched route, and SQL statements as child spans of the same trace.
import { startTracing, type Tracing } from "@gatehouse/telemetry";
import { startOtlpReceiver, type OtlpReceiver } from "@gatehouse/telemetry/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { V2, startApp, type TestApp } from "./helpers.js";

const CALLER_TRACE = "5c1ad2a1e0b34c7a9d2e8f60a1b2c3d4";
const CALLER_SPAN = "a1b2c3d4e5f60718";

let app: TestApp;
let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  app = await startApp({}, { backend: "pg" });
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

describe("tracing off", () => {
  it("answers without traceparent and exports nothing", async () => {
    const response = await app.request("GET", `${V2}/workspaces/?limit=1`, { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("traceparent")).toBeNull();
    expect(receiver.requests).toBe(0);
  });
});

describe("tracing on", () => {
  let tracing: Tracing;
  beforeAll(() => {
    tracing = startTracing("management-api", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
  });
  afterAll(async () => {
    await tracing.shutdown();
  });

  it("continues the caller's trace, names the span after the route and traces the SQL it runs", async () => {
    // Another query than above: the read cache would answer a repeat before any route (and SQL) runs.
    const response = await app.request("GET", `${V2}/workspaces/?limit=2`, { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    expect(response.status).toBe(200);
    const [, traceId, serverSpanId] = String(response.headers.get("traceparent")).split("-");
    expect(traceId).toBe(CALLER_TRACE);
    expect(serverSpanId).not.toBe(CALLER_SPAN);

    await tracing.shutdown();
    const server = receiver.spans.find((s) => s.spanId === serverSpanId);
    expect(server).toMatchObject({ serviceName: "management-api", kind: 2, parentSpanId: CALLER_SPAN, name: `GET ${V2}/workspaces/` });
    expect(server?.attributes).toMatchObject({ "http.route": `${V2}/workspaces/`, "http.response.status_code": 200 });
    const sql = receiver.spans.filter((s) => s.traceId === CALLER_TRACE && s.attributes["db.system.name"] === "postgresql");
    expect(sql.length).toBeGreaterThan(0);
    expect(sql.every((s) => s.kind === 3 && typeof s.attributes["db.query.text"] === "string")).toBe(true);
    // Every SQL span hangs under the request's server span (directly or through another span).
    const byId = new Map(receiver.spans.map((s) => [s.spanId, s]));
    for (const s of sql) {
      let parent = byId.get(s.parentSpanId);
      while (parent && parent.spanId !== serverSpanId) parent = byId.get(parent.parentSpanId);
      expect(parent?.spanId).toBe(serverSpanId);
    }
  });
});
