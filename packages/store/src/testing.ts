// Test helpers for packages that run against the store: a store in its own throw-away schema
// (real Postgres) or in memory (PGlite), and the list of backends a conformance run covers.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openStore } from "./store.js";
import type { Store, StoreConfig } from "./types.js";

export const DEFAULT_TEST_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";

export type TestBackend = { name: "pglite" } | { name: "pg"; databaseUrl: string };

/** A store whose `close()` also drops its schema (pg). */
export interface TestStore extends Store {
  readonly schema: string;
}

const PGLITE_TEST_SCHEMA = "gh_test";

export function randomSchemaName(prefix = "gh_test"): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** Opens a store on a fresh schema (pg) or a fresh in-memory database (PGlite). */
export async function openTestStore(backend: TestBackend, config: Omit<StoreConfig, "databaseUrl" | "schema"> = {}): Promise<TestStore> {
  if (backend.name === "pglite") {
    // Each in-memory database is its own, so one schema name serves all (and one migrated copy, pglite.ts).
    const schema = PGLITE_TEST_SCHEMA;
    const store = await openStore({ ...config, schema });
    return Object.assign(store, { schema });
  }
  const schema = randomSchemaName();
  const store = await openStore({ ...config, databaseUrl: backend.databaseUrl, schema });
  const close = store.close.bind(store);
  return Object.assign(store, {
    schema,
    async close() {
      await close();
      await dropSchema(backend.databaseUrl, schema);
    },
  });
}

/** One statement on a connection of its own. */
async function adminQuery(databaseUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  await adminQuery(databaseUrl, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** A database of its own on the server of `databaseUrl`, for a test that needs a whole one (not a schema). */
export interface TestDatabase {
  readonly name: string;
  /** `databaseUrl` pointing at the new database. */
  readonly url: string;
  /** Drops it, ending any connection left open. */
  drop(): Promise<void>;
}

export async function createTestDatabase(databaseUrl: string, prefix = "gh_test"): Promise<TestDatabase> {
  const name = randomSchemaName(prefix);
  await adminQuery(databaseUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => adminQuery(databaseUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/**
 * PGlite always; real Postgres at DATABASE_URL (or the local default) when it answers. Under
 * CI=true Postgres is always included, so an unreachable server fails the run instead of being
 * left out.
 */
export async function testBackends(): Promise<TestBackend[]> {
  const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const backends: TestBackend[] = [{ name: "pglite" }];
  if (process.env.CI === "true" || (await reachable(databaseUrl))) backends.push({ name: "pg", databaseUrl });
  else console.warn(`Postgres at ${databaseUrl} is unreachable: running the store suite on PGlite only.`);
  return backends;
}

async function reachable(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from "./private-postgres.js";
