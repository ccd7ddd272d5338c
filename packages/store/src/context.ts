// Shared state of one open store, handed to every repository.
import type { Db } from "./db/db.js";
import type { RevisionNumbering } from "./revisions.js";
import type { TokenCodec } from "./types.js";

export interface StoreContext {
  db: Db;
  /**
   * Where snapshots and checkpoints are read: a read replica's pool with `readDatabaseUrl`, else
   * `db`. Never used for the change feed, the head or writes (they need the primary).
   */
  readDb: Db;
  domain: string;
  platformId: string;
  depthLimit: number;
  pollIntervalMs: number;
  storeId: string;
  /** NOTIFY channel of this schema's change feed. */
  channel: string;
  tokens: TokenCodec;
  /** Numbers committed change-feed entries (one per open store: its passes batch its writers). */
  revisions: RevisionNumbering;
  /** The store's clock (epoch ms): judges grant expiries. */
  now: () => number;
}

export const feedChannel = (schema: string): string => `gh_feed_${schema}`.slice(0, 63);
