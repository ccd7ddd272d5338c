// Process entry: the SDK reads AUTHZ_* from the environment; the hosts live in Postgres at
// DATABASE_URL (or an in-memory PGlite without it), in table HOSTS_TABLE (default inventory_hosts);
// HOSTS_LIST_PERMISSION overrides the workspace permission the host list filters by.
import { PGlite } from "@electric-sql/pglite";
import { createAuthzClient } from "@gatehouse/client";
import pg from "pg";
import { Inventory, type SqlClient } from "./inventory.js";
import { buildServer } from "./server.js";

const url = process.env["DATABASE_URL"];
const pool = url ? new pg.Pool({ connectionString: url, max: 16 }) : null;
// An idle client the server drops (a restart, a killed backend) emits on the pool; unhandled, it
// would end the process. The next query takes a new connection (or fails, answered as an error).
pool?.on("error", (error) => console.error(`inventory database connection lost: ${error.message}`));
const db: SqlClient & { close(): Promise<void> } = pool
  ? { query: <R>(text: string, params?: unknown[]) => pool.query(text, params) as unknown as Promise<{ rows: R[] }>, close: () => pool.end() }
  : await PGlite.create();
const inventory = new Inventory(db, { ...(process.env["HOSTS_TABLE"] ? { table: process.env["HOSTS_TABLE"] } : {}) });
await inventory.migrate();
const listPermission = process.env["HOSTS_LIST_PERMISSION"];
const server = buildServer({ port: Number(process.env["PORT"] ?? 8002), authz: createAuthzClient(), inventory, ...(listPermission ? { listPermission } : {}) });
await server.start();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void server.stop().finally(() => void db.close().finally(() => process.exit(0))));
