import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createLogger, httpRequestLogger, httpTracing, inSpan, sampleCall, startTracing, tracesExporterFor, tracingEnabled, type Tracing, type TracesSampler } from "../src/index.js";
import { capturedLogLines, startOtlpReceiver, type OtlpReceiver } from "../src/testing.js";

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

/** A plain node:http server: tracing middleware, then pino-http, then a handler doing traced work. */
async function startApp(): Promise<{ url: string; lines: Record<string, unknown>[]; close(): Promise<void> }> {
  const { destination, lines } = capturedLogLines();
  const logger = createLogger({ name: "tracing-test", level: "info", destination });
  const trace = httpTracing();
  const log = httpRequestLogger(logger);
  const server: Server = createServer((req, res) => {
    trace(req, res, () => {
      log(req, res, () => {
        void inSpan("work", { step: 1 }, async () => {
          req.log.info("inside the request");
          await new Promise((resolve) => setTimeout(resolve, 1));
        }).then(() => res.end("ok"));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/things?x=1`,
    lines,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function get(url: string, headers: Record<string, string> = {}): Promise<IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.headers));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("which exporter the OTEL_* settings select", () => {
  it("is none by default, otlp when an endpoint is set, as told otherwise, none when the SDK is disabled", () => {
    expect(tracesExporterFor({})).toBe("none");
    expect(tracesExporterFor({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe("otlp");
    expect(tracesExporterFor({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe("otlp");
    expect(tracesExporterFor({ OTEL_TRACES_EXPORTER: "otlp" })).toBe("otlp");
    expect(tracesExporterFor({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe("none");
    expect(tracesExporterFor({ OTEL_SDK_DISABLED: true, OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe("none");
  });
});

describe("tracing off (no OTEL_* set)", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it("registers nothing, answers without traceparent, logs without trace ids and exports nothing", async () => {
    const tracing = startTracing("tracing-test", {});
    expect(tracing.enabled).toBe(false);
    expect(tracingEnabled()).toBe(false);
    const app = await startApp();
    try {
      const headers = await get(app.url, { traceparent: TRACEPARENT });
      expect(headers["traceparent"]).toBeUndefined();
      expect(app.lines.length).toBeGreaterThan(0);
      for (const line of app.lines) expect(line).not.toHaveProperty("trace_id");
    } finally {
      await app.close();
      await tracing.shutdown();
    }
    expect(receiver.requests).toBe(0);
  });
});

describe("tracing on (OTEL_EXPORTER_OTLP_ENDPOINT set)", () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    tracing = startTracing("tracing-test", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: "tracing-test-svc" });
  });
  afterAll(async () => {
    await tracing.shutdown();
    await receiver.close();
  });

  it("continues the caller's trace, answers with the server span's traceparent, logs the trace id and exports the spans", async () => {
    expect(tracing.enabled).toBe(true);
    const app = await startApp();
    let headers: IncomingHttpHeaders;
    try {
      headers = await get(app.url, { traceparent: TRACEPARENT });
    } finally {
      await app.close();
    }
    const [, traceId, serverSpanId, flags] = String(headers["traceparent"]).split("-");
    expect(traceId).toBe(CALLER_TRACE);
    expect(serverSpanId).toMatch(/^[0-9a-f]{16}$/);
    expect(serverSpanId).not.toBe(CALLER_SPAN);
    expect(flags).toBe("01");

    // Every line of the request, the completion line included, carries the trace id.
    const inside = app.lines.find((l) => l["msg"] === "inside the request");
    const completed = app.lines.find((l) => l["msg"] === "request completed");
    expect(inside).toMatchObject({ trace_id: CALLER_TRACE });
    expect(completed).toMatchObject({ trace_id: CALLER_TRACE, span_id: serverSpanId });

    await tracing.shutdown(); // flushes the batch
    const server = receiver.spans.find((s) => s.spanId === serverSpanId);
    expect(server).toMatchObject({ serviceName: "tracing-test-svc", traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN, name: "GET", kind: 2 });
    expect(server?.attributes).toMatchObject({ "http.request.method": "GET", "url.path": "/things", "http.response.status_code": 200 });
    const work = receiver.spans.find((s) => s.name === "work");
    expect(work).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: serverSpanId, kind: 1, attributes: { step: 1 } });
    expect(inside).toMatchObject({ span_id: work?.spanId });
  });

  it("starts a new trace when the caller sends none or an invalid traceparent (and the sampler says so)", async () => {
    await tracing.shutdown();
    tracing = startTracing("tracing-test", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_TRACES_SAMPLER: "parentbased_always_on" });
    const app = await startApp();
    try {
      for (const sent of [{}, { traceparent: "00-zz-yy-01" }] as Record<string, string>[]) {
        const [version, traceId] = String((await get(app.url, sent))["traceparent"]).split("-");
        expect(version).toBe("00");
        expect(traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(traceId).not.toBe(CALLER_TRACE);
      }
    } finally {
      await app.close();
    }
  });
});

const sampling = JSON.parse(readFileSync(new URL("./cases/sampling.json", import.meta.url), "utf8")) as {
  traceparents: Record<string, string | null>;
  cases: Array<{ sampler: TracesSampler | null; ratio: number | null; expect: Record<string, boolean> }>;
};

describe("sampling (decided before any span exists)", () => {
  it("is never on while tracing is off", () => {
    expect(sampleCall(undefined)).toBe(false);
    expect(sampleCall(sampling.traceparents["sampledLow"]!)).toBe(false);
  });

  it.each(sampling.cases.map((c) => [c.sampler ?? "default", c.ratio ?? "default", c] as const))("%s (ratio %s) decides per the case file", async (_s, _r, c) => {
    const tracing = startTracing("sampling-test", {
      OTEL_TRACES_EXPORTER: "console",
      ...(c.sampler ? { OTEL_TRACES_SAMPLER: c.sampler } : {}),
      ...(c.ratio !== null ? { OTEL_TRACES_SAMPLER_ARG: c.ratio } : {}),
    });
    try {
      const decided = Object.fromEntries(Object.keys(c.expect).map((name) => [name, sampleCall(sampling.traceparents[name] ?? undefined)]));
      expect(decided).toEqual(c.expect);
    } finally {
      await tracing.shutdown();
    }
  });

  it("by default traces about 1 % of the calls that arrive without a trace", async () => {
    const tracing = startTracing("sampling-test", { OTEL_TRACES_EXPORTER: "console" });
    try {
      let sampled = 0;
      for (let i = 0; i < 20_000; i++) if (sampleCall(undefined)) sampled++;
      // Binomial(20,000, 0.01): mean 200, standard deviation 14; these bounds are 7 deviations out.
      expect(sampled).toBeGreaterThan(100);
      expect(sampled).toBeLessThan(300);
    } finally {
      await tracing.shutdown();
    }
  });

  it("an unsampled HTTP request gets no span, no traceparent back, and its work no root span of its own", async () => {
    const receiver = await startOtlpReceiver();
    const tracing = startTracing("tracing-test", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    const app = await startApp();
    try {
      const headers = await get(app.url, { traceparent: sampling.traceparents["unsampledLow"]! });
      expect(headers["traceparent"]).toBeUndefined();
      for (const line of app.lines) expect(line).not.toHaveProperty("trace_id");
    } finally {
      await app.close();
      await tracing.shutdown();
      await receiver.close();
    }
    expect(receiver.spans).toEqual([]);
  });
});
