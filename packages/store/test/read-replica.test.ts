// DATABASE_READ_URL: snapshots and checkpoints are read through the read pool, the change feed
// and the head through the primary. A unit test with a recording read pool, and on Postgres a
// store whose read URL is the same database (a replica behaves the same, only older).
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { StoreContext } from "../src/context.js";
import { feedChannel } from "../src/context.js";
import type { Db } from "../src/db/db.js";
import { openPglite } from "../src/db/pglite.js";
import { changeFeed } from "../src/feed.js";
import { isStoreError, openStore } from "../src/index.js";
import { migrate } from "../src/migrations.js";
import { RevisionNumbering } from "../src/revisions.js";
import { checkpointRepository } from "../src/repos/checkpoints.js";
import { dropSchema, randomSchemaName, testBackends } from "../src/testing.js";
import { tokenCodec } from "../src/tokens.js";

const backends = await testBackends();
const pgBackend = backends.find((b) => b.name === "pg");

/** A Db that records which of its methods were used. */
function recording(db: Db, log: string[], name: string): Db {
  return {
    ...db,
    query: (sql, params) => (log.push(`${name}.query`), db.query(sql, params)),
    transaction: (fn) => (log.push(`${name}.transaction`), db.transaction(fn)),
    readTransaction: () => (log.push(`${name}.readTransaction`), db.readTransaction()),
    listen: (channel, onNotify, onLost) => (log.push(`${name}.listen`), db.listen(channel, onNotify, onLost)),
  };
}

describe("read pool routing", () => {
  it("the snapshot and checkpoint reads use the read pool; the head, the feed and writes the primary", async () => {
    const base = await openPglite({ schema: "gh_read_unit" });
    try {
      await migrate(base);
      const log: string[] = [];
      const ctx: StoreContext = {
        db: recording(base, log, "primary"),
        readDb: recording(base, log, "read"),
        domain: "redhat",
        platformId: "local",
        depthLimit: 5,
        pollIntervalMs: 20,
        storeId: "s",
        channel: feedChannel("gh_read_unit"),
        tokens: tokenCodec("s"),
        revisions: new RevisionNumbering(base, feedChannel("gh_read_unit")),
        now: Date.now,
      };
      const feed = changeFeed(ctx, new Set());
      const checkpoints = checkpointRepository(ctx);
      await checkpoints.write(0, new Uint8Array([1, 2, 3]), 2);
      expect(log.splice(0)).toEqual(["primary.transaction"]);

      const snap = await feed.snapshot();
      for await (const batch of snap.batches) void batch;
      await checkpoints.list();
      expect(await checkpoints.read(0)).toEqual(new Uint8Array([1, 2, 3]));
      // list, then read: the checkpoint's row and its one part.
      expect(log.splice(0)).toEqual(["read.readTransaction", "read.query", "read.query", "read.query"]);

      await feed.headRevision();
      await feed.changesSince(0);
      expect(log.splice(0)).toEqual(["primary.query", "primary.query"]);
    } finally {
      await base.close();
    }
  });

  it("a read URL without a primary URL is refused", async () => {
    const err = await openStore({ readDatabaseUrl: "postgres://replica/db" }).catch((e: unknown) => e);
    expect(isStoreError(err, "invalid-argument")).toBe(true);
  });
});

describe.runIf(pgBackend)("read URL on Postgres", () => {
  it("snapshots come through the read pool's own connections and match the primary's state", async () => {
    const databaseUrl = (pgBackend as { databaseUrl: string }).databaseUrl;
    const schema = randomSchemaName();
    const store = await openStore({ databaseUrl, readDatabaseUrl: databaseUrl, schema });
    try {
      await store.tenants.bootstrap("rr");
      const { revision } = await store.relationships.write("rr", {
        touch: [{ resourceType: "hbi/host", resourceId: "h1", relation: "t_workspace", subjectType: "rbac/workspace", subjectId: "w" }],
      });
      const snap = await store.feed.snapshot();
      const keys: string[] = [];
      for await (const batch of snap.batches) for (const r of batch) keys.push(`${r.resourceType}:${r.resourceId}`);
      expect(snap.revision).toBe(revision);
      expect(keys).toContain("hbi/host:h1");
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [`gatehouse-store-read:${schema}`]);
        expect(rows[0].n).toBeGreaterThan(0);
      } finally {
        await client.end();
      }
    } finally {
      await store.close();
      await dropSchema(databaseUrl, schema);
    }
  });
});
