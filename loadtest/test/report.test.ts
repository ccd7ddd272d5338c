import { describe, expect, it } from "vitest";
import type { LatencySummary } from "../src/histogram.ts";
import { computeRatios, machineDescription, renderMarkdown, runFailures, type ScenarioResult } from "../src/report.ts";

const latency = (p50: number, p95 = p50 * 2): LatencySummary => ({ count: 10, p50Ms: p50, p95Ms: p95, p99Ms: p95 * 1.5, maxMs: p95 * 2, meanMs: p50 });
const row = (name: string, p50: number, extra: ScenarioResult["extra"] = {}, cpu?: number): ScenarioResult => ({
  name,
  description: name,
  unit: "request",
  requests: 10,
  errors: 0,
  elapsedMs: 1000,
  throughputPerSec: 10,
  latency: latency(p50),
  extra,
  ...(cpu === undefined ? {} : { serverCpuMsPerRequest: cpu }),
});

const rows = [row("floor", 0.5, {}, 0.05), row("check-mix", 1, {}, 0.1), row("pattern2-list", 20), row("pattern1-checkbulk", 1000), row("pattern1-check", 2, { extrapolatedFullPassMs: 30_000 })];

describe("results report", () => {
  it("computes the side-by-side ratios and the target verdict from one run", () => {
    const r = computeRatios(rows, 50);
    expect(r.checkVsPattern2).toBe(1500);
    expect(r.checkBulkVsPattern2).toBe(50);
    expect(r.checkVsFloor).toBe(2);
    expect(r.checkVsFloorCpu).toBe(2);
    expect(r.targetsMet).toBe(true);
    expect(computeRatios(rows, 30).targetsMet).toBe(false); // p95 40 ms > 30 ms
  });

  it("names a missing scenario instead of dividing by undefined", () => {
    expect(() => computeRatios(rows.slice(1), 50)).toThrow(/scenario floor missing/);
  });

  it("renders a Markdown table with every scenario, its parts and the ratios", () => {
    const withPart = rows.map((r) => (r.name === "pattern2-list" ? { ...r, parts: { "filtered SQL": latency(3) }, threshold: { rule: "p95≤50ms", passed: true } } : r));
    const md = renderMarkdown({
      date: "2026-01-01",
      machine: machineDescription(),
      loadAverage: 1.5,
      command: "pnpm drive",
      scale: "100k",
      hosts: 100_000,
      store: "Postgres",
      appDb: "Postgres",
      scenarios: withPart,
      ratios: computeRatios(rows, 50),
    });
    expect(md).toContain("| pattern2-list | request | 10 | 10.0 | 20.0 | 40.0 |");
    expect(md).toContain("| ↳ filtered SQL |");
    expect(md).toContain("p95≤50ms: pass");
    expect(md).toContain("| 1500× |");
    expect(md).toMatch(/\*\*met\*\*/);
    expect(md).toContain("load average 1.5");
    expect(machineDescription()).toMatch(/^\d+ vCPU \w+ .*GiB, Node \d+$/);
  });

  it("a run with a failed threshold, an error or (full runs) missed targets fails, naming each", () => {
    const ok = { scenarios: rows, ratios: computeRatios(rows, 50) };
    expect(runFailures(ok, "smoke")).toEqual([]);
    expect(runFailures(ok, "full")).toEqual([]);
    const failedThreshold = rows.map((r) => (r.name === "check-mix" ? { ...r, threshold: { rule: "p99≤50ms, errors≤0.1%", passed: false } } : r));
    expect(runFailures({ ...ok, scenarios: failedThreshold }, "smoke")).toEqual(["check-mix: threshold p99≤50ms, errors≤0.1% FAILED"]);
    const withErrors = rows.map((r) => (r.name === "floor" ? { ...r, errors: 3, firstError: "UNAVAILABLE" } : r));
    expect(runFailures({ ...ok, scenarios: withErrors }, "smoke")).toEqual(["floor: 3 error(s), first: UNAVAILABLE"]);
    const missed = { scenarios: rows, ratios: computeRatios(rows, 30) };
    expect(runFailures(missed, "smoke")).toEqual([]);
    expect(runFailures(missed, "full")).toEqual([expect.stringMatching(/^targets NOT met: Pattern 2 p95 40.0 ms \(target <= 30 ms\)/)]);
  });

  it("marks a smoke run's latency limits as not judged", () => {
    const smoke = rows.map((r) => (r.name === "check-mix" ? { ...r, threshold: { rule: "p99≤50ms, errors≤0.1%", passed: true, latencyJudged: false } } : r));
    const md = renderMarkdown({
      date: "2026-01-01",
      machine: "m",
      loadAverage: 1,
      command: "c",
      scale: "smoke",
      hosts: 10,
      store: "Postgres",
      appDb: "Postgres",
      scenarios: smoke,
      ratios: computeRatios(rows, 50),
    });
    expect(md).toContain("p99≤50ms, errors≤0.1%: pass (latency not judged in a smoke run)");
  });
});
