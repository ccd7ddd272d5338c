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
// revision. Entries of a crashed writer stay pending until the next pass (any write or the
// store's maintenance job).
import type { StoreContext } from "./context.js";
import type { Queryable } from "./db/db.js";
import type { Revision } from "./types.js";

const lockKey = (ctx: StoreContext) => `gatehouse-sequencer:${ctx.db.schema}`;

async function revisionOf(tx: Queryable, xid: string): Promise<Revision | undefined> {
  const [row] = await tx.query<{ revision: string }>("SELECT revision::text AS revision FROM gh_changes WHERE xid = $1::xid8", [xid]);
  return row ? Number(row.revision) : undefined;
}

async function head(tx: Queryable): Promise<Revision> {
  const [row] = await tx.query<{ head: string }>("SELECT head::text AS head FROM gh_revision");
  return Number(row!.head);
}

/** Numbers every committed pending entry; returns the new head. Call with the sequencer lock held. */
async function pass(ctx: StoreContext, tx: Queryable): Promise<Revision> {
  const before = await head(tx);
  const [row] = await tx.query<{ n: string }>(
    `WITH pending AS (DELETE FROM gh_pending_changes RETURNING *),
     ordered AS (
       SELECT p.*, row_number() OVER (
         ORDER BY (SELECT count(*) FROM pending q WHERE q.xid <> p.xid AND pg_visible_in_snapshot(q.xid, p.snap)), p.xid) AS n
       FROM pending p
     ),
     ins AS (
       INSERT INTO gh_changes (revision, xid, org_id, kind, touched, deleted, committed_at)
       SELECT $1::bigint + n, xid, org_id, kind, touched, deleted, committed_at FROM ordered
       RETURNING 1
     )
     SELECT count(*)::text AS n FROM ins`,
    [before],
  );
  const numbered = Number(row!.n);
  if (numbered === 0) return before;
  const after = before + numbered;
  await tx.query("UPDATE gh_revision SET head = $1", [after]);
  // Delivered at commit, never for a rolled-back pass.
  await tx.query("SELECT pg_notify($1, $2)", [ctx.channel, String(after)]);
  return after;
}

/**
 * The revision of the committed write transaction `xid` (numbering it, and everything committed
 * before it, if no pass has yet), or with `xid` null the head after numbering what is pending.
 */
export async function sequence(ctx: StoreContext, xid: string | null): Promise<Revision> {
  return ctx.db.transaction(async (tx) => {
    // Fast path without the lock: a concurrent pass may already have numbered it.
    if (xid !== null) {
      const done = await revisionOf(tx, xid);
      if (done !== undefined) return done;
    } else {
      const [row] = await tx.query<{ any: boolean }>("SELECT EXISTS (SELECT 1 FROM gh_pending_changes) AS any");
      if (!row!.any) return head(tx);
    }
    // An advisory lock assigns no transaction id, so a waiter that finds its entry numbered
    // commits without a WAL flush.
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [lockKey(ctx)]);
    if (xid !== null) {
      const done = await revisionOf(tx, xid);
      if (done !== undefined) return done;
    }
    const after = await pass(ctx, tx);
    if (xid === null) return after;
    const mine = await revisionOf(tx, xid);
    if (mine === undefined) throw new Error(`committed change ${xid} was not found pending`);
    return mine;
  });
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
