// Settings of the store's own Postgres sessions (pool, transactions, listeners).
import { afterAll, describe, expect, it } from "vitest";
import { openPg } from "../src/db/pg.js";
import { dropSchema, randomSchemaName, testBackends } from "../src/testing.js";

const pg = (await testBackends()).find((b) => b.name === "pg");

describe.skipIf(!pg)("Postgres sessions", () => {
  const schema = randomSchemaName();
  const db = pg?.name === "pg" ? openPg({ databaseUrl: pg.databaseUrl, schema, poolSize: 2 }) : undefined;
  afterAll(async () => {
    await db?.close();
    if (pg?.name === "pg") await dropSchema(pg.databaseUrl, schema);
  });

  // JIT compiled the change-feed read (its plan misjudged the one-row gh_revision table) for ~115 ms
  // on every poll; the store's statements never gain from it.
  it("run without JIT, in queries and in transactions", async () => {
    expect(await db!.query<{ jit: string }>("SHOW jit")).toEqual([{ jit: "off" }]);
    expect(await db!.transaction((tx) => tx.query<{ jit: string }>("SHOW jit"))).toEqual([{ jit: "off" }]);
  });
});
