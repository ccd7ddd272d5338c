// Periodic cleanup of time-bound grants: deletes binding subjects whose expiry has passed (and
// their tuples) so storage and the graphs do not keep dead grants; marks cross-account requests
// past their end date expired and writes the grants of approved ones whose start date has come.
// Answers never wait for it: every evaluation already ignores what expired by its evaluation time.
import type { Store } from "@gatehouse/store";
import type { Logger } from "@gatehouse/telemetry";

export interface ExpirySweep {
  /** Runs one sweep now (also what the timer does); resolves with how many subjects it removed. */
  runOnce(): Promise<number>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/** Sweeps every `intervalMs` (0 = never; `runOnce` still works). Failures are logged, never thrown. */
export function startExpirySweep(store: Store, intervalMs: number, logger: Logger): ExpirySweep {
  let running: Promise<number> | null = null;
  const runOnce = (): Promise<number> => {
    running ??= store.roleBindings
      .removeExpired()
      .then(async ({ removed, revisions }) => {
        if (removed > 0) logger.info({ removed, revisions }, "expired role-binding subjects removed");
        // Cross-account requests: past their end expired, approved ones whose start came granted.
        const requests = await store.crossAccount.sweep();
        if (requests.expired + requests.granted > 0) logger.info(requests, "cross-account requests expired or started");
        return removed;
      })
      .catch((error: unknown) => {
        logger.warn({ err: error }, "expired role-binding sweep failed; retrying at the next interval");
        return 0;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = intervalMs > 0 ? setInterval(() => void runOnce(), intervalMs) : null;
  timer?.unref();
  return {
    runOnce,
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
