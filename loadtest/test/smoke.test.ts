// The smoke run: spawns the all-in-one server on a throwaway Postgres database, loads the small
// data set through the public interfaces and runs every scenario for about a second each.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { RunReport } from "../src/report.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = mkdtempSync(path.join(os.tmpdir(), "gatehouse-loadtest-results-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("smoke run", () => {
  it("loads the data and runs every scenario without errors, with Pattern 1 and 2 agreeing", async () => {
    await promisify(execFile)(process.execPath, ["--import", "tsx", "src/cli.ts", "smoke", "--out", out, "--no-progress"], { cwd: root }).catch((error: { stderr?: string }) => {
      throw new Error(
        `smoke run failed:\n${error.stderr
          ?.split("\n")
          .filter((l) => !l.startsWith("{"))
          .join("\n")}`,
      );
    });
    const report = JSON.parse(readFileSync(path.join(out, "smoke-smoke.json"), "utf8")) as RunReport;
    expect(report.scenarios.map((s) => s.name)).toEqual(["floor", "check-mix", "pattern2-list", "pattern2-list-broad", "pattern1-checkbulk", "pattern1-check", "management-mix"]);
    for (const s of report.scenarios) {
      // Arrivals an open loop drops while its in-flight bound is full count as errors in a run's report
      // (k6's dropped_iterations): a measure of a loaded machine's capacity, not a wrong answer.
      expect(s.errors - Number(s.extra["dropped"] ?? 0), `${s.name}: ${s.firstError}`).toBe(0);
      expect(s.requests).toBeGreaterThan(0);
      expect(s.serverCpuMsPerRequest).toBeGreaterThanOrEqual(0);
    }
    const bulk = report.scenarios.find((s) => s.name === "pattern1-checkbulk")!;
    expect(bulk.extra["sameAnswer"]).toBe("yes");
    expect(Number(bulk.extra["allowedHosts"])).toBeGreaterThan(0);
    expect(Number(bulk.extra["allowedHosts"])).toBeLessThan(report.hosts);
    expect(report.scenarios.find((s) => s.name === "pattern1-check")!.extra["mismatchesWithPattern2"]).toBe(0);
    expect(readFileSync(path.join(out, "smoke-smoke.md"), "utf8")).toContain("| Comparison (same run, p50) | Ratio |");
  });
});
