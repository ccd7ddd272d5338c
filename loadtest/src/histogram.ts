// Latency recording in microseconds with HDR histograms (3 significant digits, no coordinated-
// omission correction: the rate-driven scenario measures from the scheduled start instead).
import * as hdr from "hdr-histogram-js";

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

export class Latencies {
  private readonly histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 });

  recordMs(ms: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(ms * 1000)));
  }

  add(other: Latencies): void {
    this.histogram.add(other.histogram);
  }

  summary(): LatencySummary {
    const h = this.histogram;
    const at = (p: number): number => (h.totalCount === 0 ? 0 : h.getValueAtPercentile(p) / 1000);
    return { count: h.totalCount, p50Ms: at(50), p95Ms: at(95), p99Ms: at(99), maxMs: h.maxValue / 1000, meanMs: h.totalCount === 0 ? 0 : h.mean / 1000 };
  }
}
