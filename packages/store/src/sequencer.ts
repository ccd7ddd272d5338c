// Revision sequencer. A write transaction commits its change-feed entry into gh_pending_changes
// with its transaction id and final snapshot, taking no shared lock; right after its commit the
// writer runs a short "pass" that numbers every committed pending entry (its own and any other
// writer's) into gh_changes. Passes are serialized by an advisory lock, so tenants' writes commit
// concurrently and only the batched numbering is serial.
//
// Why the order is consistent with commit order: a pass numbers only entries committed before its
// statement began, and an entry committing later lands in a later pass (higher revisions). Within
// a pass, an entry A committed before B's final snapshot (B may have read A's rows, or B's writer
// waited for A's tenant lock) is visible in B's snapshot, so B sees at least one more pass member
// than A does; ordering by that count, then by xid, puts A first. A writer returns its token only
// after its entry is numbered, so a change the client causes afterwards always gets a higher
// revision. An uncontended writer runs the pass inside its own transaction (`sequenceInline`):
// its own entry is visible to it and comes last (its snapshot sees every other one); a write that
// commits while it still holds the lock is numbered after it, which is consistent, as neither
// could see the other. Entries of a crashed writer stay pending until the next pass (any write,
// or the retention job).
import type { StoreContext } from "./context.js";
import type { Queryable } from "./db/db.js";
import type { Revision } from "./types.js";

const lockKey = (ctx: StoreContext) => `gatehouse-sequencer:${ctx.db.schema}`;

/**
 * One statement, run with the sequencer lock held: numbers every committed pending entry, moves
 * the head, notifies followers (delivered at commit), and returns the head and the revision of
 * `xid` (numbered now or by an earlier pass; null if `xid` is null or not committed).
 */
const PASS = `
WITH pending AS (DELETE FROM gh_pending_changes RETURNING *),
ordered AS (
  SELECT p.*, row_number() OVER (
    ORDER BY (SELECT count(*) FROM pending q WHERE q.xid <> p.xid AND pg_visible_in_snapshot(q.xid, p.snap)), p.xid) AS n
  FROM pending p
),
ins AS (
  INSERT INTO gh_changes (revision, xid, org_id, kind, touched, deleted, committed_at)
  SELECT r.head + o.n, o.xid, o.org_id, o.kind, o.touched, o.deleted, o.committed_at FROM ordered o, gh_revision r
  RETURNING revision, xid
),
upd AS (
  UPDATE gh_revision SET head = head + (SELECT count(*) FROM ins) WHERE EXISTS (SELECT 1 FROM ins) RETURNING head
)
SELECT coalesce((SELECT head FROM upd), (SELECT head FROM gh_revision))::text AS head,
  coalesce((SELECT revision FROM ins WHERE xid = $2::xid8), (SELECT revision FROM gh_changes WHERE xid = $2::xid8))::text AS mine,
  (SELECT pg_notify($1, head::text) FROM upd) AS notified`;

/**
 * The revision of the committed write transaction `xid` (numbering it, and everything committed
 * before it, if no pass has yet), or with `xid` null the head after numbering what is pending.
 */
export async function sequence(ctx: StoreContext, xid: string | null): Promise<Revision> {
  // Fast path without a transaction: a concurrent pass may already have numbered it (or, for
  // null, nothing is pending).
  const [quick] = await ctx.db.query<{ mine: string | null; head: string; pending: boolean }>(
    `SELECT (SELECT revision FROM gh_changes WHERE xid = $1::xid8)::text AS mine, head::text AS head,
       EXISTS (SELECT 1 FROM gh_pending_changes) AS pending FROM gh_revision`,
    [xid],
  );
  if (xid !== null && quick!.mine !== null) return Number(quick!.mine);
  if (xid === null && !quick!.pending) return Number(quick!.head);
  return ctx.db.transaction(async (tx) => {
    // An advisory lock assigns no transaction id, so a pass that finds nothing to number commits
    // without a WAL flush. The pass is a separate statement: its snapshot is taken after the wait.
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [lockKey(ctx)]);
    const [row] = await tx.query<{ head: string; mine: string | null }>(PASS, [ctx.channel, xid]);
    if (xid === null) return Number(row!.head);
    if (row!.mine === null) throw new Error(`committed change ${xid} was not found pending`);
    return Number(row!.mine);
  });
}

/**
 * Inside the write transaction, after its entry was appended: when no other pass or writer holds
 * the sequencer lock, numbers the pending entries (the committed ones, then this one, which sees
 * them all) right here, and the lock is held through this commit, as a single revision counter
 * would be. Uncontended writes thus take one transaction; under contention this returns
 * undefined at once and the writer numbers after its commit (`sequence`), in a batched pass.
 */
export async function sequenceInline(ctx: StoreContext, tx: Queryable, xid: string): Promise<Revision | undefined> {
  const [lock] = await tx.query<{ got: boolean }>("SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got", [lockKey(ctx)]);
  if (!lock!.got) return undefined;
  const [row] = await tx.query<{ mine: string | null }>(PASS, [ctx.channel, xid]);
  return Number(row!.mine);
}

/** Appends the write's feed entry as pending; its last statement. Returns its transaction id. */
export async function appendPending(tx: Queryable, orgId: string | null, kind: string, touched: string, deleted: string): Promise<string> {
  const [row] = await tx.query<{ xid: string }>(
    `INSERT INTO gh_pending_changes (xid, snap, org_id, kind, touched, deleted)
     VALUES (pg_current_xact_id(), pg_current_snapshot(), $1, $2, $3::jsonb, $4::jsonb) RETURNING xid::text AS xid`,
    [orgId, kind, touched, deleted],
  );
  return row!.xid;
}
