// Change feed: head revision, consistent snapshots, and followers that deliver every change after
// a revision in order. Followers are woken by LISTEN/NOTIFY and poll as the fallback; when the
// listening connection dies they keep polling and resubscribe, resuming from their last revision.
import type { StoreContext } from "./context.js";
import type { Subscription } from "./db/db.js";
import { isStoreError, StoreError } from "./errors.js";
import { expand, parseCompactTuples } from "./write.js";
import type { Change, ChangeFeed, FollowHandle, FollowOptions, Relationship, Revision, Snapshot, SnapshotOptions } from "./types.js";
import { requireOrgId } from "./validate.js";

interface ChangeRow {
  revision: string;
  org_id: string | null;
  kind: string;
  touched: unknown;
  deleted: unknown;
  committed_at: Date;
  [k: string]: unknown;
}

/** The tuples are selected as text (`::text`), read by `parseCompactTuples` rather than the driver's JSON.parse. */
const tuplesOf = (v: unknown): Relationship[] => (typeof v === "string" ? parseCompactTuples(v) : (v as Parameters<typeof expand>[0][]).map(expand));

function toChange(r: ChangeRow): Change {
  return {
    revision: Number(r.revision),
    orgId: r.org_id,
    kind: r.kind,
    touched: tuplesOf(r.touched),
    deleted: tuplesOf(r.deleted),
    committed: r.committed_at,
  };
}

function fromTabbed(line: string): Relationship {
  const [resourceType, resourceId, relation, subjectType, subjectId, subjectRelation, expiresMs] = line.split("\t") as [string, string, string, string, string, string, string?];
  const out: Relationship = { resourceType, resourceId, relation, subjectType, subjectId };
  if (subjectRelation) out.subjectRelation = subjectRelation;
  if (expiresMs) out.expiresAt = Number(expiresMs);
  return out;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function changeFeed(ctx: StoreContext, followers: Set<FollowHandle>): ChangeFeed {
  async function headRevision(): Promise<Revision> {
    const [row] = await ctx.db.query<{ head: string }>("SELECT head::text AS head FROM gh_revision");
    return Number(row!.head);
  }

  async function changesSince(fromRevision: Revision, limit = 1000): Promise<Change[]> {
    if (!Number.isSafeInteger(fromRevision) || fromRevision < 0) throw new StoreError("invalid-argument", "fromRevision must be a non-negative integer.");
    // One statement, so the retention mark and the rows come from the same snapshot.
    const rows = await ctx.db.query<ChangeRow & { pruned_through: string }>(
      `SELECT r.pruned_through::text AS pruned_through, c.revision::text AS revision, c.org_id, c.kind, c.touched::text AS touched, c.deleted::text AS deleted, c.committed_at
       FROM gh_revision r LEFT JOIN LATERAL (
         SELECT * FROM gh_changes c WHERE c.revision > $1 ORDER BY c.revision LIMIT $2
       ) c ON true ORDER BY c.revision`,
      [fromRevision, limit],
    );
    const pruned = Number(rows[0]!.pruned_through);
    if (fromRevision < pruned) {
      throw new StoreError("feed-truncated", `The change feed holds no changes up to revision ${pruned} (retention); start from a snapshot.`);
    }
    return rows.filter((r) => r.revision !== null).map(toChange);
  }

  async function prunedThrough(): Promise<Revision> {
    const [row] = await ctx.db.query<{ p: string }>("SELECT pruned_through::text AS p FROM gh_revision");
    return Number(row!.p);
  }

  async function prune(throughRevision: Revision): Promise<number> {
    if (!Number.isSafeInteger(throughRevision) || throughRevision < 0) throw new StoreError("invalid-argument", "throughRevision must be a non-negative integer.");
    return ctx.db.transaction(async (tx) => {
      const [head] = await tx.query<{ t: string }>("SELECT least($1::bigint, head)::text AS t FROM gh_revision", [throughRevision]);
      const [row] = await tx.query<{ n: string }>("WITH d AS (DELETE FROM gh_changes WHERE revision <= $1 RETURNING 1) SELECT count(*)::text AS n FROM d", [head!.t]);
      // Last: writers take this row's lock too, so it is held only from here to the commit.
      await tx.query("UPDATE gh_revision SET pruned_through = greatest(pruned_through, $1)", [head!.t]);
      return Number(row!.n);
    });
  }

  async function snapshot(options: SnapshotOptions = {}): Promise<Snapshot> {
    const batchSize = options.batchSize ?? 10_000;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new StoreError("invalid-argument", "batchSize must be a positive integer.");
    const orgId = options.orgId === undefined ? undefined : requireOrgId(options.orgId);
    // May be a read replica: the state at `revision` is consistent there too, and the feed
    // (followed on the primary from `revision`) brings every later commit (docs/SCALING.md).
    const { tx, release } = await ctx.readDb.readTransaction();
    let revision: Revision;
    try {
      // Same REPEATABLE READ snapshot for the head and the tuples: the tuples are exactly the
      // state at `revision`.
      const [head] = await tx.query<{ head: string }>("SELECT head::text AS head FROM gh_revision");
      revision = Number(head!.head);
      const where = orgId === undefined ? "" : "WHERE org_id = '' OR org_id = $1";
      await tx.query(
        // One tab-joined text column per tuple: decoding one column is several times cheaper than
        // six (most of all on PGlite), and no validated id or type can contain a tab.
        `DECLARE gh_snapshot NO SCROLL CURSOR FOR
           SELECT concat_ws(E'\\t', resource_type, resource_id, relation, subject_type, subject_id, subject_relation,
             (floor(extract(epoch FROM expires_at) * 1000))::bigint) AS t FROM gh_tuples ${where}`,
        orgId === undefined ? [] : [orgId],
      );
    } catch (e) {
      await release();
      throw e;
    }
    async function* batches(): AsyncGenerator<Relationship[]> {
      try {
        for (;;) {
          const rows = await tx.query<{ t: string }>(`FETCH ${batchSize} FROM gh_snapshot`);
          if (rows.length === 0) return;
          yield rows.map((r) => fromTabbed(r.t));
          if (rows.length < batchSize) return;
        }
      } finally {
        await release();
      }
    }
    return { revision, batches: batches() };
  }

  function follow(fromRevision: Revision, onBatch: (changes: Change[]) => void | Promise<void>, options: FollowOptions = {}): FollowHandle {
    if (!Number.isSafeInteger(fromRevision) || fromRevision < 0) throw new StoreError("invalid-argument", "fromRevision must be a non-negative integer.");
    const batchSize = options.batchSize ?? 1000;
    const pollMs = options.pollIntervalMs ?? ctx.pollIntervalMs;
    // Set by every error reported, cleared (with onResumed) by the next successful read.
    let failing = false;
    const report = (e: unknown) => {
      failing = true;
      try {
        options.onError?.(e);
      } catch {
        // an error reporter that throws must not kill the follower
      }
    };
    let last = fromRevision;
    let stopped = false;
    let subscription: Subscription | undefined;
    let wake: (() => void) | undefined;
    let woken = false;
    const poke = () => {
      woken = true;
      wake?.();
    };
    const idle = (ms: number) =>
      woken
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          }).finally(() => (wake = undefined));

    async function subscribe(): Promise<void> {
      if (stopped || subscription) return;
      try {
        subscription = await ctx.db.listen(ctx.channel, poke, (e) => {
          subscription = undefined;
          report(e);
          poke(); // catch up at once: notifications may have been lost with the connection
        });
        if (stopped) await subscription.close();
        poke(); // changes committed before LISTEN took effect are picked up by the next fetch
      } catch (e) {
        report(e);
      }
    }

    const loop = (async () => {
      await subscribe();
      while (!stopped) {
        woken = false;
        let delivered = 0;
        try {
          const changes = await changesSince(last, batchSize);
          if (failing) {
            failing = false;
            options.onResumed?.();
          }
          if (changes.length > 0 && !stopped) {
            await onBatch(changes);
            last = changes[changes.length - 1]!.revision;
            delivered = changes.length;
          }
        } catch (e) {
          if (isStoreError(e, "feed-truncated")) {
            // Polling cannot recover this: the owner must start over from a snapshot.
            stopped = true;
            if (options.onTruncated) options.onTruncated(e);
            else report(e);
            break;
          }
          report(e);
          await idle(pollMs);
          continue;
        }
        if (delivered === batchSize) continue; // more may be waiting
        if (!subscription) await subscribe(); // reconnect after a lost listener
        if (!stopped) await idle(pollMs);
      }
    })();

    const handle: FollowHandle = {
      get revision() {
        return last;
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        poke();
        await loop;
        await subscription?.close();
        subscription = undefined;
        followers.delete(handle);
      },
    };
    followers.add(handle);
    return handle;
  }

  async function waitForRevision(revision: Revision, timeoutMs: number): Promise<Revision> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const head = await headRevision();
      if (head >= revision) return head;
      if (Date.now() >= deadline) throw new StoreError("timeout", `Revision ${revision} was not reached within ${timeoutMs} ms (head ${head}).`);
      await sleep(Math.min(10, Math.max(1, deadline - Date.now())));
    }
  }

  return { headRevision, snapshot, changesSince, follow, waitForRevision, prunedThrough, prune };
}
