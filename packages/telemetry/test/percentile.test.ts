import { describe, expect, it } from "vitest";
import { ascending, percentile } from "@gatehouse/telemetry";

describe("percentile", () => {
  it("is the nearest-rank sample of an ascending array", () => {
    const samples = ascending([5, 1, 4, 2, 3, 10, 9, 8, 7, 6]);
    expect(samples).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile(samples, 50)).toBe(6);
    expect(percentile(samples, 90)).toBe(10);
    expect(percentile(samples, 99)).toBe(10);
    expect(percentile(samples, 100)).toBe(10);
    expect(percentile([42], 50)).toBe(42);
  });

  it("is NaN without samples and refuses a percentile outside 0..100", () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});
