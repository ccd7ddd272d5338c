// The rehearsal report's arithmetic: which failures belong to which fault window, the Check p99
// around each fault, and the verdicts.
import { describe, expect, it } from "vitest";
import type { FaultRecord } from "../src/rehearse/faults.ts";
import { computeFigures, percentile, RECOVERY_GRACE_MS, renderRehearsal, type RehearsalReport, steadyBound, verdicts } from "../src/rehearse/report.ts";
import type { Sample } from "../src/rehearse/traffic.ts";

const check = (t: number, ms: number, ok = true): Sample => ({ t, kind: "check", ok, ms, ...(ok ? {} : { error: "UNAVAILABLE" }) });
const fault = (name: string, start: number, recovered: number): FaultRecord => ({ name, what: `${name} happens`, start, recovered, notes: [] });

describe("rehearsal figures", () => {
  // Steady checks at 2 ms every 100 ms for 60 s, a fault from 10 s to 15 s with slow checks and failures.
  const samples: Sample[] = [];
  for (let t = 0; t < 60_000; t += 100) samples.push(check(t, t >= 10_000 && t < 15_000 ? 40 : 2));
  samples.push(check(12_000, 1, false), check(12_500, 1, false), check(15_000 + RECOVERY_GRACE_MS - 1, 1, false));
  const faults = [fault("engine kill -9", 10_000, 15_000)];

  it("counts failures inside a fault's window (up to the grace after recovery) against the fault, others apart", () => {
    const f = computeFigures([...samples, check(40_000, 1, false)], faults, 60_000);
    expect(f.faults[0]!.failed).toBe(3);
    expect(f.faults[0]!.failedByKind).toEqual({ check: 3 });
    expect(f.failedOutsideWindows).toBe(1);
    expect(f.firstFailureOutside).toContain("check at 40.0 s");
  });

  it("counts a request sent just before the fault and cut by it against the fault", () => {
    const f = computeFigures([...samples, check(9_950, 300, false), check(9_000, 500, false)], faults, 60_000);
    expect(f.faults[0]!.failed).toBe(4);
    expect(f.failedOutsideWindows).toBe(1);
    expect(f.firstFailureOutside).toContain("check at 9.0 s");
  });

  it("gives the Check p99 before, during and after, and whether it came back to steady", () => {
    const f = computeFigures(samples, faults, 60_000);
    expect(f.steadyP99Ms).toBe(2);
    expect(f.faults[0]).toMatchObject({ p99BeforeMs: 2, p99DuringMs: 40, p99FirstTenSecondsMs: 2, p99AfterMs: 2, backToSteady: true, startS: 10, durationS: 5 });
    const slowAfter = samples.map((s) => (s.t >= 25_000 && s.t < 35_000 ? { ...s, ms: 50 } : s));
    expect(computeFigures(slowAfter, faults, 60_000).faults[0]!.backToSteady).toBe(false);
  });

  it("judges the verdicts", () => {
    const f = computeFigures(samples, faults, 60_000);
    expect(verdicts(f, { wrongAnswers: [], lostWrites: [] })).toEqual({ noWrongAnswer: true, noLostWrite: true, failuresOnlyInWindows: true, p99BackWithinTenSeconds: true });
    expect(verdicts(f, { wrongAnswers: ["x"], lostWrites: ["y"] })).toMatchObject({ noWrongAnswer: false, noLostWrite: false });
  });

  it("takes percentiles by rank and bounds steady with room for jitter", () => {
    expect(percentile([], 99)).toBeUndefined();
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 100], 99)).toBe(100);
    expect(steadyBound(1)).toBe(6);
    expect(steadyBound(20)).toBe(40);
  });

  it("renders the verdicts and each fault's row", () => {
    const figures = computeFigures(samples, faults, 60_000);
    const report: RehearsalReport = {
      date: "2026-12-02",
      machine: "test",
      loadAverageStart: 1,
      loadAverageEnd: 1,
      command: "pnpm rehearse",
      scale: "1k",
      hosts: 1000,
      checkRate: 10,
      topology: [],
      generateSeconds: 1,
      figures,
      traffic: { checksCompared: 600, freshChecks: 4, wrongAnswers: [], lostWrites: [], writes: 2 },
      k6: [],
      verdicts: verdicts(figures, { wrongAnswers: [], lostWrites: [] }),
    };
    const md = renderRehearsal(report);
    expect(md).toContain("| No wrong answer | yes | 600 checked");
    expect(md).toContain("| engine kill -9 | 10.0 | 5.0 |");
    expect(md).toContain("| 3 (check 3) | 2.00 | 40.0 | 2.00 | 2.00 | yes |");
  });
});
