// Revision numbering (src/revisions.ts): writes commit pending entries without a shared lock and
// passes number them. Order consistent with commit order where a write observed another, entries
// of dead writers, several processes, group commit, snapshots ahead of their revision, no-ops,
// retention and rollbacks. Postgres tests hold the pass lock from a connection of their own to
// make interleavings deterministic (PGlite has one connection: its writes never interleave).
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { StoreContext } from "../src/context.js";
import type { Db } from "../src/db/db.js";
import { changeFeed } from "../src/feed.js";
import { openStore, tupleKey, type Change, type Relationship } from "../src/index.js";
import { dropSchema, randomSchemaName, testBackends, type TestBackend } from "../src/testing.js";
import { runWrite } from "../src/write.js";
import { type OpenedContext, openWriteContext } from "./support/write-context.js";

const backends = await testBackends();
const pgBackend = backends.find((b): b is Extract<TestBackend, { name: "pg" }> => b.name === "pg");

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A store context ("a process") on `schema` (a new one by default), closed after the test. */
async function openContext(backend: TestBackend, schema?: string, own = true): Promise<OpenedContext> {
  const opened = await openWriteContext(backend, schema, own);
  cleanups.push(() => opened.close());
  return opened;
}

/** A raw connection on the schema, for statements a test interleaves by hand. */
async function connect(databaseUrl: string, schema: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "numbering-test" });
  await client.connect();
  await client.query(`SET search_path TO "${schema}"`);
  cleanups.push(() => client.end());
  return client;
}

/** Holds the pass lock (as a pass in another process would) until `release`. */
async function holdPassLock(databaseUrl: string, schema: string): Promise<{ release(): Promise<void> }> {
  const c = await connect(databaseUrl, schema);
  await c.query("BEGIN");
  await c.query("SELECT head FROM gh_revision FOR UPDATE");
  return { release: async () => void (await c.query("COMMIT")) };
}

const host = (org: string, n: number | string): Relationship => ({ resourceType: "hbi/host", resourceId: `${org}-h${n}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: org });
const touch = (ctx: StoreContext, org: string, n: number | string) => runWrite(ctx, org, "test", (w) => w.touch([host(org, n)]));
const pendingEntry = (org: string, n: number | string) => [org, "test", JSON.stringify([[...Object.values(host(org, n))]]), "[]"];
const INSERT_PENDING = "INSERT INTO gh_pending (org_id, kind, touched, deleted) VALUES ($1, $2, $3::jsonb, $4::jsonb)";

/** Waits for a condition, however long it takes (the suite's hang bound ends a test that never gets there). */
async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await cond())) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * How many of the store's backends on `schema` wait on a heavyweight lock: `transactionid` for a
 * row another transaction holds, `tuple` or `transactionid` for the pass lock (the gh_revision row).
 * Tests wait for this event instead of sleeping "long enough" for a backend to block.
 */
async function lockWaiters(watcher: pg.Client, schema: string, event?: string): Promise<number> {
  const { rows } = await watcher.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND ($2::text IS NULL OR wait_event = $2)",
    [`gatehouse-store:${schema}`, event ?? null],
  );
  return rows[0]!.n;
}

function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

const count = async (db: Db, sql: string) => Number((await db.query<{ n: string }>(`SELECT (${sql})::text AS n`))[0]!.n);
const revisionsOf = async (db: Db) =>
  (await db.query<{ revision: string; org_id: string }>("SELECT revision::text, org_id FROM gh_changes ORDER BY revision")).map((r) => [Number(r.revision), r.org_id] as const);

describe.each(backends)("revision numbering on $name", (backend) => {
  it("an entry whose writer died after committing is numbered by the next writer's pass, before that write", async () => {
    const { ctx } = await openContext(backend);
    await ctx.db.query(INSERT_PENDING, pendingEntry("dead", 0)); // committed; nobody waits for it
    expect(await changeFeed(ctx, new Set()).headRevision()).toBe(0);
    const w = await touch(ctx, "live", 0);
    expect(w.revision).toBe(2);
    expect(await revisionsOf(ctx.db)).toEqual([
      [1, "dead"],
      [2, "live"],
    ]);
    expect(await count(ctx.db, "SELECT count(*) FROM gh_pending")).toBe(0);
    const [dead] = await changeFeed(ctx, new Set()).changesSince(0, 1);
    expect(dead!.touched).toEqual([host("dead", 0)]);
  });

  it("with no writer at all, the periodic sweep numbers a dead writer's entry and wakes followers", async () => {
    const { ctx } = await openContext(backend);
    const seen: Change[] = [];
    const follower = changeFeed(ctx, new Set()).follow(0, (c) => void seen.push(...c), { pollIntervalMs: 60_000 });
    cleanups.push(() => follower.stop());
    await ctx.db.query(INSERT_PENDING, pendingEntry("dead", 0));
    expect(await ctx.revisions.sweepOnce(60_000)).toBe(false); // too young: its writer may still be alive
    ctx.revisions.startSweep(20);
    await until(() => seen.length === 1); // woken by the pass's NOTIFY, not by polling
    expect(seen[0]!.revision).toBe(1);
    expect(await count(ctx.db, "SELECT count(*) FROM gh_pending")).toBe(0);
    expect(await changeFeed(ctx, new Set()).headRevision()).toBe(1);
  });

  it("a rolled-back write leaves nothing: no pending entry, no revision, no tuple", async () => {
    const { ctx } = await openContext(backend);
    await touch(ctx, "a", 0);
    const failed = await runWrite(ctx, "a", "test", async (w) => {
      await w.touch([host("a", 1)]);
      throw new Error("domain check failed");
    }).catch((e: unknown) => e);
    expect((failed as Error).message).toContain("domain check failed");
    // Rolled back after its entry was appended: the entry goes with it.
    const afterEntry = await ctx.db
      .transaction(async (tx) => {
        await tx.query(INSERT_PENDING, pendingEntry("a", 2));
        throw new Error("failed at commit");
      })
      .catch((e: unknown) => e);
    expect((afterEntry as Error).message).toContain("failed at commit");
    expect(await count(ctx.db, "SELECT count(*) FROM gh_pending")).toBe(0);
    expect(await count(ctx.db, "SELECT count(*) FROM gh_tuples")).toBe(1);
    expect((await ctx.revisions.pass()).head).toBe(1);
    expect(await revisionsOf(ctx.db)).toEqual([[1, "a"]]);
  });

  it("a no-op write returns the head; a pass with nothing pending changes nothing", async () => {
    const { ctx } = await openContext(backend);
    await touch(ctx, "a", 0);
    const noop = await runWrite(ctx, "a", "test", async (w) => w.markUnchanged());
    expect(noop.revision).toBe(1);
    expect((await ctx.revisions.pass()).head).toBe(1);
    expect(await count(ctx.db, "SELECT count(*) FROM gh_changes")).toBe(1);
  });
});

describe.runIf(pgBackend)("revision numbering with concurrent connections (Postgres)", () => {
  const databaseUrl = pgBackend?.databaseUrl ?? "";

  it("assigns revisions in commit order, not transaction-id order", async () => {
    const { ctx, schema } = await openContext(pgBackend!);
    const [c1, c2, c3, c4] = await Promise.all([1, 2, 3, 4].map(() => connect(databaseUrl, schema)));
    // Transaction ids are handed out at the first write or on request: c1 < c2 < c3.
    for (const c of [c1!, c2!, c3!]) {
      await c.query("BEGIN");
      await c.query("SELECT pg_current_xact_id()");
    }
    // Commits in the reverse order, each appending its entry after the previous one committed,
    // so each could have observed the ones before it.
    await c3!.query(INSERT_PENDING, pendingEntry("third-xid", 0));
    await c3!.query("COMMIT");
    await c2!.query(INSERT_PENDING, pendingEntry("second-xid", 0));
    await c2!.query("COMMIT");
    // c4 starts now and saw c3 and c2; c1 commits after c4's entry and saw it too.
    await c4!.query("BEGIN");
    await c4!.query(INSERT_PENDING, pendingEntry("fourth-xid", 0));
    await c4!.query("COMMIT");
    await c1!.query(INSERT_PENDING, pendingEntry("first-xid", 0));
    await c1!.query("COMMIT");
    // One pass numbers all four.
    expect((await ctx.revisions.pass()).head).toBe(4);
    expect(await revisionsOf(ctx.db)).toEqual([
      [1, "third-xid"],
      [2, "second-xid"],
      [3, "fourth-xid"],
      [4, "first-xid"],
    ]);
  });

  it("writers of different tenants conflicting on a shared public row: the one that observed the other is numbered after it", async () => {
    const { ctx, schema } = await openContext(pgBackend!);
    const shared: Relationship = { resourceType: "rbac/role", resourceId: "shared", relation: "t_inventory_hosts_read", subjectType: "rbac/principal", subjectId: "*" };
    await runWrite(ctx, null, "seed", (w) => w.touch([shared]));
    // No pass can run until both have committed, so one pass numbers both.
    const lock = await holdPassLock(databaseUrl, schema);
    const watcher = await connect(databaseUrl, schema);
    const tenantStarted = gate();
    const publicDeleted = gate();
    const tenantMayInsert = gate();
    // The tenant write starts first, so its transaction id is the lower one.
    const tenantWrite = runWrite(ctx, "b", "test", async (w) => {
      await w.touch([host("b", 0)]);
      tenantStarted.open();
      await tenantMayInsert.wait;
      // Waits for the public write's delete of the same row to commit, then observes it.
      await w.tx.query("INSERT INTO gh_tuples (org_id, resource_type, resource_id, relation, subject_type, subject_id) VALUES ('', $1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING 1", [
        shared.resourceType,
        shared.resourceId,
        shared.relation,
        shared.subjectType,
        shared.subjectId,
      ]);
    });
    await tenantStarted.wait;
    const publicWrite = runWrite(ctx, null, "test", async (w) => {
      await w.remove([shared]);
      publicDeleted.open();
      await until(async () => (await lockWaiters(watcher, schema, "transactionid")) === 1); // the tenant's insert is waiting on this row
    });
    await publicDeleted.wait;
    tenantMayInsert.open();
    await until(async () => (await count(ctx.db, "SELECT count(*) FROM gh_pending")) === 2);
    const [xids] = await ctx.db.query<{ ordered: boolean }>("SELECT (SELECT xid FROM gh_pending WHERE org_id = 'b') < (SELECT xid FROM gh_pending WHERE org_id IS NULL) AS ordered");
    expect(xids!.ordered).toBe(true); // transaction-id order would number the tenant write first
    await lock.release();
    const [pub, ten] = await Promise.all([publicWrite, tenantWrite]);
    expect(pub.revision).toBe(2);
    expect(ten.revision).toBe(3);
    expect(await count(ctx.db, "SELECT count(*) FROM gh_tuples WHERE org_id = ''")).toBe(1);
  });

  it("waiting writers do not queue on the pass lock: one backend waits, one pass numbers them all", async () => {
    const { ctx, schema } = await openContext(pgBackend!);
    const watcher = await connect(databaseUrl, schema);
    const lock = await holdPassLock(databaseUrl, schema);
    const orgs = Array.from({ length: 16 }, (_, i) => `q${i}`);
    const writes = Promise.all(orgs.map((org) => touch(ctx, org, 0)));
    await until(async () => (await count(ctx.db, "SELECT count(*) FROM gh_pending")) === orgs.length);
    // Every writer has committed and waits for its revision in this process; the one pass serving
    // them is blocked on the lock. Nothing else can queue on it any more.
    await until(() => ctx.revisions.waitingWriters === orgs.length);
    await until(async () => (await lockWaiters(watcher, schema)) >= 1);
    expect(await lockWaiters(watcher, schema)).toBe(1);
    const notified: string[] = [];
    const sub = await ctx.db.listen(
      ctx.channel,
      (p) => notified.push(p),
      () => undefined,
    );
    cleanups.push(() => sub.close());
    await lock.release();
    const written = await writes;
    expect(written.map((w) => w.revision).sort((a, b) => a - b)).toEqual(orgs.map((_, i) => i + 1));
    // One pass, one wake-up for followers: the next notification is the next write's.
    const next = await touch(ctx, "q-after", 0);
    await until(() => notified.includes(String(next.revision)));
    expect(notified).toEqual([String(orgs.length), String(next.revision)]);
  });

  it("two processes' writers (two stores on one database): no gaps, no duplicates, each token's revision holds its write", async () => {
    const schema = randomSchemaName();
    const stores = [await openStore({ databaseUrl, schema, pollIntervalMs: 50 }), await openStore({ databaseUrl, schema, pollIntervalMs: 50 })];
    cleanups.push(async () => {
      for (const s of stores) await s.close();
      await dropSchema(databaseUrl, schema);
    });
    const orgs = Array.from({ length: 12 }, (_, i) => `p${i}`);
    for (const org of orgs) await stores[0]!.tenants.bootstrap(org);
    const start = await stores[0]!.feed.headRevision();
    const perTenant = 6;
    const written = await Promise.all(
      orgs.map(async (org, i) => {
        const store = stores[i % 2]!;
        const out: number[] = [];
        for (let n = 0; n < perTenant; n++) {
          const w = await store.relationships.write(org, { touch: [host(org, n)] });
          expect(store.tokens.decode(w.token)).toBe(w.revision);
          out.push(w.revision);
        }
        return out;
      }),
    );
    const total = orgs.length * perTenant;
    expect(await stores[1]!.feed.headRevision()).toBe(start + total);
    const changes = await stores[1]!.feed.changesSince(start, 10_000);
    expect(changes.map((c) => c.revision)).toEqual(Array.from({ length: total }, (_, i) => start + 1 + i));
    const byRevision = new Map(changes.map((c) => [c.revision, c]));
    orgs.forEach((org, i) => {
      const revs = written[i]!;
      expect([...revs].sort((a, b) => a - b)).toEqual(revs);
      revs.forEach((r, n) => expect(byRevision.get(r)!.touched).toEqual([host(org, n)]));
    });
  });

  it("a writer whose entry another process's pass numbered finds its revision by its transaction id", async () => {
    const a = await openContext(pgBackend!);
    const b = await openContext(pgBackend!, a.schema, false);
    const lock = await holdPassLock(databaseUrl, a.schema);
    const first = touch(a.ctx, "x", 0);
    await until(async () => (await count(a.ctx.db, "SELECT count(*) FROM gh_pending")) === 1);
    // Process b's pass queues behind the lock too; whichever runs first numbers x's entry.
    const other = b.ctx.revisions.pass();
    const watcher = await connect(databaseUrl, a.schema);
    await until(async () => (await lockWaiters(watcher, a.schema)) === 2); // a's pass and b's both wait
    await lock.release();
    const [w, pass] = await Promise.all([first, other]);
    expect(w.revision).toBe(1);
    expect(pass.head).toBe(1);
    expect(await revisionsOf(a.ctx.db)).toEqual([[1, "x"]]);
  });

  it("a snapshot may hold a committed write not numbered yet; following from its revision delivers it once", async () => {
    const { ctx, schema } = await openContext(pgBackend!);
    const feed = changeFeed(ctx, new Set());
    await touch(ctx, "s", 0);
    const lock = await holdPassLock(databaseUrl, schema);
    const late = touch(ctx, "s", 1);
    await until(async () => (await count(ctx.db, "SELECT count(*) FROM gh_pending")) === 1);
    const snap = await feed.snapshot();
    const state = new Set<string>();
    for await (const batch of snap.batches) for (const r of batch) state.add(tupleKey(r));
    expect(snap.revision).toBe(1);
    expect(state.has(tupleKey(host("s", 1)))).toBe(true); // ahead of revision 1
    // Not numbered: the head, waitForRevision and the feed do not count it yet.
    expect(await feed.headRevision()).toBe(1);
    const waiting = feed.waitForRevision(2, 20_000);
    await lock.release();
    const w = await late;
    expect(w.revision).toBe(2);
    expect(await waiting).toBe(2);
    const changes = await feed.changesSince(snap.revision);
    expect(changes.map((c) => c.revision)).toEqual([2]);
    // Changes are absolute: replaying the write the snapshot already held changes nothing.
    for (const c of changes) for (const r of c.touched) state.add(tupleKey(r));
    expect(state).toEqual(new Set([host("s", 0), host("s", 1)].map(tupleKey)));
  });

  it("a no-op write that read a committed write not numbered yet returns a revision that includes it", async () => {
    const { ctx, schema } = await openContext(pgBackend!);
    await touch(ctx, "n", 0);
    const lock = await holdPassLock(databaseUrl, schema);
    const created = touch(ctx, "n", 1);
    await until(async () => (await count(ctx.db, "SELECT count(*) FROM gh_pending")) === 1);
    const noop = runWrite(ctx, "other", "test", async (w) => {
      const rows = await w.tx.query("SELECT 1 FROM gh_tuples WHERE resource_id = $1", [host("n", 1).resourceId]);
      expect(rows.length).toBe(1); // it read the unnumbered write
      w.markUnchanged();
    });
    await until(() => ctx.revisions.waitingWriters === 2); // both wait for the pass behind the lock
    await lock.release();
    const [c, n] = await Promise.all([created, noop]);
    expect(c.revision).toBe(2);
    expect(n.revision).toBeGreaterThanOrEqual(c.revision);
  });

  it("retention prunes while writers commit and number; the pruned mark never passes a later revision", async () => {
    const { ctx, schema } = await openContext(pgBackend!);
    const feed = changeFeed(ctx, new Set());
    for (let n = 0; n < 5; n++) await touch(ctx, "r", n);
    const lock = await holdPassLock(databaseUrl, schema);
    const late = touch(ctx, "r", 5);
    await until(async () => (await count(ctx.db, "SELECT count(*) FROM gh_pending")) === 1);
    const pruning = feed.prune(1_000); // waits for the pass lock, like a pass
    const watcher = await connect(databaseUrl, schema);
    await until(async () => (await lockWaiters(watcher, schema)) === 2); // the writer's pass and the prune
    await lock.release();
    const [w, deleted] = await Promise.all([late, pruning]);
    const pruned = await feed.prunedThrough();
    expect(w.revision).toBe(6);
    // Prune read the head (5) before waiting: the entry numbered meanwhile stays.
    expect(pruned).toBe(5);
    expect(deleted).toBe(5);
    expect((await feed.changesSince(pruned)).map((c) => c.revision)).toEqual([6]);
    // Concurrent writers and prunes: no deadlock, the feed after the mark stays dense.
    const writers = Promise.all(
      ["r1", "r2", "r3", "r4"].map(async (org) => {
        for (let n = 0; n < 10; n++) await touch(ctx, org, n);
      }),
    );
    const prunes = (async () => {
      for (let i = 0; i < 10; i++) await feed.prune(await feed.headRevision());
    })();
    await Promise.all([writers, prunes]);
    const mark = await feed.prunedThrough();
    const rest = await feed.changesSince(mark, 10_000);
    expect(rest.map((c) => c.revision)).toEqual(Array.from({ length: 46 - mark }, (_, i) => mark + 1 + i));
  });
});
