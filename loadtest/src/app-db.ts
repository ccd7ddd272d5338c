// The application's own data (Pattern 2, step 2): a host table carrying each host's workspace,
// in Postgres (own schema) or embedded PGlite. Gatehouse never sees this table.
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

export interface AppDb {
  readonly kind: "postgres" | "pglite";
  /** Creates the table; `orgId` fills its org_id column (the example host inventory serves it by organisation). */
  ensureTable(orgId: string): Promise<void>;
  insertHosts(rows: { id: string; workspaceId: string; name: string }[]): Promise<void>;
  countHosts(): Promise<number>;
  /** VACUUM ANALYZE after a bulk load: planner statistics and index-only scans, as in steady state. */
  analyze(): Promise<void>;
  /** Pattern 2's filtered query: how many hosts the caller may see, and the first page of them. */
  filtered(workspaceIds: string[], pageSize: number): Promise<{ count: number; page: string[] }>;
  close(): Promise<void>;
}

const SCHEMA = "loadtest";
const DDL = `
  CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
  CREATE TABLE IF NOT EXISTS ${SCHEMA}.lt_hosts (id text PRIMARY KEY, workspace_id uuid NOT NULL, name text);
  CREATE INDEX IF NOT EXISTS lt_hosts_workspace_idx ON ${SCHEMA}.lt_hosts (workspace_id, id);
`;
const INSERT = `INSERT INTO ${SCHEMA}.lt_hosts (id, workspace_id, name)
  SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[]) ON CONFLICT (id) DO NOTHING`;
const COUNT = `SELECT count(*)::int AS n FROM ${SCHEMA}.lt_hosts WHERE workspace_id = ANY($1::uuid[])`;
const PAGE = `SELECT id FROM ${SCHEMA}.lt_hosts WHERE workspace_id = ANY($1::uuid[]) ORDER BY id LIMIT $2`;

interface Queryable {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

function over(kind: AppDb["kind"], db: Queryable, exec: (sql: string) => Promise<unknown>, close: () => Promise<void>): AppDb {
  return {
    kind,
    ensureTable: async (orgId) => {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(orgId)) throw new Error(`Refusing unusual organisation id '${orgId.slice(0, 64)}'`);
      await exec(DDL);
      // A constant default fills existing rows too (tables generated before the column existed).
      await exec(`ALTER TABLE ${SCHEMA}.lt_hosts ADD COLUMN IF NOT EXISTS org_id text NOT NULL DEFAULT '${orgId}'`);
    },
    insertHosts: async (rows) => {
      await db.query(INSERT, [rows.map((r) => r.id), rows.map((r) => r.workspaceId), rows.map((r) => r.name)]);
    },
    analyze: async () => {
      await exec(`VACUUM ANALYZE ${SCHEMA}.lt_hosts`);
    },
    countHosts: async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.lt_hosts`)).rows[0]?.n ?? 0,
    filtered: async (workspaceIds, pageSize) => {
      const [count, page] = await Promise.all([db.query<{ n: number }>(COUNT, [workspaceIds]), db.query<{ id: string }>(PAGE, [workspaceIds, pageSize])]);
      return { count: count.rows[0]?.n ?? 0, page: page.rows.map((r) => r.id) };
    },
    close,
  };
}

/** `url` = a postgres:// URL, or `pglite:<dir>` / `pglite:memory`. */
export async function openAppDb(url: string): Promise<AppDb> {
  if (url.startsWith("pglite:")) {
    const where = url.slice("pglite:".length);
    const db = await PGlite.create(where === "memory" ? undefined : where);
    return over(
      "pglite",
      db,
      (sql) => db.exec(sql),
      () => db.close(),
    );
  }
  // A small pool: the filtered query runs the count and the page concurrently per virtual user.
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  pool.on("error", () => undefined); // an idle client dropped by the server must not crash the driver
  await pool.query("SELECT 1").catch((error: unknown) => {
    throw new Error(`Cannot reach the application database at ${url.replace(/\/\/[^@]*@/, "//***@")}: ${(error as Error).message}`);
  });
  return over(
    "postgres",
    pool,
    (sql) => pool.query(sql),
    () => pool.end(),
  );
}

/** Creates the database when missing (the server's store and the app table live in it). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Refusing unusual database name '${name}'`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  client.on("error", () => undefined); // a dropped connection fails the query below instead of the process
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}
