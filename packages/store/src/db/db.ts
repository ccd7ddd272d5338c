// The one SQL surface both backends implement. Repositories only see `Queryable` and `Db`.

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** A dedicated notification subscription (one connection on pg). */
export interface Subscription {
  close(): Promise<void>;
}

export interface Db extends Queryable {
  readonly backend: "pg" | "pglite";
  /** Schema holding the tables (already validated). */
  readonly schema: string;
  /** READ COMMITTED transaction; rolled back when `fn` throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * A REPEATABLE READ, read-only transaction kept open until `release`: every query inside sees
   * the same snapshot (used for consistent snapshot loads).
   */
  readTransaction(): Promise<{ tx: Queryable; release(): Promise<void> }>;
  /**
   * Subscribes to a NOTIFY channel. `onLost` fires when the subscription's connection dies; the
   * caller resubscribes (the follower keeps polling meanwhile).
   */
  listen(channel: string, onNotify: (payload: string) => void, onLost: (error: unknown) => void): Promise<Subscription>;
  /** Runs `fn` with a session that holds a session-level advisory lock (migrations). */
  withLock<T>(lockKey: string, fn: (session: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Schema names are interpolated into SQL, so they are restricted to plain identifiers. */
export function validSchemaName(schema: string): boolean {
  return /^[a-z_][a-z0-9_]{0,50}$/.test(schema);
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
