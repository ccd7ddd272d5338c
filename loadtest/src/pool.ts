// Bounded concurrency and a progress bar that stays quiet when output is not a terminal (CI logs).
import cliProgress from "cli-progress";

/** Runs `task(i)` for i in [from, to) with at most `limit` in flight; rejects on the first error. */
export async function forEachLimited(from: number, to: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = from;
  let failed: unknown;
  const worker = async (): Promise<void> => {
    while (failed === undefined && next < to) {
      const i = next++;
      try {
        await task(i);
      } catch (error) {
        failed ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, to - from)) }, worker));
  if (failed !== undefined) throw failed;
}

export interface Progress {
  start(label: string, total: number, done?: number): void;
  increment(by?: number): void;
  stop(): void;
}

export function progress(enabled: boolean): Progress {
  if (!enabled) return { start: () => undefined, increment: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { format: "{label} [{bar}] {value}/{total} {percentage}% | {eta_formatted} left", hideCursor: true, clearOnComplete: false, etaBuffer: 200 },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  return {
    start: (label, total, done = 0) => {
      if (running) bar.stop();
      bar.start(total, done, { label: label.padEnd(14) });
      running = true;
    },
    increment: (by = 1) => bar.increment(by),
    stop: () => {
      if (running) bar.stop();
      running = false;
    },
  };
}
