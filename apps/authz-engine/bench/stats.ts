export const ms = (n: number) => `${n.toFixed(3)} ms`;

/** Cumulative buckets, sum and count of gatehouse_engine_feed_apply_lag_seconds from a /metrics text. */
export interface ScrapedHistogram {
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
}

export function lagHistogram(text: string, name = "gatehouse_engine_feed_apply_lag_seconds"): ScrapedHistogram {
  const buckets: { le: number; count: number }[] = [];
  let sum = 0;
  let count = 0;
  for (const line of text.split("\n")) {
    const bucket = line.match(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`));
    if (bucket) buckets.push({ le: bucket[1] === "+Inf" ? Infinity : Number(bucket[1]), count: Number(bucket[2]) });
    else if (line.startsWith(`${name}_sum `)) sum = Number(line.slice(name.length + 5));
    else if (line.startsWith(`${name}_count `)) count = Number(line.slice(name.length + 7));
  }
  return { buckets, sum, count };
}

/** Observations between two scrapes, with Prometheus-style (histogram_quantile) interpolation. */
export function histogramDelta(before: ScrapedHistogram, after: ScrapedHistogram) {
  const buckets = after.buckets.map((b, i) => ({ le: b.le, count: b.count - (before.buckets[i]?.count ?? 0) }));
  const count = after.count - before.count;
  return {
    count,
    sum: after.sum - before.sum,
    quantile(q: number): number {
      const rank = q * count;
      let lower = 0;
      let below = 0;
      for (const b of buckets) {
        if (b.count >= rank) {
          if (b.le === Infinity) return lower;
          return lower + ((b.le - lower) * (rank - below)) / Math.max(1, b.count - below);
        }
        lower = b.le;
        below = b.count;
      }
      return Number.NaN;
    },
  };
}
