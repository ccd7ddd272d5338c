// node-postgres backend: a pool for queries and transactions, one dedicated client per listener.
import pg from "pg";
import type { Db, Queryable, Row, Subscription } from "./db.js";
import { quoteIdent } from "./db.js";
import { fromDriverError } from "../errors.js";
import { tracedQuery } from "./tracing.js";

export interface PgOptions {
  databaseUrl: string;
  schema: string;
  poolSize: number;
  /** Names the pool in `application_name` (e.g. `read` for the read-replica pool). */
  name?: string;
}

function clientConfig(o: PgOptions, applicationName: string): pg.ClientConfig {
  return {
    connectionString: o.databaseUrl,
    // search_path per connection keeps every query schema-relative (tests use one schema each).
    // jit off: the store's statements are short lookups, and the planner's guess for the one-row
    // gh_revision table (about 1,800 rows until analysed) put the change-feed read past
    // jit_above_cost: each poll compiled for ~115 ms and ran for ~3 ms (EXPLAIN ANALYZE).
    options: `-c search_path=${quoteIdent(o.schema)},public -c jit=off`,
    application_name: applicationName,
  };
}

function asQueryable(c: pg.Pool | pg.PoolClient | pg.Client, schema: string): Queryable {
  return {
    query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]> {
      return tracedQuery("postgresql", schema, sql, async () => (await c.query(sql, params as unknown[] | undefined)).rows as T[]);
    },
  };
}

export function openPg(o: PgOptions): Db {
  const pool = new pg.Pool({ ...clientConfig(o, `gatehouse-store${o.name ? `-${o.name}` : ""}:${o.schema}`), max: o.poolSize });
  // An idle client killed by the server emits on the pool; without a handler Node would crash.
  pool.on("error", () => undefined);
  const q = asQueryable(pool, o.schema);

  /**
   * A client out of the pool. The pool listens for 'error' only on idle clients: one checked out
   * (in a transaction between statements) that the server terminates (57P01 on a restart, a
   * killed backend) would emit 'error' with no listener and end the process. `broken` holds that
   * error so the client is destroyed, not returned, on release.
   */
  async function checkOut(): Promise<{ client: pg.PoolClient; release: (error?: unknown) => void }> {
    const client = await pool.connect().catch((e: unknown) => {
      throw fromDriverError(e);
    });
    let lost: Error | undefined;
    const onError = (e: Error) => {
      lost ??= e;
    };
    client.on("error", onError);
    return {
      client,
      release(error?: unknown) {
        client.removeListener("error", onError);
        const reason = lost ?? (error instanceof Error ? error : undefined);
        client.release(reason);
      },
    };
  }

  async function inClient<T>(begin: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const { client, release } = await checkOut();
    let broken: unknown;
    try {
      await client.query(begin);
      const value = await fn(asQueryable(client, o.schema));
      await client.query("COMMIT");
      return value;
    } catch (e) {
      await client.query("ROLLBACK").catch((rollbackError: unknown) => {
        broken = rollbackError;
      });
      throw fromDriverError(e);
    } finally {
      release(broken);
    }
  }

  return {
    backend: "pg",
    schema: o.schema,
    async query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]> {
      try {
        return await q.query<T>(sql, params);
      } catch (e) {
        throw fromDriverError(e);
      }
    },
    transaction: (fn) => inClient("BEGIN", fn),
    async readTransaction() {
      const { client, release } = await checkOut();
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      } catch (e) {
        release(e);
        throw fromDriverError(e);
      }
      let released = false;
      return {
        tx: asQueryable(client, o.schema),
        async release() {
          if (released) return;
          released = true;
          let broken: Error | undefined;
          await client.query("COMMIT").catch((e: unknown) => {
            broken = e instanceof Error ? e : new Error(String(e));
          });
          release(broken);
        },
      };
    },
    async listen(channel, onNotify, onLost): Promise<Subscription> {
      const client = new pg.Client(clientConfig(o, `gatehouse-follower:${o.schema}`));
      let closed = false;
      const lost = (e: unknown) => {
        if (closed) return;
        closed = true;
        client.end().catch(() => undefined);
        onLost(e);
      };
      client.on("error", lost);
      client.on("end", () => lost(new Error("listener connection ended")));
      client.on("notification", (n) => {
        if (n.channel === channel) onNotify(n.payload ?? "");
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${quoteIdent(channel)}`);
      } catch (e) {
        closed = true;
        await client.end().catch(() => undefined);
        throw fromDriverError(e);
      }
      return {
        async close() {
          if (closed) return;
          closed = true;
          await client.end().catch(() => undefined);
        },
      };
    },
    async withLock(lockKey, fn) {
      // A dedicated client, not from the pool: its search_path may point at a schema that does
      // not exist yet, which is fine until the first table access.
      const client = new pg.Client(clientConfig(o, `gatehouse-migrate:${o.schema}`));
      client.on("error", () => undefined);
      await client.connect().catch((e: unknown) => {
        throw fromDriverError(e);
      });
      try {
        await client.query("SELECT pg_advisory_lock(hashtext($1))", [lockKey]);
        try {
          return await fn(asQueryable(client, o.schema));
        } finally {
          await client.query("SELECT pg_advisory_unlock(hashtext($1))", [lockKey]).catch(() => undefined);
        }
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    async close() {
      await pool.end();
    },
  };
}
