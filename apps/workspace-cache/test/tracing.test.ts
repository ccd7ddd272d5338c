// OpenTelemetry over real HTTP: traceparent in and out, the server span exported when OTEL_* ask.
import { startTracing } from "@gatehouse/telemetry";
import { startOtlpReceiver, type OtlpReceiver } from "@gatehouse/telemetry/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer, type WorkspaceCacheServer } from "@gatehouse/workspace-cache";

const CALLER_TRACE = "7d3e1f2a4b5c6d7e8f90a1b2c3d4e5f6";
const CALLER_SPAN = "0123456789abcdef";

describe("workspace-cache tracing", () => {
  let server: WorkspaceCacheServer;
  let receiver: OtlpReceiver;
  let url: string;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = buildServer({ port: 0, host: "127.0.0.1", source: { directory: { builtInWorkspaces: async () => null } }, auth: { mode: "disabled" } });
    url = `http://127.0.0.1:${(await server.start()).port}/api/rbac/v2/workspaces/?type=root`;
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  const get = () => fetch(url, { headers: { "x-rh-rbac-org-id": "nobody", traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });

  it("off by default: no traceparent back, nothing exported", async () => {
    expect((await get()).headers.get("traceparent")).toBeNull();
    expect(receiver.requests).toBe(0);
  });

  it("on with OTEL_EXPORTER_OTLP_ENDPOINT: continues the caller's trace and exports the server span", async () => {
    const tracing = startTracing("workspace-cache", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    let spanId: string | undefined;
    try {
      const response = await get();
      expect(response.status).toBe(404);
      const [, traceId, serverSpanId] = String(response.headers.get("traceparent")).split("-");
      expect(traceId).toBe(CALLER_TRACE);
      spanId = serverSpanId;
    } finally {
      await tracing.shutdown();
    }
    const span = receiver.spans.find((s) => s.spanId === spanId);
    // A 404 is the caller's outcome, not a server error: the span status stays unset.
    expect(span).toMatchObject({ serviceName: "workspace-cache", kind: 2, parentSpanId: CALLER_SPAN, statusCode: 0, attributes: { "http.response.status_code": 404 } });
  });
});

describe("workspace-cache outgoing requests", () => {
  it("carry the request's trace context to the OIDC issuer (discovery and JWKS), and none when tracing is off", async () => {
    const { startTestIssuer } = await import("./issuer.js");
    const { parseSystemUsers } = await import("@gatehouse/auth");
    const receiver = await startOtlpReceiver();
    const issuer = await startTestIssuer();
    const auth = { mode: "oidc", issuerUrl: issuer.url, audience: "gatehouse", insecure: true, systemUsers: parseSystemUsers('{"svc-client":{"allow_any_org":true}}') } as const;
    const directory = { builtInWorkspaces: async () => null };
    const outgoing = () => issuer.requests.filter((r) => r.path.includes("well-known") || r.path.includes("jwks"));
    const call = async (server: WorkspaceCacheServer) => {
      const port = (await server.start()).port;
      try {
        const token = await issuer.token();
        const headers = { authorization: `Bearer ${token}`, "x-rh-rbac-org-id": "nobody", traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` };
        return await fetch(`http://127.0.0.1:${port}/api/rbac/v2/workspaces/?type=root`, { headers });
      } finally {
        await server.stop();
      }
    };
    try {
      expect((await call(buildServer({ port: 0, host: "127.0.0.1", source: { directory }, auth }))).status).toBe(404);
      expect(
        outgoing()
          .map((r) => r.path)
          .sort(),
      ).toEqual(["/.well-known/openid-configuration", "/jwks"]);
      expect(outgoing().map((r) => r.headers.traceparent)).toEqual([undefined, undefined]);

      issuer.requests.length = 0;
      const tracing = startTracing("workspace-cache", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      try {
        const response = await call(buildServer({ port: 0, host: "127.0.0.1", source: { directory }, auth }));
        expect(response.status).toBe(404);
        const serverSpan = String(response.headers.get("traceparent")).split("-")[2];
        // Both fetches run inside the request's server span: same trace, that span as the parent.
        expect(outgoing().map((r) => r.headers.traceparent)).toEqual([`00-${CALLER_TRACE}-${serverSpan}-01`, `00-${CALLER_TRACE}-${serverSpan}-01`]);
      } finally {
        await tracing.shutdown();
      }
    } finally {
      await issuer.stop();
      await receiver.close();
    }
  });
});
