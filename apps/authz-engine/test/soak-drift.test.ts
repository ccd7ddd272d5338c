import { describe, expect, it } from "vitest";
import { drift, formatDrift } from "../bench/drift.js";

describe("soak drift", () => {
  it("compares the later half after warm-up with the earlier half", () => {
    // Warm-up of 2 leaves 8 samples: rss 100..100 then 104..104 (4% up), heap noisy around 50.
    const samples = [{ rss: 10, heap: 1 }, { rss: 20, heap: 1 }, ...[100, 100, 100, 100, 104, 104, 104, 104].map((rss, i) => ({ rss, heap: i % 2 === 0 ? 40 : 60 }))];
    const rows = drift(samples, 2, ["rss", "heap"]);
    const rss = rows.find((r) => r.column === "rss")!;
    expect(rss.earlier).toBe(100);
    expect(rss.later).toBe(104);
    expect(rss.ratio).toBeCloseTo(1.04);
    expect(rss.flat).toBe(true);
    expect(rows.find((r) => r.column === "heap")!.ratio).toBe(1);
  });

  it("flags a column that keeps growing, and judges only the named columns", () => {
    const samples = Array.from({ length: 12 }, (_, i) => ({ rss: 100 + 10 * i, ops: 5 + i }));
    const rows = drift(samples, 2, ["rss"]);
    expect(rows.find((r) => r.column === "rss")!.flat).toBe(false);
    expect(rows.find((r) => r.column === "ops")!.flat).toBeUndefined();
    expect(formatDrift(rows)).toMatch(/rss .* DRIFT/);
  });

  it("does not call a fall drift", () => {
    const samples = Array.from({ length: 10 }, (_, i) => ({ p99: 100 - 8 * i }));
    expect(drift(samples, 0, ["p99"])[0]!.flat).toBe(true);
  });

  it("has no verdict when too few samples remain after warm-up", () => {
    const rows = drift([{ rss: 1 }, { rss: 2 }], 2, ["rss"]);
    expect(rows[0]!.flat).toBe(false);
    expect(Number.isNaN(rows[0]!.ratio)).toBe(true);
  });
});
