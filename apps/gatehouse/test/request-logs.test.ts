// Under `pnpm start` (the all-in-one server with the start command's logger at info), the management
// API and the authz-engine each log every request: one JSON line per HTTP request and per gRPC call,
// carrying the request id the caller sent. The test waits for the lines (logging may follow the
// response), then checks there is exactly one per request and service.
import { credentials, Metadata } from "@grpc/grpc-js";
import { KesselInventoryServiceClient } from "@gatehouse/proto";
import { createLogger } from "@gatehouse/telemetry";
import { capturedLogLines } from "@gatehouse/telemetry/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoIdentityHeader } from "../src/start/banner.js";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";

const REQUESTS = 3;
const log = capturedLogLines();
let gh: RunningGatehouse;
let grpc: KesselInventoryServiceClient;

beforeAll(async () => {
  // The logger `gatehouse start` builds (its default level, info), writing to the capture.
  gh = await startGatehouse(
    { dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", seedDemo: false },
    createLogger({ name: "gatehouse", level: "info", destination: log.destination }),
  );
  grpc = new KesselInventoryServiceClient(`127.0.0.1:${gh.ports.grpc}`, credentials.createInsecure());
});
afterAll(async () => {
  grpc?.close();
  await gh?.stop();
});

const linesWith = (service: string, reqId: string) => log.lines.filter((line) => line["service"] === service && line["reqId"] === reqId);

async function untilLogged(service: string, reqId: string): Promise<void> {
  while (linesWith(service, reqId).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("request logs of the all-in-one server", () => {
  it("the management API logs one line per HTTP request, with its request id, method, path and status", async () => {
    const ids = Array.from({ length: REQUESTS }, (_, i) => `log-http-${i}`);
    for (const id of ids) {
      const res = await fetch(`http://127.0.0.1:${gh.ports.http}/api/rbac/v2/workspaces/?type=root`, {
        headers: { "x-rh-identity": demoIdentityHeader("log-org", "alice", true), "x-request-id": id },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-request-id")).toBe(id);
    }
    for (const id of ids) await untilLogged("management-api", id);
    for (const id of ids) {
      const lines = linesWith("management-api", id);
      expect(lines).toHaveLength(1);
      expect(JSON.stringify(lines[0])).toContain("/api/rbac/v2/workspaces/");
      expect(JSON.stringify(lines[0])).toContain("200");
    }
  });

  it("the authz-engine logs one line per gRPC call, with its request id, method and code", async () => {
    const ids = Array.from({ length: REQUESTS }, (_, i) => `log-grpc-${i}`);
    for (const id of ids) {
      const metadata = new Metadata();
      metadata.set("x-request-id", id);
      await new Promise<void>((resolve, reject) =>
        grpc.check(
          {
            object: { resourceType: "workspace", resourceId: "00000000-0000-4000-8000-000000000000", reporter: { type: "rbac" } },
            relation: "inventory_host_view",
            subject: { resource: { resourceType: "principal", resourceId: "redhat/alice", reporter: { type: "rbac" } } },
          },
          metadata,
          (error) => (error ? reject(error) : resolve()),
        ),
      );
    }
    for (const id of ids) await untilLogged("authz-engine", id);
    for (const id of ids) expect(linesWith("authz-engine", id)).toEqual([expect.objectContaining({ method: "Check", code: "OK", msg: "call completed" })]);
  });
});
