// One write transaction: domain rows, the tuples they imply and the change-feed entry commit
// together. The entry is appended to gh_pending as the last statement, taking no lock shared with
// other tenants; its revision comes from a numbering pass (src/revisions.ts), inline when the
// pass lock is free, else right after commit, before the write returns.
import type { StoreContext } from "./context.js";
import type { Queryable } from "./db/db.js";
import { StoreError } from "./errors.js";
import { adoptHeld, dropHeld, parentedWorkspaces, placedResources } from "./placements.js";
import { tupleKey } from "./relationships.js";
import { NO_JIT, numberPending } from "./revisions.js";
import type { Relationship, Revision, Written } from "./types.js";

type TupleRow = {
  resource_type: string;
  resource_id: string;
  relation: string;
  subject_type: string;
  subject_id: string;
  subject_relation: string;
  /** Epoch milliseconds as text, or null (never expires). */
  expires_ms?: string | null;
};

/** Selects `expires_at` as epoch milliseconds (text, exact) for `rowToRelationship`. */
export const EXPIRES_MS = "(floor(extract(epoch FROM expires_at) * 1000))::bigint::text AS expires_ms";

export function rowToRelationship(r: TupleRow): Relationship {
  const out: Relationship = {
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    relation: r.relation,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
  };
  if (r.subject_relation) out.subjectRelation = r.subject_relation;
  if (r.expires_ms != null) out.expiresAt = Number(r.expires_ms);
  return out;
}

/** Column arrays for `unnest` (one round trip for any number of tuples). */
function columns(rels: Relationship[]): string[][] {
  const cols: string[][] = [[], [], [], [], [], []];
  for (const r of rels) {
    cols[0]!.push(r.resourceType);
    cols[1]!.push(r.resourceId);
    cols[2]!.push(r.relation);
    cols[3]!.push(r.subjectType);
    cols[4]!.push(r.subjectId);
    cols[5]!.push(r.subjectRelation ?? "");
  }
  return cols;
}

const UNNEST = "unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS d(rt, rid, rel, st, sid, sr)";

export class WriteContext {
  /** Net effect of this transaction, keyed by tuple: true = created, false = deleted. */
  private readonly effects = new Map<string, { rel: Relationship; created: boolean }>();
  private unchanged = false;

  constructor(
    readonly tx: Queryable,
    /** Tenant of the write; '' for public rows. */
    readonly tupleOrg: string,
  ) {}

  /** Marks the transaction as a no-op: it commits without taking a new revision. */
  markUnchanged(): void {
    this.unchanged = true;
  }

  async touch(rels: Relationship[]): Promise<void> {
    if (rels.length === 0) return;
    const expiring = rels.filter((r) => r.expiresAt !== undefined);
    if (expiring.length > 0) await this.touchExpiring(expiring);
    rels = expiring.length > 0 ? rels.filter((r) => r.expiresAt === undefined) : rels;
    if (rels.length === 0) return;
    const rows = await this.tx.query<TupleRow>(
      `INSERT INTO gh_tuples (org_id, resource_type, resource_id, relation, subject_type, subject_id, subject_relation)
       SELECT DISTINCT $1, rt, rid, rel, st, sid, sr FROM ${UNNEST}
       ON CONFLICT (org_id, resource_type, resource_id, relation, subject_type, subject_id, subject_relation)
       -- Written again without an expiry: it no longer expires (TOUCH).
       DO UPDATE SET expires_at = NULL WHERE gh_tuples.expires_at IS NOT NULL
       RETURNING resource_type, resource_id, relation, subject_type, subject_id, subject_relation`,
      [this.tupleOrg, ...columns(rels)],
    );
    for (const row of rows) this.record(rowToRelationship(row), true);
    // A direct placement supersedes a held report; a workspace getting its parent places the held ones.
    await dropHeld(this.tx, this.tupleOrg, placedResources(rels));
    await adoptHeld(this, parentedWorkspaces(rels));
  }

  /**
   * Writes tuples carrying an expiry (SpiceDB's TOUCH: an existing tuple takes the new expiry).
   * A changed expiry is recorded as a creation, so followers replace the tuple's expiry.
   */
  private async touchExpiring(rels: Relationship[]): Promise<void> {
    const rows = await this.tx.query<TupleRow>(
      `INSERT INTO gh_tuples (org_id, resource_type, resource_id, relation, subject_type, subject_id, subject_relation, expires_at)
       SELECT DISTINCT ON (rt, rid, rel, st, sid, sr) $1, rt, rid, rel, st, sid, sr, to_timestamp(ms::double precision / 1000)
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[]) AS d(rt, rid, rel, st, sid, sr, ms)
       ON CONFLICT (org_id, resource_type, resource_id, relation, subject_type, subject_id, subject_relation)
       DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE gh_tuples.expires_at IS DISTINCT FROM EXCLUDED.expires_at
       RETURNING resource_type, resource_id, relation, subject_type, subject_id, subject_relation, ${EXPIRES_MS}`,
      [this.tupleOrg, ...columns(rels), rels.map((r) => String(Math.floor(r.expiresAt!)))],
    );
    for (const row of rows) this.record(rowToRelationship(row), true);
  }

  async remove(rels: Relationship[]): Promise<void> {
    if (rels.length === 0) return;
    const rows = await this.tx.query<TupleRow>(
      `DELETE FROM gh_tuples t USING ${UNNEST}
       WHERE t.org_id = $1 AND t.resource_type = d.rt AND t.resource_id = d.rid AND t.relation = d.rel
         AND t.subject_type = d.st AND t.subject_id = d.sid AND t.subject_relation = d.sr
       RETURNING t.resource_type, t.resource_id, t.relation, t.subject_type, t.subject_id, t.subject_relation`,
      [this.tupleOrg, ...columns(rels)],
    );
    for (const row of rows) this.record(rowToRelationship(row), false);
  }

  private record(rel: Relationship, created: boolean): void {
    const key = tupleKey(rel);
    const previous = this.effects.get(key);
    // Created then deleted (or the reverse) in one transaction: no net change.
    if (previous && previous.created !== created && !(created && rel.expiresAt !== undefined)) this.effects.delete(key);
    else this.effects.set(key, { rel, created });
  }

  get changes(): { touched: Relationship[]; deleted: Relationship[] } {
    const touched: Relationship[] = [];
    const deleted: Relationship[] = [];
    for (const { rel, created } of this.effects.values()) (created ? touched : deleted).push(rel);
    return { touched, deleted };
  }

  /**
   * Appends the change-feed entry to gh_pending; must be the last statement (its snapshot is the
   * one the numbering orders by). With `inline`, also takes the pass lock if it is free (never
   * waiting for it) and numbers every committed entry and this one in this transaction.
   */
  async finish(ctx: StoreContext, orgId: string | null, kind: string, inline: boolean): Promise<Ending> {
    const { touched, deleted } = this.changes;
    if (this.unchanged && touched.length === 0 && deleted.length === 0) {
      // A committed write not numbered yet may be in what this one read: its answer then needs
      // a revision past it, so the caller waits for a pass.
      const [row] = await this.tx.query<{ head: string; behind: boolean }>("SELECT head::text AS head, EXISTS (SELECT 1 FROM gh_pending) AS behind FROM gh_revision");
      return row!.behind ? { kind: "behind" } : { kind: "numbered", revision: Number(row!.head) };
    }
    const values = [orgId, kind, JSON.stringify(touched.map(compact)), JSON.stringify(deleted.map(compact))];
    if (!inline) {
      const [row] = await this.tx.query<{ xid: string; head: string }>(
        `INSERT INTO gh_pending (org_id, kind, touched, deleted) VALUES ($1, $2, $3::jsonb, $4::jsonb)
         RETURNING xid::text AS xid, (SELECT head::text FROM gh_revision) AS head`,
        values,
      );
      return { kind: "pending", xid: row!.xid, after: Number(row!.head) };
    }
    // Tries the pass lock without waiting. The entry goes to gh_pending unless this transaction
    // got the lock and saw no pending entry: then nothing committed before this statement is
    // unnumbered, so this write can simply take the next revision.
    const [row] = await this.tx.query<{ xid: string | null; head: string; locked: boolean | null }>(
      `WITH lock AS (
         SELECT true AS locked FROM gh_revision FOR UPDATE SKIP LOCKED
       ), entry AS (
         INSERT INTO gh_pending (org_id, kind, touched, deleted) SELECT $1, $2, $3::jsonb, $4::jsonb
         WHERE NOT EXISTS (SELECT 1 FROM lock) OR EXISTS (SELECT 1 FROM gh_pending) RETURNING xid
       )
       SELECT (SELECT xid::text FROM entry) AS xid, (SELECT head::text FROM gh_revision) AS head, (SELECT locked FROM lock) AS locked, ${NO_JIT} AS jit`,
      values,
    );
    const after = Number(row!.head);
    if (!row!.locked) return { kind: "pending", xid: row!.xid!, after };
    // Holding the lock since the previous statement: this one sees every earlier pass.
    if (row!.xid === null) {
      const [numbered] = await this.tx.query<{ revision: string }>(
        `WITH bumped AS (UPDATE gh_revision SET head = head + 1 RETURNING head), entry AS (
           INSERT INTO gh_changes (revision, xid, org_id, kind, touched, deleted)
           SELECT head, pg_current_xact_id(), $2, $3, $4::jsonb, $5::jsonb FROM bumped
         )
         SELECT head::text AS revision, pg_notify($1, head::text) FROM bumped`,
        [ctx.channel, ...values],
      );
      return { kind: "numbered", revision: Number(numbered!.revision) };
    }
    const { revisions } = await numberPending(this.tx, ctx.channel, [row!.xid], after);
    return { kind: "numbered", revision: revisions.get(row!.xid)! };
  }
}

/** How a write transaction ended. */
export type Ending =
  /** Numbered in the transaction (or a no-op at this head). */
  | { kind: "numbered"; revision: Revision }
  /** Committed as pending entry `xid` (numbered above `after`): wait for a pass. */
  | { kind: "pending"; xid: string; after: Revision }
  /** A no-op that read a committed write not numbered yet: its revision is the head after a pass. */
  | { kind: "behind" };

/**
 * Tuples in the change feed are stored as arrays to keep entries small; an expiring tuple adds
 * its expiry (epoch ms) as a seventh element (subject relation '' when none).
 */
type CompactTuple = [string, string, string, string, string, string?, number?];
function compact(r: Relationship): CompactTuple {
  if (r.expiresAt !== undefined) return [r.resourceType, r.resourceId, r.relation, r.subjectType, r.subjectId, r.subjectRelation ?? "", r.expiresAt];
  return r.subjectRelation ? [r.resourceType, r.resourceId, r.relation, r.subjectType, r.subjectId, r.subjectRelation] : [r.resourceType, r.resourceId, r.relation, r.subjectType, r.subjectId];
}
export function expand(t: CompactTuple): Relationship {
  const out: Relationship = { resourceType: t[0], resourceId: t[1], relation: t[2], subjectType: t[3], subjectId: t[4] };
  if (t[5]) out.subjectRelation = t[5];
  if (typeof t[6] === "number") out.expiresAt = t[6];
  return out;
}

/**
 * A change's compact tuples from the text Postgres prints for their jsonb array,
 * `[["hbi/host", "h1", "t_workspace", "rbac/workspace", "w1"], …]`, read without JSON.parse: each
 * string is what lies between two quotes (a text holding a backslash, i.e. an escape, and any text
 * not printed exactly that way go through JSON.parse). In Node this reads the feed's short tuples
 * in less than half the CPU time of JSON.parse and `expand`.
 */
export function parseCompactTuples(text: string): Relationship[] {
  return (text.includes("\\") ? undefined : scanCompactTuples(text)) ?? (JSON.parse(text) as CompactTuple[]).map(expand);
}

/** The tuples of `parseCompactTuples`, or undefined when the text is not printed as expected. */
function scanCompactTuples(text: string): Relationship[] | undefined {
  const out: Relationship[] = [];
  if (text === "[]") return out;
  if (!text.startsWith("[[")) return undefined;
  let p = 1;
  for (;;) {
    // p is at a tuple's "[": its five strings, each `"…"` after `[` or `, `.
    const f = new Array<string>(5);
    let at = p + 1;
    for (let k = 0; k < 5; k++) {
      if (k > 0) {
        if (text.charCodeAt(at) !== 44 || text.charCodeAt(at + 1) !== 32) return undefined;
        at += 2;
      }
      if (text.charCodeAt(at) !== 34) return undefined;
      const end = text.indexOf('"', at + 1);
      if (end < 0) return undefined;
      f[k] = text.slice(at + 1, end);
      at = end + 1;
    }
    const r: Relationship = { resourceType: f[0]!, resourceId: f[1]!, relation: f[2]!, subjectType: f[3]!, subjectId: f[4]! };
    // Then `, "<subject relation>"`, and `, <expiry>` after it, when present.
    if (text.charCodeAt(at) === 44) {
      if (text.charCodeAt(at + 1) !== 32 || text.charCodeAt(at + 2) !== 34) return undefined;
      const end = text.indexOf('"', at + 3);
      if (end < 0) return undefined;
      if (end > at + 3) r.subjectRelation = text.slice(at + 3, end);
      at = end + 1;
      if (text.charCodeAt(at) === 44) {
        const close = text.indexOf("]", at);
        if (close < at + 3) return undefined;
        const expiry = Number(text.slice(at + 1, close));
        if (!Number.isSafeInteger(expiry)) return undefined;
        r.expiresAt = expiry;
        at = close;
      }
    }
    if (text.charCodeAt(at) !== 93) return undefined;
    out.push(r);
    // `, [` before the next tuple, `]` at the end.
    if (at + 2 === text.length && text.charCodeAt(at + 1) === 93) return out;
    if (text.charCodeAt(at + 1) !== 44 || text.charCodeAt(at + 2) !== 32 || text.charCodeAt(at + 3) !== 91) return undefined;
    p = at + 3;
  }
}

/**
 * Runs `fn` in one write transaction of tenant `orgId` (null = public data). Writers of one
 * tenant are serialized by a transaction-level advisory lock taken first, so the checks inside
 * `fn` see a stable tenant; writers of different tenants share no lock. Returns once the write
 * has its revision.
 */
export async function runWrite<T>(ctx: StoreContext, orgId: string | null, kind: string, fn: (w: WriteContext) => Promise<T>): Promise<Written<T>> {
  const { value, ending } = await ctx.db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`gatehouse:${ctx.db.schema}:${orgId ?? ""}`]);
    const w = new WriteContext(tx, orgId ?? "");
    const value = await fn(w);
    const ending = await w.finish(ctx, orgId, kind, ctx.revisions.uncontended);
    return { value, ending };
  });
  const revision = ending.kind === "numbered" ? ending.revision : await ctx.revisions.settle(ending.kind === "pending" ? { xid: ending.xid, after: ending.after } : undefined);
  return { value, revision, token: ctx.tokens.encode(revision) };
}

/** Loads the tenant row inside a transaction, or fails with `tenant-not-found`. */
export async function requireTenantRow(tx: Queryable, orgId: string): Promise<TenantRow> {
  const [row] = await tx.query<TenantRow>("SELECT * FROM gh_tenants WHERE org_id = $1", [orgId]);
  if (!row) throw new StoreError("tenant-not-found", `Tenant for org '${orgId}' does not exist.`);
  return row;
}

export interface TenantRow {
  org_id: string;
  tenant_id: string;
  root_workspace_id: string;
  default_workspace_id: string;
  platform_default_group_id: string;
  admin_default_group_id: string;
  created_at: Date;
  [k: string]: unknown;
}
