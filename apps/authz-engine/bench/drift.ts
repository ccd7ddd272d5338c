// Drift of a soak's sampled columns: after the warm-up, the mean of the later half of the samples
// against the mean of the earlier half. A column that keeps growing shows a ratio above 1 however
// noisy its single samples are; a column that steps once and stays shows the step only if it falls
// inside the compared window. Only growth is drift: a latency that falls because the machine's other
// load fell is not.

export interface DriftRow {
  column: string;
  earlier: number;
  later: number;
  /** later / earlier; NaN when the earlier mean is 0 or a half is empty. */
  ratio: number;
  /** Grew by no more than the tolerance (only for the columns that must stay flat). */
  flat: boolean | undefined;
}

const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * @param samples one record per sample, in order
 * @param warmup samples to leave out at the start
 * @param mustStayFlat the columns judged against the tolerance (others are printed only)
 */
export function drift(samples: Record<string, number>[], warmup: number, mustStayFlat: readonly string[], tolerance = 0.1): DriftRow[] {
  const kept = samples.slice(warmup);
  const half = Math.floor(kept.length / 2);
  const earlier = kept.slice(0, half);
  const later = kept.slice(kept.length - half);
  const columns = samples.length > 0 ? Object.keys(samples[0]!) : [];
  return columns.map((column) => {
    const a = half > 0 ? mean(earlier.map((s) => s[column]!)) : Number.NaN;
    const b = half > 0 ? mean(later.map((s) => s[column]!)) : Number.NaN;
    const ratio = a > 0 ? b / a : Number.NaN;
    const judged = mustStayFlat.includes(column);
    return { column, earlier: a, later: b, ratio, flat: judged ? Number.isFinite(ratio) && ratio <= 1 + tolerance : undefined };
  });
}

export function formatDrift(rows: DriftRow[]): string {
  const lines = rows.map(
    (r) =>
      `${r.column.padEnd(16)} ${r.earlier.toFixed(1).padStart(10)} ${r.later.toFixed(1).padStart(10)} ${Number.isFinite(r.ratio) ? `${r.ratio.toFixed(3)}×` : "-"}`.padEnd(52) +
      (r.flat === undefined ? "" : r.flat ? "  flat" : "  DRIFT"),
  );
  return ["column              earlier      later  ratio", ...lines].join("\n");
}
