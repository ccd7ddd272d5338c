// What an engine thread other than the first reads its graph from: the shared base and the commits
// the first thread posts (threads/pool.ts), in the order it applied them.
import type { Store } from "@gatehouse/store";
import type { CheckpointStore } from "../graph/checkpoint.js";
import type { ChangeBatch, GraphSource } from "../graph/source.js";
import { storeGraphSource } from "../graph/store-source.js";
import type { ThreadMetrics } from "../metrics.js";
import type { SharedBase } from "./shared-graph.js";

/**
 * Messages of the first thread to the others, in order. `metrics`: asks for the thread's metrics;
 * `metrics-all`: every thread's, the answer to the thread's `metrics-request` (a scrape it took).
 * `fail`: the thread fails as a defect would (tests, drills). `collect`: a full garbage collection,
 * where the process exposes one (`--expose-gc`: benchmarks measuring what each thread holds).
 */
export type ThreadMessage =
  | { type: "base"; base: SharedBase }
  | { type: "collect"; id: number }
  | { type: "batch"; batch: ChangeBatch }
  | { type: "metrics"; id: number }
  | { type: "metrics-all"; id: number; threads: ThreadMetrics[] }
  | { type: "fail" }
  | { type: "stop" };

/** An engine thread's inputs (EngineConfig.thread). */
export interface ThreadRole {
  source: GraphSource;
  /** The shared base as the one checkpoint to start from. */
  checkpoints: CheckpointStore;
  /** A newer shared base replaces the graph (at its revision, the one applied then). */
  onBase(listener: (base: SharedBase) => void): void;
  /** Every thread's metrics, asked of the first thread (the `/metrics` of a scrape this thread took). */
  allMetrics?(): Promise<ThreadMetrics[]>;
}

/**
 * The thread's side of the messages: `receive` takes each in order. Batches that arrive before the
 * graph follows are kept and delivered to the follower (those after its start revision).
 */
export function threadRole(store: Store): ThreadRole & { receive(message: ThreadMessage): void } {
  let base: SharedBase | undefined;
  const early: ChangeBatch[] = [];
  let follower: ((batch: ChangeBatch) => void) | undefined;
  let baseListener: ((base: SharedBase) => void) | undefined;
  const fromStore = storeGraphSource(store);
  const source: GraphSource = {
    ...fromStore,
    prunedThrough: async () => 0,
    snapshot: () => Promise.reject(new Error("an engine thread starts from the shared graph")),
    follow(fromRevision, onCommit) {
      for (const batch of early.splice(0)) if (batch.revision > fromRevision) onCommit(batch);
      follower = onCommit;
      return {
        stop() {
          follower = undefined;
        },
      };
    },
  };
  const checkpoints: CheckpointStore = {
    location: "shared memory",
    inProcess: true,
    list: async () => (base ? [{ key: "shared", revision: base.revision }] : []),
    read: async () => {
      if (!base) throw new Error("no shared graph yet");
      return new Uint8Array(base.buffer);
    },
    write: () => Promise.reject(new Error("engine threads write no checkpoints")),
  };
  return {
    source,
    checkpoints,
    onBase(listener) {
      baseListener = listener;
    },
    receive(message) {
      if (message.type === "batch") {
        if (follower) follower(message.batch);
        else early.push(message.batch);
      } else if (message.type === "base") {
        // Batches kept so far stay: a load may have begun from the previous base (the graph skips
        // the batches its revision already holds).
        base = message.base;
        if (follower) baseListener?.(message.base);
      }
    },
  };
}
