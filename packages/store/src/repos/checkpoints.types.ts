// Checkpoints of the engine.
// Part of the store's public types (types.ts re-exports every one).

import type { Revision } from "./shared.types.js";

/** Opaque checkpoint blobs by revision; the engine owns their format and verifies them. */
export interface CheckpointRepository {
  /** Revisions of the stored checkpoints, newest first. */
  list(): Promise<Revision[]>;
  /** The bytes of one checkpoint; null when it was removed meanwhile. */
  read(revision: Revision): Promise<Uint8Array | null>;
  /** Stores (or replaces) the checkpoint of `revision` and removes all but the newest `keep`. */
  write(revision: Revision, bytes: Uint8Array, keep: number): Promise<void>;
}
