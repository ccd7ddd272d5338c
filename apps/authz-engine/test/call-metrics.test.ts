import { Counter, Histogram, LATENCY_BUCKETS_SECONDS, Registry } from "@gatehouse/telemetry";
import { describe, expect, it } from "vitest";
import { grpcCallMetrics } from "../src/call-metrics.js";
import { grpcCodeName } from "../src/metrics.js";

/** Exposition lines as comparable entries: metric name, labels sorted, value. */
function samples(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = /^([^{ ]+)(?:\{(.*)\})? (.+)$/.exec(line)!;
      const labels = (match[2] ?? "")
        .split(/,(?=[a-z_]+=)/)
        .filter(Boolean)
        .sort()
        .join(",");
      return `${match[1]}{${labels}} ${Number(match[3])}`;
    })
    .sort();
}

describe("gRPC call metrics kept as plain numbers", () => {
  it("expose what prom-client's labelled counter and histogram expose for the same calls", async () => {
    const calls: [string, number, number][] = [
      ["Check", 0, 0.00004],
      ["Check", 0, 0.0001],
      ["Check", 0, 0.0031],
      ["Check", 3, 0.002],
      ["CheckBulk", 0, 0.7],
      ["CheckBulk", 14, 12],
      ["CheckBulk", 0, 5],
    ];
    const labelsOf = (method: string) => ({ grpc_type: "unary", grpc_service: "kessel.inventory.v1beta2.KesselInventoryService", grpc_method: method });

    const ours = new Registry();
    const method = grpcCallMetrics(ours, LATENCY_BUCKETS_SECONDS, grpcCodeName);
    const bound = new Map(["Check", "CheckBulk", "ReportResource"].map((name) => [name, method(labelsOf(name))]));
    for (const [name, code, seconds] of calls) bound.get(name)!.record(code, seconds);

    const reference = new Registry();
    const handled = new Counter({ name: "grpc_server_handled_total", help: "h", labelNames: ["grpc_type", "grpc_service", "grpc_method", "grpc_code"], registers: [reference] });
    const latency = new Histogram({
      name: "grpc_server_handling_seconds",
      help: "h",
      labelNames: ["grpc_type", "grpc_service", "grpc_method"],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [reference],
    });
    for (const name of bound.keys()) {
      handled.labels({ ...labelsOf(name), grpc_code: "OK" });
      latency.labels(labelsOf(name));
    }
    for (const [name, code, seconds] of calls) {
      handled.inc({ ...labelsOf(name), grpc_code: grpcCodeName(code) });
      latency.observe(labelsOf(name), seconds);
    }
    expect(samples(await ours.metrics())).toEqual(samples(await reference.metrics()));
    expect(method(labelsOf("Check"))).toBe(bound.get("Check"));

    ours.resetMetrics();
    reference.resetMetrics();
    expect(samples(await ours.metrics())).toEqual(samples(await reference.metrics()));
  });
});
