// A store context ("a process") on a schema of its own, for tests that drive the write path
// directly (runWrite) and so can hold a write transaction open or interleave statements by hand.
import type { StoreContext } from "../../src/context.js";
import { feedChannel } from "../../src/context.js";
import type { Db } from "../../src/db/db.js";
import { openPg } from "../../src/db/pg.js";
import { openPglite } from "../../src/db/pglite.js";
import { migrate } from "../../src/migrations.js";
import { RevisionNumbering } from "../../src/revisions.js";
import { dropSchema, randomSchemaName, type TestBackend } from "../../src/testing.js";
import { tokenCodec } from "../../src/tokens.js";

export interface OpenedContext {
  ctx: StoreContext;
  schema: string;
  close(): Promise<void>;
}

/**
 * Opens `schema` (a new one by default) and migrates it. `close` stops the numbering, closes the
 * connections and, when `own` (the default), drops a Postgres schema.
 */
export async function openWriteContext(backend: TestBackend, schema = randomSchemaName(), own = true): Promise<OpenedContext> {
  const db: Db = backend.name === "pg" ? openPg({ databaseUrl: backend.databaseUrl, schema, poolSize: 24 }) : await openPglite({ schema });
  await migrate(db);
  const [meta] = await db.query<{ value: string }>("SELECT value FROM gh_meta WHERE key = 'store_id'");
  const ctx: StoreContext = {
    db,
    readDb: db,
    domain: "redhat",
    platformId: "local",
    depthLimit: 5,
    pollIntervalMs: 20,
    storeId: meta!.value,
    channel: feedChannel(schema),
    tokens: tokenCodec(meta!.value),
    revisions: new RevisionNumbering(db, feedChannel(schema)),
    now: Date.now,
  };
  return {
    ctx,
    schema,
    async close() {
      await ctx.revisions.close();
      await db.close();
      if (own && backend.name === "pg") await dropSchema(backend.databaseUrl, schema);
    },
  };
}
