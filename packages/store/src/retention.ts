// Change-feed retention: gh_changes keeps every change a starting replica may still replay, i.e.
// everything after the oldest kept graph checkpoint, plus a margin for a replica that listed the
// checkpoints just before a newer one replaced its choice. Nothing is deleted while no checkpoint
// exists: without one the rule cannot tell which changes still matter.
import type { ChangeFeed, Revision } from "./types.js";

/**
 * The revision retention may delete through, or null to delete nothing: the oldest checkpoint
 * minus the margin, and never past `neededRevision` (the revision a running follower has applied,
 * whose next changes it still has to read).
 */
export function retentionHorizon(checkpointRevisions: readonly Revision[], marginRevisions: number, neededRevision?: Revision): Revision | null {
  if (checkpointRevisions.length === 0) return null;
  let through = Math.min(...checkpointRevisions) - marginRevisions;
  if (neededRevision !== undefined) through = Math.min(through, neededRevision);
  return through > 0 ? through : null;
}

export interface FeedRetentionOptions {
  /** Revisions of the checkpoints replicas may load (the engines' checkpoint store). */
  checkpointRevisions(): Promise<Revision[]>;
  /** Changes kept before the oldest checkpoint. */
  marginRevisions: number;
  /** The revision the running follower has applied: nothing after it is deleted. */
  neededRevision?(): Revision;
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
      const through = retentionHorizon(await options.checkpointRevisions(), options.marginRevisions, options.neededRevision?.());
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
