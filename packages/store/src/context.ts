// Shared state of one open store, handed to every repository.
import type { Db } from "./db/db.js";
import type { TokenCodec } from "./types.js";

export interface StoreContext {
  db: Db;
  domain: string;
  platformId: string;
  depthLimit: number;
  pollIntervalMs: number;
  storeId: string;
  /** NOTIFY channel of this schema's change feed. */
  channel: string;
  tokens: TokenCodec;
}

export const feedChannel = (schema: string): string => `gh_feed_${schema}`.slice(0, 63);
