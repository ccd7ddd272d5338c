import { Metadata, status, type ClientUnaryCall } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcCodeName } from "../src/grpc/calls.js";
import { principal, startEngine, workspace, type RunningEngine } from "./helpers.js";

let engine: RunningEngine;
beforeAll(async () => {
  engine = await startEngine();
});
afterAll(async () => {
  await engine?.close();
});

/** A Check's response headers, whether the call succeeds or fails. */
function headersOfCheck(metadata: Metadata, resourceType = "workspace"): Promise<Metadata> {
  return new Promise((resolve, reject) => {
    const call: ClientUnaryCall = engine.client.check({ object: { ...workspace("ws-1"), resourceType }, relation: "view", subject: { resource: principal("alice") } }, metadata, () => undefined);
    call.once("metadata", resolve);
    call.once("status", () => setTimeout(() => reject(new Error("no response headers")), 50));
  });
}

describe("gRPC request ids", () => {
  it("echoes the caller's x-request-id in the response headers", async () => {
    const metadata = new Metadata();
    metadata.set("x-request-id", "grpc-call-7");
    expect((await headersOfCheck(metadata)).get("x-request-id")).toEqual(["grpc-call-7"]);
  });

  it("generates one when none (or an unacceptable one) is sent, also for a failing call", async () => {
    expect((await headersOfCheck(new Metadata())).get("x-request-id")[0]).toMatch(/^[0-9a-f-]{36}$/);
    const bad = new Metadata();
    bad.set("x-request-id", "x".repeat(300));
    expect((await headersOfCheck(bad, "")).get("x-request-id")[0]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("grpc_code label values", () => {
  it("are spelled as the Go gRPC libraries spell them, so stock dashboards match", async () => {
    expect([status.OK, status.INVALID_ARGUMENT, status.DEADLINE_EXCEEDED, status.CANCELLED, status.UNAUTHENTICATED].map(grpcCodeName)).toEqual([
      "OK",
      "InvalidArgument",
      "DeadlineExceeded",
      "Canceled",
      "Unauthenticated",
    ]);
    const metadata = new Metadata();
    await headersOfCheck(metadata, "");
    const text = await (await fetch(`http://127.0.0.1:${engine.metricsPort}/metrics`)).text();
    expect(text).toMatch(/grpc_server_handled_total\{[^}]*grpc_method="Check",grpc_code="InvalidArgument"\} [1-9]/);
  });
});
