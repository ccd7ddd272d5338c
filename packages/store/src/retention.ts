// Change-feed retention: gh_changes keeps every change a starting replica may still replay, i.e.
// everything after the oldest kept graph checkpoint, plus a margin for a replica that listed the
// checkpoints just before a newer one replaced its choice. Nothing is deleted while no checkpoint
// exists: without one the rule cannot tell which changes still matter.
import type { ChangeFeed, Revision } from "./types.js";

/** The revision retention may delete through, or null to delete nothing. */
export function retentionHorizon(checkpointRevisions: readonly Revision[], marginRevisions: number): Revision | null {
  if (checkpointRevisions.length === 0) return null;
  const through = Math.min(...checkpointRevisions) - marginRevisions;
  return through > 0 ? through : null;
}

export interface FeedRetentionOptions {
  /** Revisions of the checkpoints replicas may load (the engines' checkpoint store). */
  checkpointRevisions(): Promise<Revision[]>;
  /** Changes kept before the oldest checkpoint. */
  marginRevisions: number;
  /** How often the job runs; 0 = never (runOnce only). */
  intervalMs: number;
  onPruned?(deleted: number, through: Revision): void;
  onError?(error: unknown): void;
}

export interface FeedRetentionJob {
  /** One pass; resolves with the number of changes deleted. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** Runs retention every `intervalMs`; several replicas may run it at once (pruning is idempotent). */
export function startFeedRetention(feed: ChangeFeed, options: FeedRetentionOptions): FeedRetentionJob {
  let running: Promise<number> | null = null;
  const runOnce = (): Promise<number> => {
    running ??= (async () => {
      const through = retentionHorizon(await options.checkpointRevisions(), options.marginRevisions);
      if (through === null) return 0;
      const deleted = await feed.prune(through);
      if (deleted > 0) options.onPruned?.(deleted, through);
      return deleted;
    })().finally(() => (running = null));
    return running;
  };
  const timer =
    options.intervalMs > 0
      ? setInterval(() => {
          runOnce().catch((e: unknown) => options.onError?.(e));
        }, options.intervalMs)
      : undefined;
  timer?.unref();
  return {
    runOnce,
    async stop() {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
