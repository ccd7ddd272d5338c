// The two load shapes k6 offers, re-implemented for Node: a closed loop (N virtual users, each
// issuing its next request when the previous one ends) and an open loop (constant arrival rate).
import { Latencies } from "./histogram.ts";

export interface LoadOutcome {
  latencies: Latencies;
  requests: number;
  errors: number;
  firstError?: string;
  elapsedMs: number;
}

export type Operation = (iteration: number, vu: number) => Promise<void>;

function outcome(): LoadOutcome {
  return { latencies: new Latencies(), requests: 0, errors: 0, elapsedMs: 0 };
}

function fail(out: LoadOutcome, error: unknown): void {
  out.errors++;
  out.firstError ??= error instanceof Error ? error.message : String(error);
}

/** `vus` loops until `durationMs` has passed or `iterations` in total have started. */
export async function closedLoop(vus: number, limit: { durationMs?: number; iterations?: number }, op: Operation): Promise<LoadOutcome> {
  const out = outcome();
  const started = performance.now();
  const deadline = limit.durationMs === undefined ? Infinity : started + limit.durationMs;
  const maxIterations = limit.iterations ?? Infinity;
  let next = 0;
  const vu = async (id: number): Promise<void> => {
    while (performance.now() < deadline && next < maxIterations) {
      const iteration = next++;
      const t0 = performance.now();
      try {
        await op(iteration, id);
      } catch (error) {
        fail(out, error);
      }
      out.latencies.recordMs(performance.now() - t0);
      out.requests++;
    }
  };
  await Promise.all(Array.from({ length: vus }, (_, i) => vu(i + 1)));
  out.elapsedMs = performance.now() - started;
  return out;
}

/**
 * Starts `ratePerSecond` operations per second for `durationMs`. Latency is measured from each
 * operation's scheduled start, so a server that falls behind shows up in the percentiles
 * (no coordinated omission). At most `maxInFlight` run at once; beyond that arrivals are dropped
 * and counted as errors, like k6's dropped_iterations.
 */
export async function openLoop(ratePerSecond: number, durationMs: number, maxInFlight: number, op: Operation): Promise<LoadOutcome & { dropped: number }> {
  const out = { ...outcome(), dropped: 0 };
  const started = performance.now();
  const total = Math.floor((ratePerSecond * durationMs) / 1000);
  const interval = 1000 / ratePerSecond;
  let inFlight = 0;
  const pending = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    const scheduled = started + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (inFlight >= maxInFlight) {
      // Counted as an error, but not as the first error's text: that names a failed request.
      out.dropped++;
      out.errors++;
      continue;
    }
    inFlight++;
    const run = op(i, (i % maxInFlight) + 1)
      .catch((error: unknown) => fail(out, error))
      .finally(() => {
        inFlight--;
        out.requests++;
        out.latencies.recordMs(performance.now() - scheduled);
        pending.delete(run);
      });
    pending.add(run);
  }
  await Promise.all(pending);
  out.elapsedMs = performance.now() - started;
  return out;
}
