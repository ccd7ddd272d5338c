// Revision numbering. A write transaction ends by appending its change-feed entry to gh_pending
// (migration 10) and commits without any lock shared with other tenants. A numbering *pass*, one
// at a time across all processes (the gh_revision row lock), moves every committed pending entry
// into gh_changes with consecutive revisions from head + 1, so followers, tokens and checkpoints
// keep dense integer revisions in an order consistent with commit order. A writer returns only
// once its entry is numbered, so its token (its revision) means "at least this state".
//
// Per process, one pass is in flight at a time and every writer that commits meanwhile is served
// by the next one (group commit): at most one backend per process waits on the row lock. A
// writer that finds the lock free as its last statement (and no pass or writer of its process
// waiting) numbers inline, in its own transaction, with no second commit (src/write.ts); a writer
// whose entry another process's pass numbered finds its revision by its transaction id.
import type { Db, Queryable } from "./db/db.js";
import { StoreError } from "./errors.js";
import type { Revision } from "./types.js";

/**
 * Turns JIT off for the rest of the transaction. The numbering statement's estimated cost grows
 * with the square of gh_pending's estimated size, which bloat between vacuums inflates: past the
 * JIT thresholds a pass of one entry spent 0.45–0.6 s compiling instead of well under 1 ms.
 */
export const NO_JIT = "set_config('jit', 'off', true)";

/** Takes the pass lock: the gh_revision row, held to commit. */
export const LOCK_HEAD = `SELECT head::text AS head, ${NO_JIT} AS jit FROM gh_revision FOR UPDATE`;

/**
 * One pass, as one statement run after the row lock is taken (so its snapshot sees every pass
 * committed before: a statement that waited for the lock itself would still read the older
 * snapshot and number entries twice). $1 = channel, $2 = transaction ids whose revision the
 * caller wants, $3 = a revision they are all numbered after.
 *
 * Order: `seen` counts the pass's other entries visible in an entry's snapshot (the snapshot of
 * its writer's last statement; every earlier statement of that writer saw no more). If entry F
 * is visible in E's snapshot, F committed before E's last statement began, so every entry F saw
 * committed earlier still and is visible to E as well; F itself is too, while F cannot see
 * itself (and E, not yet committed when F's snapshot was taken, is not visible to F). So
 * seen(E) >= seen(F) + 1: sorting by `seen` puts every entry after all the entries it could have
 * observed (a topological order of "could have observed"), and xid breaks ties between entries
 * that saw none of each other. An entry the pass does not see committed after the pass's
 * snapshot, hence after everything it numbers (which it cannot have been observed by), and a
 * later pass numbers it higher. The set a pass numbers is closed under "observed": whatever an
 * entry it numbers observed committed even earlier, so was numbered by this pass or before.
 */
const NUMBER_PENDING = `
WITH h AS (
  SELECT head FROM gh_revision
), p AS (
  SELECT xid, snap, org_id, kind, touched, deleted, committed_at FROM gh_pending
), ranked AS (
  SELECT p.*, (SELECT count(*) FROM p o WHERE o.xid <> p.xid AND pg_visible_in_snapshot(o.xid, p.snap)) AS seen FROM p
), moved AS (
  INSERT INTO gh_changes (revision, xid, org_id, kind, touched, deleted, committed_at)
  SELECT (SELECT head FROM h) + row_number() OVER (ORDER BY seen, xid), xid, org_id, kind, touched, deleted, committed_at FROM ranked
  RETURNING revision, xid
), gone AS (
  DELETE FROM gh_pending WHERE xid IN (SELECT xid FROM p)
), bumped AS (
  UPDATE gh_revision SET head = head + (SELECT count(*) FROM p) WHERE EXISTS (SELECT 1 FROM p) RETURNING head
)
SELECT
  coalesce((SELECT head FROM bumped), (SELECT head FROM h))::text AS head,
  (SELECT coalesce(json_agg(json_build_array(f.xid::text, f.revision::text)), '[]'::json) FROM (
    SELECT xid, revision FROM moved WHERE xid = ANY($2::xid8[])
    UNION ALL SELECT xid, revision FROM gh_changes WHERE revision > $3::bigint AND xid = ANY($2::xid8[])
  ) f) AS found,
  -- Followers are woken once per pass; the notification is delivered at commit.
  CASE WHEN EXISTS (SELECT 1 FROM bumped) THEN pg_notify($1, (SELECT head FROM bumped)::text) END AS notified`;

export interface PassResult {
  /** Head after the pass. */
  head: Revision;
  /** Revision of each asked-for transaction id the feed holds (numbered now or earlier). */
  revisions: Map<string, Revision>;
}

/** Runs a pass inside `tx`, which must hold the row lock (`LOCK_HEAD`) since a previous statement. */
export async function numberPending(tx: Queryable, channel: string, want: readonly string[], after: Revision): Promise<PassResult> {
  const [row] = await tx.query<{ head: string; found: unknown }>(NUMBER_PENDING, [channel, want, after]);
  const found = (typeof row!.found === "string" ? JSON.parse(row!.found) : row!.found) as [string, string][];
  return { head: Number(row!.head), revisions: new Map(found.map(([xid, revision]) => [xid, Number(revision)])) };
}

interface Batch {
  /** Transaction ids to look up, with the head their writer saw (their revision is above it). */
  want: Map<string, Revision>;
  promise: Promise<PassResult>;
  resolve(result: PassResult): void;
  reject(error: unknown): void;
}

function batch(): Batch {
  let resolve!: (r: PassResult) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<PassResult>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A pass nobody awaits (the sweep's, after a failure) must not be an unhandled rejection.
  promise.catch(() => undefined);
  return { want: new Map(), promise, resolve, reject };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Passes tried for one writer before it gives up (its write stays committed and is numbered later). */
const ATTEMPTS = 3;

/** The numbering of one process (one per open store). */
export class RevisionNumbering {
  private running: Promise<void> | null = null;
  private next: Batch | null = null;
  /** Writers of this process that committed and wait for their revision. */
  private waiting = 0;
  private sweepTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly channel: string,
  ) {}

  /** Writers of this process that committed and wait for their revision (tests wait on it). */
  get waitingWriters(): number {
    return this.waiting;
  }

  /**
   * Whether a writer should try to number inline: no pass of this process running or queued and
   * no writer of it waiting. Then the row lock is most likely free; when it is not (another
   * process's pass), the writer does not wait for it (SKIP LOCKED) and takes the pass path.
   */
  get uncontended(): boolean {
    return this.running === null && this.next === null && this.waiting === 0;
  }

  /**
   * A pass that starts after this call (so it sees every write committed before it); concurrent
   * callers share it. `want` asks for the revisions of these transaction ids.
   */
  pass(want: ReadonlyMap<string, Revision> = new Map()): Promise<PassResult> {
    if (this.closed) return Promise.reject(new StoreError("unavailable", "The store is closed."));
    this.next ??= batch();
    const joined = this.next;
    for (const [xid, after] of want) joined.want.set(xid, after);
    if (!this.running) this.launch();
    return joined.promise;
  }

  private launch(): void {
    const current = this.next!;
    this.next = null;
    this.running = this.runPass(current).then(current.resolve, current.reject);
    void this.running.finally(() => {
      this.running = null;
      if (this.next) this.launch();
    });
  }

  private runPass(b: Batch): Promise<PassResult> {
    let after = Number.MAX_SAFE_INTEGER;
    for (const a of b.want.values()) after = Math.min(after, a);
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<{ head: string }>(LOCK_HEAD);
      return numberPending(tx, this.channel, [...b.want.keys()], Math.min(after, Number(row!.head)));
    });
  }

  /**
   * The revision of a committed pending entry (transaction `xid`, written when the head was
   * `after`), or with no entry the head after a pass. Retries a failed pass; if none succeeds
   * the write stays committed and a later pass numbers it, but the caller cannot learn its revision.
   */
  async settle(entry?: { xid: string; after: Revision }): Promise<Revision> {
    this.waiting++;
    try {
      let failure: unknown;
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (attempt > 0) await sleep(20 * attempt);
        try {
          const result = await this.pass(entry ? new Map([[entry.xid, entry.after]]) : undefined);
          // Missing only if retention deleted the entry since (far behind every writer): the
          // head is then above it, and "at least this state" still holds.
          return (entry && result.revisions.get(entry.xid)) ?? result.head;
        } catch (e) {
          failure = e;
        }
      }
      throw new StoreError("unavailable", "The write was committed, but its revision could not be assigned; it becomes visible to followers with a later pass.", undefined, {
        cause: failure,
      });
    } finally {
      this.waiting--;
    }
  }

  /**
   * Numbers entries whose writer died after committing (or gave up): every `intervalMs`, a pass
   * when an entry has waited longer than that (live writers' entries are numbered in
   * milliseconds by their own passes).
   */
  startSweep(intervalMs: number): void {
    if (intervalMs <= 0 || this.sweepTimer) return;
    let sweeping = false;
    this.sweepTimer = setInterval(() => {
      // One sweep at a time: a sweep waiting for the connection (PGlite) must not pile up more.
      if (sweeping || this.running || this.closed) return;
      sweeping = true;
      void this.sweepOnce(intervalMs)
        .catch(() => undefined)
        .finally(() => (sweeping = false));
    }, intervalMs);
    this.sweepTimer.unref();
  }

  /** One sweep: a pass if some pending entry is older than `olderThanMs`. Resolves with whether it ran. */
  async sweepOnce(olderThanMs: number): Promise<boolean> {
    const [row] = await this.db.query<{ stale: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM gh_pending WHERE committed_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000)) AS stale",
      [olderThanMs],
    );
    if (!row?.stale) return false;
    await this.pass();
    return true;
  }

  /** Stops the sweep and waits for the pass in flight. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    while (this.running) await this.running.catch(() => undefined);
  }
}
