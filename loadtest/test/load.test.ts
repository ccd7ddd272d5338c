import { describe, expect, it } from "vitest";
import { Latencies } from "../src/histogram.ts";
import { closedLoop, openLoop } from "../src/load.ts";
import { forEachLimited } from "../src/pool.ts";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("load shapes", () => {
  it("closed loop runs exactly the requested iterations and records failures", async () => {
    const seen: number[] = [];
    const out = await closedLoop(4, { iterations: 20 }, async (i) => {
      seen.push(i);
      if (i === 3) throw new Error("boom");
    });
    expect(out.requests).toBe(20);
    expect(new Set(seen).size).toBe(20);
    expect(out.errors).toBe(1);
    expect(out.firstError).toBe("boom");
  });

  it("open loop keeps the arrival rate and counts drops when the target falls behind", async () => {
    // Room for every arrival, so a late timer on a busy machine cannot turn into drops.
    const fast = await openLoop(200, 250, 50, async () => undefined);
    expect(fast.requests).toBe(50);
    expect(fast.dropped).toBe(0);
    const slow = await openLoop(200, 250, 2, () => sleep(100));
    expect(slow.dropped).toBeGreaterThan(0);
    expect(slow.errors).toBe(slow.dropped);
    // Latency counts from the scheduled start, so queueing behind slow requests is visible.
    expect(slow.latencies.summary().p50Ms).toBeGreaterThanOrEqual(99);
  });

  it("bounded concurrency never exceeds its limit and rethrows the first error", async () => {
    let inFlight = 0;
    let peak = 0;
    await forEachLimited(0, 30, 3, async () => {
      peak = Math.max(peak, ++inFlight);
      await sleep(2);
      inFlight--;
    });
    expect(peak).toBe(3);
    await expect(
      forEachLimited(0, 5, 2, async (i) => {
        if (i === 2) throw new Error("step 2");
      }),
    ).rejects.toThrow("step 2");
  });
});

describe("histogram", () => {
  it("reports percentiles in milliseconds with microsecond resolution", () => {
    const l = new Latencies();
    for (let i = 1; i <= 1000; i++) l.recordMs(i / 10);
    const s = l.summary();
    expect(s.count).toBe(1000);
    expect(s.p50Ms).toBeCloseTo(50, 0);
    expect(s.p99Ms).toBeCloseTo(99, 0);
    expect(s.maxMs).toBeCloseTo(100, 0);
  });
});
