import { describe, expect, it } from "vitest";
import { createLogger, createMetrics, metricsContentType } from "@gatehouse/telemetry";

describe("metrics", () => {
  it("registers per instance and renders Prometheus text", async () => {
    const a = createMetrics({ prefix: "gh_test_", processMetrics: false });
    const b = createMetrics({ prefix: "gh_test_", processMetrics: false });
    const checks = a.counter("checks_total", "Checks answered", ["result"]);
    checks.inc({ result: "allowed" }, 2);
    // Same name in another registry does not clash; same name in one registry is the same metric.
    b.counter("checks_total", "Checks answered", ["result"]).inc({ result: "denied" });
    expect(a.counter("checks_total", "Checks answered", ["result"])).toBe(checks);
    const text = await a.render();
    expect(text).toContain('gh_test_checks_total{result="allowed"} 2');
    expect(text).not.toContain("denied");
    expect(metricsContentType).toContain("text/plain");
  });

  it("histograms observe into the latency buckets", async () => {
    const m = createMetrics({ processMetrics: false });
    m.histogram("latency_seconds", "Latency").observe(0.0003);
    expect(await m.render()).toContain('latency_seconds_bucket{le="0.0005"} 1');
  });
});

describe("logger", () => {
  it("creates a named logger with the requested level", () => {
    const log = createLogger({ name: "unit", level: "warn" });
    expect(log.level).toBe("warn");
    expect(log.isLevelEnabled("info")).toBe(false);
  });
});
