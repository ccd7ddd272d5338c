/**
 * Nearest-rank percentile of an ascending array (`p` in 0..100): the value below which `p` % of the
 * samples fall, always one of the samples (no interpolation). NaN for no samples. The benchmarks
 * quote these, so every one of them computes it the same way.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}.`);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** An ascending copy of the samples, for `percentile`. */
export function ascending(samples: Iterable<number>): number[] {
  return [...samples].sort((a, b) => a - b);
}
