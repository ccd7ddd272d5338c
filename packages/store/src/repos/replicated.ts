// Tuples replicated by another management plane (insights-rbac → KesselTupleService). They live in
// their own partition (`gh_tuples.org_id = '~relations'`, never a valid org id), so a replication
// call can neither read nor change a Gatehouse tenant's rows, and may not attach tuples to objects a
// Gatehouse tenant manages. Every call is one transaction; the change feed carries its tuples.
import { randomUUID } from "node:crypto";
import { isValidObjectId } from "@gatehouse/evaluator";
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import type { Queryable } from "../db/db.js";
import { relationshipProblem, tupleKey } from "../relationships.js";
import type { Relationship, ReplicatedFilter, ReplicatedRepository, ReplicatedWriteOutcome } from "../types.js";
import { rowToRelationship, runWrite } from "../write.js";

export const REPLICATED_PARTITION = "~relations";
const LOCK = { resourceType: "kessel/lock", relation: "t_version", subjectType: "kessel/lockversion" };
/**
 * What replication may never name, whatever the id: the platform every tenant points at and the
 * lock tuples (only AcquireLock writes them, or a fencing token could be forged).
 */
const RESERVED_TYPES: ReadonlySet<string> = new Set(["rbac/platform", LOCK.resourceType, LOCK.subjectType]);
/**
 * Never a replicated tuple's resource: a tenant's id is its org id, so a tuple on `rbac/tenant:<d>/<org>`
 * (a binding, a platform) would reach that org's tenant once Gatehouse serves it, if not already.
 */
const TENANT = "rbac/tenant";
/** Identities, not objects anyone manages: replicated bindings and groups may name them. */
const PRINCIPAL = "rbac/principal";
const MAX_TUPLES = 10_000;
const MAX_PAGE = 1000;

type Row = Parameters<typeof rowToRelationship>[0] & Record<string, unknown>;

function requireTuples(list: Relationship[]): Relationship[] {
  if (list.length > MAX_TUPLES) throw new StoreError("invalid-argument", `At most ${MAX_TUPLES} tuples per call.`, "tuples");
  list.forEach((r, i) => {
    const problem = relationshipProblem(r);
    if (problem) throw new StoreError("invalid-argument", `tuples[${i}]: ${problem}`, "tuples");
  });
  return list;
}

/** WHERE clause of a filter over the partition; params[0] is the partition. */
function filterSql(filter: ReplicatedFilter, params: unknown[]): string {
  // Lock tuples are AcquireLock's alone: no filter reads or deletes them.
  const where = ["org_id = $1", `resource_type <> '${LOCK.resourceType}'`];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  };
  add("resource_type", filter.resourceType);
  add("resource_id", filter.resourceId);
  add("relation", filter.relation);
  add("subject_type", filter.subjectType);
  add("subject_id", filter.subjectId);
  add("subject_relation", filter.subjectRelation);
  if (filter.resourceTypes !== undefined) {
    params.push(filter.resourceTypes);
    where.push(`resource_type = ANY($${params.length}::text[])`);
  }
  return where.join(" AND ");
}

async function lockHolds(tx: Queryable, fencing: { lockId: string; lockToken: string } | undefined): Promise<boolean> {
  if (!fencing) return true;
  const rows = await tx.query(
    "SELECT 1 FROM gh_tuples WHERE org_id = $1 AND resource_type = $2 AND resource_id = $3 AND relation = $4 AND subject_type = $5 AND subject_id = $6 AND subject_relation = ''",
    [REPLICATED_PARTITION, LOCK.resourceType, fencing.lockId, LOCK.relation, LOCK.subjectType, fencing.lockToken],
  );
  return rows.length > 0;
}

const columns = (rels: Relationship[], pick: (r: Relationship) => string) => rels.map(pick);

/**
 * The index of the first tuple that touches a Gatehouse object, or undefined. The replicated plane
 * lives beside Gatehouse's tenants, never inside them: a tuple whose resource is Gatehouse's would
 * change who may do what there (a binding on the platform or a seeded role grants in every
 * tenant), and one whose subject is Gatehouse's would hang replicated objects under it (a
 * workspace under a tenant's workspace inherits into, and receives reports of, that tenant).
 * Gatehouse's objects: the reserved types, any tenant as a resource, and every object that is the
 * resource of a tuple in a Gatehouse partition (tenants, workspaces, roles seeded or custom,
 * groups, bindings, reported resources). Principals are identities, not objects: always allowed
 * as subjects.
 */
async function firstGatehouseObject(tx: Queryable, rels: Relationship[]): Promise<number | undefined> {
  const types: string[] = [];
  const ids: string[] = [];
  const owners: number[] = [];
  for (const [i, r] of rels.entries()) {
    if (RESERVED_TYPES.has(r.resourceType) || RESERVED_TYPES.has(r.subjectType) || r.resourceType === TENANT) return i;
    types.push(r.resourceType);
    ids.push(r.resourceId);
    owners.push(i);
    if (r.subjectType === PRINCIPAL) continue;
    types.push(r.subjectType);
    ids.push(r.subjectId);
    owners.push(i);
  }
  const [row] = await tx.query<{ i: number }>(
    `SELECT min(d.i) AS i FROM unnest($1::text[], $2::text[], $3::int[]) AS d(ot, oid, i)
     WHERE EXISTS (SELECT 1 FROM gh_tuples t WHERE t.resource_type = d.ot AND t.resource_id = d.oid AND t.org_id <> $4)`,
    [types, ids, owners, REPLICATED_PARTITION],
  );
  return row?.i ?? undefined;
}

export function replicatedRepository(ctx: StoreContext): ReplicatedRepository {
  return {
    async create(tuples, options) {
      const rels = requireTuples(tuples);
      return runWrite<ReplicatedWriteOutcome>(ctx, REPLICATED_PARTITION, "replicate_tuples", async (w) => {
        w.markUnchanged();
        if (!(await lockHolds(w.tx, options.fencing))) return { ok: false, reason: "lock-mismatch" };
        const owned = await firstGatehouseObject(w.tx, rels);
        if (owned !== undefined) {
          throw new StoreError("cross-tenant", `tuples[${owned}] names an object Gatehouse manages; replicated tuples may not reach it.`, "tuples");
        }
        if (!options.upsert) {
          const [existing] = await w.tx.query<Row>(
            `SELECT t.resource_type, t.resource_id, t.relation, t.subject_type, t.subject_id, t.subject_relation
             FROM gh_tuples t, unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS d(rt, rid, rel, st, sid, sr)
             WHERE t.org_id = $1 AND t.resource_type = d.rt AND t.resource_id = d.rid AND t.relation = d.rel
               AND t.subject_type = d.st AND t.subject_id = d.sid AND t.subject_relation = d.sr LIMIT 1`,
            [
              REPLICATED_PARTITION,
              columns(rels, (r) => r.resourceType),
              columns(rels, (r) => r.resourceId),
              columns(rels, (r) => r.relation),
              columns(rels, (r) => r.subjectType),
              columns(rels, (r) => r.subjectId),
              columns(rels, (r) => r.subjectRelation ?? ""),
            ],
          );
          if (existing) return { ok: false, reason: "exists", tuple: rowToRelationship(existing) };
          const keys = new Set<string>();
          for (const r of rels) {
            if (keys.has(tupleKey(r))) return { ok: false, reason: "exists", tuple: r };
            keys.add(tupleKey(r));
          }
        }
        await w.touch(rels);
        return { ok: true, count: w.changes.touched.length };
      });
    },

    async delete(filter, options) {
      return runWrite<ReplicatedWriteOutcome>(ctx, REPLICATED_PARTITION, "replicate_delete", async (w) => {
        w.markUnchanged();
        if (!(await lockHolds(w.tx, options.fencing))) return { ok: false, reason: "lock-mismatch" };
        const params: unknown[] = [REPLICATED_PARTITION];
        const rows = await w.tx.query<Row>(`SELECT resource_type, resource_id, relation, subject_type, subject_id, subject_relation FROM gh_tuples WHERE ${filterSql(filter, params)}`, params);
        await w.remove(rows.map(rowToRelationship));
        return { ok: true, count: w.changes.deleted.length };
      });
    },

    async read(filter, page = {}) {
      const limit = Math.min(Math.max(1, page.limit ?? MAX_PAGE), MAX_PAGE);
      const params: unknown[] = [REPLICATED_PARTITION];
      let where = filterSql(filter, params);
      if (page.after !== undefined) {
        const a = page.after;
        params.push(a.resourceType, a.resourceId, a.relation, a.subjectType, a.subjectId, a.subjectRelation ?? "");
        const n = params.length;
        where += ` AND (resource_type, resource_id, relation, subject_type, subject_id, subject_relation) > ($${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
      }
      const rows = await ctx.db.query<Row>(
        `SELECT resource_type, resource_id, relation, subject_type, subject_id, subject_relation FROM gh_tuples WHERE ${where}
         ORDER BY resource_type, resource_id, relation, subject_type, subject_id, subject_relation LIMIT ${limit}`,
        params,
      );
      return rows.map(rowToRelationship);
    },

    async acquireLock(lockId) {
      // The lock is a relationship like any other: an id the graph would refuse must never reach the
      // change feed, where every engine would fail to apply it.
      if (typeof lockId !== "string" || lockId.length > 1024 || !isValidObjectId(lockId) || lockId === "*") throw new StoreError("invalid-argument", "Invalid lock id.", "lock_id");
      const token = randomUUID();
      const written = await runWrite(ctx, REPLICATED_PARTITION, "acquire_lock", async (w) => {
        const held = await w.tx.query<{ subject_id: string }>(
          "SELECT subject_id FROM gh_tuples WHERE org_id = $1 AND resource_type = $2 AND resource_id = $3 AND relation = $4 AND subject_type = $5",
          [REPLICATED_PARTITION, LOCK.resourceType, lockId, LOCK.relation, LOCK.subjectType],
        );
        const tuple = (version: string): Relationship => ({ resourceType: LOCK.resourceType, resourceId: lockId, relation: LOCK.relation, subjectType: LOCK.subjectType, subjectId: version });
        await w.remove(held.map((h) => tuple(h.subject_id)));
        await w.touch([tuple(token)]);
        return token;
      });
      return written;
    },
  };
}
