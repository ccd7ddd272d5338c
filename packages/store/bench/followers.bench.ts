// N engine replicas following one change feed under a steady write load, and the load they put
// on Postgres. Each follower runs the store's real follow loop (same queries, same wake-ups); to
// stay inside the server's connection limit they share one query pool and one LISTEN connection
// (a real replica has its own pool and its own LISTEN connection: N more mostly idle backends).
// Measured from the server: transactions/s (≈ queries/s: the feed reads are single statements),
// rows read, gh_changes scans, and the CPU time of this database's backend processes (/proc,
// when Postgres runs on this host). Each load runs with 0 followers first (the writes' own cost).
// Run: DATABASE_URL=postgres://... pnpm --filter @gatehouse/store bench:followers
import { readFile } from "node:fs/promises";
import pg from "pg";
import { feedChannel, type StoreContext } from "../src/context.js";
import { RevisionNumbering } from "../src/revisions.js";
import type { Db, Subscription } from "../src/db/db.js";
import { openPg } from "../src/db/pg.js";
import { changeFeed } from "../src/feed.js";
import { openStore, type FollowHandle, type Relationship } from "../src/index.js";
import { dropSchema, randomSchemaName } from "../src/testing.js";
import { tokenCodec } from "../src/tokens.js";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("DATABASE_URL is required (a Postgres database of this bench's own)");
const FOLLOWERS = (process.env.BENCH_FOLLOWERS ?? "0,100").split(",").map(Number);
const WRITES_PER_SECOND = Number(process.env.BENCH_WRITES_PER_SECOND ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const POOL = Number(process.env.BENCH_FOLLOWER_POOL ?? 10);
// A feed of a store that has run a while (analyzed), so the follower's query plan is the real one
// (an index range scan), not a small new table's sequential scan.
const HISTORY = Number(process.env.BENCH_FEED_HISTORY ?? 100_000);

/** One LISTEN connection fanned out to every follower (see the header). */
function sharedListener(db: Db): Db {
  const handlers = new Set<(payload: string) => void>();
  let subscription: Promise<Subscription> | undefined;
  return {
    ...db,
    async listen(channel, onNotify) {
      handlers.add(onNotify);
      subscription ??= db.listen(
        channel,
        (p) => handlers.forEach((h) => h(p)),
        () => undefined,
      );
      await subscription;
      return { close: async () => void handlers.delete(onNotify) };
    },
    async close() {
      await (await subscription)?.close();
      await db.close();
    },
  };
}

interface Sample {
  xacts: number;
  returned: number;
  fetched: number;
  changesScans: number;
  changesRows: number;
  cpuTicks: number;
  backends: number;
}

async function sample(client: pg.Client, schema: string): Promise<Sample> {
  await client.query("SELECT pg_stat_clear_snapshot()");
  const [db] = (await client.query("SELECT xact_commit + xact_rollback AS x, tup_returned, tup_fetched FROM pg_stat_database WHERE datname = current_database()")).rows;
  const [t] = (
    await client.query(
      "SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS rows FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'gh_changes'",
      [schema],
    )
  ).rows;
  const pids = (await client.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")).rows.map((r) => r.pid as number);
  let cpuTicks = 0;
  for (const pid of pids) {
    try {
      const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
      cpuTicks += Number(fields[11]) + Number(fields[12]); // utime + stime
    } catch {
      // not on this host, or the backend exited
    }
  }
  return {
    xacts: Number(db.x),
    returned: Number(db.tup_returned),
    fetched: Number(db.tup_fetched),
    changesScans: Number(t?.scans ?? 0),
    changesRows: Number(t?.rows ?? 0),
    cpuTicks,
    backends: pids.length,
  };
}

async function run(followers: number): Promise<string> {
  const schema = randomSchemaName("gh_bench");
  const store = await openStore({ databaseUrl: databaseUrl!, schema, poolSize: 4 });
  const db = sharedListener(openPg({ databaseUrl: databaseUrl!, schema, poolSize: POOL, name: "followers" }));
  const ctx: StoreContext = {
    db,
    readDb: db,
    domain: "redhat",
    platformId: "local",
    depthLimit: 5,
    pollIntervalMs: 1000,
    storeId: store.storeId,
    channel: feedChannel(schema),
    tokens: tokenCodec(store.storeId),
    revisions: new RevisionNumbering(db, feedChannel(schema)),
    now: Date.now,
  };
  const stats = new pg.Client({ connectionString: databaseUrl });
  await stats.connect();
  try {
    const orgs = ["f1", "f2", "f3", "f4"];
    for (const o of orgs) await store.tenants.bootstrap(o);
    await stats.query(`SET search_path TO "${schema}"`);
    await stats.query(
      `WITH h AS (SELECT head FROM gh_revision)
       INSERT INTO gh_changes (revision, org_id, kind, touched, deleted)
       SELECT h.head + g, 'history', 'write_relationships', '[["hbi/host","old","t_workspace","rbac/workspace","w"]]', '[]' FROM h, generate_series(1, $1::int) g`,
      [HISTORY],
    );
    await stats.query("UPDATE gh_revision SET head = head + $1", [HISTORY]);
    await stats.query("ANALYZE gh_changes");
    const feed = changeFeed(ctx, new Set());
    const start = await feed.headRevision();
    const handles: FollowHandle[] = [];
    let delivered = 0;
    for (let i = 0; i < followers; i++) handles.push(feed.follow(start, (changes) => void (delivered += changes.length)));
    await new Promise((r) => setTimeout(r, 500));
    const before = await sample(stats, schema);
    const t0 = performance.now();
    let n = 0;
    // Steady load: one write every 1/WRITES_PER_SECOND s, round-robin over the tenants.
    while (performance.now() - t0 < SECONDS * 1000) {
      const due = t0 + (n * 1000) / WRITES_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const r: Relationship = { resourceType: "hbi/host", resourceId: `h${n}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: "w" };
      await store.relationships.write(orgs[n % orgs.length]!, { touch: [r] });
      n++;
    }
    const head = await feed.headRevision();
    const caughtUp = performance.now();
    while (handles.some((h) => h.revision < head) && performance.now() - caughtUp < 30_000) await new Promise((r) => setTimeout(r, 20));
    const catchUpMs = performance.now() - caughtUp;
    const seconds = (performance.now() - t0) / 1000;
    const after = await sample(stats, schema);
    await Promise.all(handles.map((h) => h.stop()));
    const per = (a: number, b: number) => ((b - a) / seconds).toFixed(0);
    return `| ${followers} | ${(n / seconds).toFixed(0)} | ${per(before.xacts, after.xacts)} | ${per(before.returned + before.fetched, after.returned + after.fetched)} | ${per(before.changesScans, after.changesScans)} | ${per(before.changesRows, after.changesRows)} | ${(((after.cpuTicks - before.cpuTicks) / 100 / seconds) * 100).toFixed(0)}% | ${after.backends} | ${followers ? `${delivered / followers === head - start ? "all" : "MISSING"}, ${catchUpMs.toFixed(0)} ms` : "-"} |`;
  } finally {
    await stats.end();
    await db.close();
    await store.close();
    await dropSchema(databaseUrl!, schema);
  }
}

console.log(`${WRITES_PER_SECOND} writes/s offered for ${SECONDS} s; figures are per second of the run`);
console.log("| followers | writes/s | transactions/s | rows read/s | gh_changes scans/s | gh_changes rows/s | backend CPU (of one core) | backends | delivered, catch-up after the last write |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const f of FOLLOWERS) console.log(await run(f));
