import { credentials } from "@grpc/grpc-js";
import { HealthCheckResponse_ServingStatus, HealthClient } from "@gatehouse/proto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call, principal, startEngine, workspace, type RunningEngine } from "./helpers.js";

let engine: RunningEngine;

beforeAll(async () => {
  // No schema given: Gatehouse's own stage schema from role-config.
  engine = await startEngine({ schemaText: undefined, environment: "stage" });
});

afterAll(async () => {
  await engine?.close();
});

it("serves grpc.health.v1 and Prometheus metrics", async () => {
  const health = new HealthClient(`127.0.0.1:${engine.port}`, credentials.createInsecure());
  const answer = await new Promise<{ status: number }>((resolve, reject) =>
    health.check({ service: "kessel.inventory.v1beta2.KesselInventoryService" }, (error, response) => (error ? reject(error) : resolve(response))),
  );
  expect(answer.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  const unknown = await new Promise<{ code?: number }>((resolve) => health.check({ service: "nope" }, (error) => resolve(error ?? {})));
  expect(unknown.code).toBe(5);
  health.close();

  await call(engine.client, "check", { object: workspace("w"), relation: "view", subject: { resource: principal("a") } });
  const metrics = await (await fetch(`http://127.0.0.1:${engine.metricsPort}/metrics`)).text();
  expect(metrics).toMatch(/grpc_server_handled_total\{grpc_type="unary",grpc_service="kessel.inventory.v1beta2.KesselInventoryService",grpc_method="Check",grpc_code="OK"\} 1/);
  expect(metrics).toMatch(/grpc_server_handling_seconds_count\{grpc_type="unary",grpc_service="kessel.inventory.v1beta2.KesselInventoryService",grpc_method="Check"\} 1/);
  // Standard process metrics, unprefixed.
  expect(metrics).toMatch(/^process_cpu_seconds_total /m);
  expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds /m);
  expect(metrics).toMatch(/gatehouse_engine_ready 1/);
  expect(metrics).toMatch(/gatehouse_engine_grpc_in_flight\{method="Check"\} 0/);
  expect((await fetch(`http://127.0.0.1:${engine.metricsPort}/readyz`)).status).toBe(200);
});
