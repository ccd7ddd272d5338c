// The host table on both backends: PGlite always, Postgres at DATABASE_URL (its own schema).
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { type Host, Inventory, type SqlClient } from "@gatehouse/example-host-inventory";
import { DEFAULT_TEST_DATABASE_URL, dropSchema, randomSchemaName } from "@gatehouse/store/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

interface Backend {
  db: SqlClient;
  table: string;
  close(): Promise<void>;
}

async function pglite(): Promise<Backend> {
  const db = new PGlite();
  return { db, table: "inventory_hosts", close: () => db.close() };
}

async function postgres(): Promise<Backend> {
  const url = process.env["DATABASE_URL"] ?? DEFAULT_TEST_DATABASE_URL;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const schema = randomSchemaName("gh_inv");
  const db: SqlClient = { query: <R>(text: string, params?: unknown[]) => pool.query(text, params) as unknown as Promise<{ rows: R[] }> };
  return {
    db,
    table: `${schema}.hosts`,
    close: async () => {
      await pool.end();
      await dropSchema(url, schema);
    },
  };
}

describe.each([
  ["pglite", pglite],
  ["postgres", postgres],
] as const)("host inventory on %s", (_name, open) => {
  let backend: Backend;
  let inventory: Inventory;
  const [w1, w2, w3] = [randomUUID(), randomUUID(), randomUUID()];
  const host = (orgId: string, n: number, workspaceId: string): Host => ({ orgId, id: `h-${String(n).padStart(3, "0")}`, name: `host ${n}`, workspaceId });

  beforeAll(async () => {
    backend = await open();
    inventory = new Inventory(backend.db, { table: backend.table });
    await inventory.migrate();
    await inventory.migrate(); // idempotent: an existing table (e.g. the load test's) is kept
    const hosts = Array.from({ length: 25 }, (_, n) => host("o1", n, [w1, w2, w3][n % 3]!));
    await inventory.addHosts([...hosts, host("o2", 1, w1)]);
  });
  afterAll(async () => {
    await backend?.close();
  });

  it("lists the organisation's hosts in the given workspaces, paged by id, with the full count", async () => {
    const first = await inventory.hostsIn("o1", [w1, w2], { limit: 5, offset: 0 });
    expect(first.count).toBe(17);
    expect(first.data.map((h) => h.id)).toEqual(["h-000", "h-001", "h-003", "h-004", "h-006"]);
    const last = await inventory.hostsIn("o1", [w1, w2], { limit: 5, offset: 15 });
    expect(last.data.map((h) => h.id)).toEqual(["h-022", "h-024"]);
    expect(last.data[0]).toEqual({ orgId: "o1", id: "h-022", name: "host 22", workspaceId: w2 });
  });

  it("never lists another organisation's host, even in a listed workspace", async () => {
    expect((await inventory.hostsIn("o2", [w1, w2, w3], { limit: 100, offset: 0 })).data.map((h) => h.id)).toEqual(["h-001"]);
    expect(await inventory.host("o2", "h-002")).toBeUndefined();
    expect(await inventory.host("o1", "h-002")).toMatchObject({ workspaceId: w3 });
  });

  it("answers an empty workspace list without a query, and 'all' with every host of the organisation", async () => {
    expect(await inventory.hostsIn("o1", [], { limit: 10, offset: 0 })).toEqual({ count: 0, data: [] });
    expect((await inventory.hostsIn("o1", "all", { limit: 1, offset: 0 })).count).toBe(25);
  });

  it("moves a host with one upsert, and writes nothing of a batch with a bad row", async () => {
    await inventory.addHosts([host("o1", 0, w3)]);
    expect(await inventory.host("o1", "h-000")).toMatchObject({ workspaceId: w3 });
    await expect(inventory.addHosts([host("o1", 90, w1), host("o1", 91, "not-a-uuid")])).rejects.toThrow();
    expect(await inventory.host("o1", "h-090")).toBeUndefined();
  });
});

it("refuses a table name that is not a plain identifier", () => {
  const db: SqlClient = { query: async () => ({ rows: [] }) };
  for (const table of ["hosts; DROP TABLE x", "a.b.c", "Hosts", ""]) expect(() => new Inventory(db, { table })).toThrow(/Invalid host table name/);
});

it("serves the load test generator's host table (loadtest/src/app-db.ts: uuid workspace ids, org_id added by default)", async () => {
  const db = new PGlite();
  try {
    await db.exec(`CREATE SCHEMA loadtest;
      CREATE TABLE loadtest.lt_hosts (id text PRIMARY KEY, workspace_id uuid NOT NULL, name text);
      ALTER TABLE loadtest.lt_hosts ADD COLUMN IF NOT EXISTS org_id text NOT NULL DEFAULT 'lt-org-1'`);
    const [w1, w2] = [randomUUID(), randomUUID()];
    await db.query("INSERT INTO loadtest.lt_hosts (id, workspace_id, name) SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[])", [
      ["b", "a", "c"],
      [w1, w1, w2],
      ["hb", "ha", "hc"],
    ]);
    const inventory = new Inventory(db, { table: "loadtest.lt_hosts" });
    await inventory.migrate();
    expect(await inventory.hostsIn("lt-org-1", [w1], { limit: 10, offset: 0 })).toEqual({
      count: 2,
      data: [
        { orgId: "lt-org-1", id: "a", name: "ha", workspaceId: w1 },
        { orgId: "lt-org-1", id: "b", name: "hb", workspaceId: w1 },
      ],
    });
  } finally {
    await db.close();
  }
});
