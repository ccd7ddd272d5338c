// insights-rbac's cross-account requests. A request belongs to its target organisation: every
// write takes that organisation's write lock. An approved request grants the associate (principal
// `<domain>/<user_id>`) its roles in the target organisation through ordinary binding subjects that
// expire at its end date, written once its start has come (at approval, or by the sweep), so the
// evaluator drops them at the end by itself; `gh_cross_account_grants` records which subjects the
// requests own, so ending a request never removes a grant the organisation made itself.
import { randomUUID } from "node:crypto";
import type { StoreContext } from "../context.js";
import type { Queryable } from "../db/db.js";
import { StoreError } from "../errors.js";
import type { AuditOf, BindingResource, CrossAccountListQuery, CrossAccountRepository, CrossAccountRequest, CrossAccountRole, CrossAccountStatus, Page, RoleScope } from "../types.js";
import { isUuid, pageBounds, requireOrgId } from "../validate.js";
import { requireTenantRow, runWrite, type TenantRow, type WriteContext } from "../write.js";
import { recordAudit } from "./audit-log.js";
import { findOrCreateBinding, grantRoles, removeSubject, type BindingRow, type RoleGrant } from "./role-bindings.js";

interface RequestRow {
  request_id: string;
  target_org: string;
  target_account: string | null;
  user_id: string;
  requester_username: string | null;
  requester_email: string | null;
  requester_first_name: string | null;
  requester_last_name: string | null;
  start_date: Date | string;
  end_date: Date | string;
  status: CrossAccountStatus;
  created_at: Date | string;
  modified_at: Date | string;
  [k: string]: unknown;
}

const ORDER_COLUMNS: Record<NonNullable<CrossAccountListQuery["orderBy"]>["field"], string> = {
  request_id: "request_id",
  start_date: "start_date",
  end_date: "end_date",
  created: "created_at",
  modified: "modified_at",
  status: "status",
};

async function rolesOf(tx: Queryable, requestIds: string[]): Promise<Map<string, CrossAccountRole[]>> {
  const out = new Map<string, CrossAccountRole[]>();
  if (requestIds.length === 0) return out;
  const rows = await tx.query<{ request_id: string; id: string; name: string; display_name: string | null; description: string | null }>(
    `SELECT rr.request_id::text AS request_id, r.id::text AS id, r.name, r.display_name, r.description
     FROM gh_cross_account_request_roles rr JOIN gh_roles r ON r.id = rr.role_id
     WHERE rr.request_id = ANY($1::uuid[]) ORDER BY rr.request_id, rr.position`,
    [requestIds],
  );
  for (const r of rows) {
    const list = out.get(r.request_id) ?? [];
    list.push({ id: r.id, name: r.name, displayName: r.display_name ?? r.name, description: r.description });
    out.set(r.request_id, list);
  }
  return out;
}

async function toRequests(tx: Queryable, rows: RequestRow[]): Promise<CrossAccountRequest[]> {
  const roles = await rolesOf(
    tx,
    rows.map((r) => r.request_id),
  );
  return rows.map((r) => ({
    requestId: r.request_id,
    targetOrg: r.target_org,
    targetAccount: r.target_account,
    userId: r.user_id,
    requester: { username: r.requester_username, email: r.requester_email, firstName: r.requester_first_name, lastName: r.requester_last_name },
    startDate: new Date(r.start_date),
    endDate: new Date(r.end_date),
    status: r.status,
    created: new Date(r.created_at),
    modified: new Date(r.modified_at),
    roles: roles.get(r.request_id) ?? [],
  }));
}

async function loadRequest(tx: Queryable, requestId: string, lock: boolean): Promise<CrossAccountRequest | undefined> {
  if (!isUuid(requestId)) return undefined;
  const rows = await tx.query<RequestRow>(`SELECT * FROM gh_cross_account_requests WHERE request_id = $1${lock ? " FOR UPDATE" : ""}`, [requestId]);
  return (await toRequests(tx, rows))[0];
}

async function setRoles(tx: Queryable, requestId: string, roleIds: string[]): Promise<void> {
  await tx.query("DELETE FROM gh_cross_account_request_roles WHERE request_id = $1", [requestId]);
  const ids = [...new Set(roleIds)];
  if (ids.length === 0) return;
  await tx.query(
    `INSERT INTO gh_cross_account_request_roles (request_id, role_id, position)
     SELECT $1, r, p FROM unnest($2::uuid[], $3::int[]) AS x(r, p)`,
    [requestId, ids, ids.map((_, i) => i)],
  );
}

function levelResource(tenant: TenantRow, scope: RoleScope): BindingResource {
  if (scope === "tenant") return { type: "tenant", id: tenant.tenant_id };
  return { type: "workspace", id: scope === "root" ? tenant.root_workspace_id : tenant.default_workspace_id };
}

/**
 * Makes the binding subjects of (organisation, user) what its approved requests grant at `now`:
 * each role bound at its scope's level until the latest end date among the requests naming it.
 * A subject the organisation granted itself is neither taken over nor removed.
 */
async function syncGrants(ctx: StoreContext, w: WriteContext, orgId: string, userId: string, now: Date): Promise<void> {
  const tenant = await requireTenantRow(w.tx, orgId);
  const wanted = await w.tx.query<{ role_id: string; scope: RoleScope; until: Date | string }>(
    `SELECT rr.role_id::text AS role_id, r.scope, max(c.end_date) AS until
     FROM gh_cross_account_requests c
     JOIN gh_cross_account_request_roles rr ON rr.request_id = c.request_id
     JOIN gh_roles r ON r.id = rr.role_id AND r.kind = 'seeded'
     WHERE c.target_org = $1 AND c.user_id = $2 AND c.status = 'approved' AND c.start_date <= $3 AND c.end_date > $3
     GROUP BY rr.role_id, r.scope`,
    [orgId, userId, now],
  );
  await w.tx.query(
    `UPDATE gh_cross_account_requests SET granted = true
     WHERE target_org = $1 AND user_id = $2 AND status = 'approved' AND start_date <= $3 AND end_date > $3 AND NOT granted`,
    [orgId, userId, now],
  );
  const owned = new Set(
    (await w.tx.query<{ binding_id: string }>("SELECT binding_id::text AS binding_id FROM gh_cross_account_grants WHERE org_id = $1 AND user_id = $2", [orgId, userId])).map((r) => r.binding_id),
  );
  const subject = { type: "principal" as const, id: userId };
  const keep = new Set<string>();
  const grants: RoleGrant[] = [];
  for (const role of wanted) {
    const resource = levelResource(tenant, role.scope);
    const bindingId = await findOrCreateBinding(ctx, w, orgId, role.role_id, resource);
    if (!owned.has(bindingId)) {
      const [theirs] = await w.tx.query("SELECT 1 FROM gh_role_binding_subjects WHERE binding_id = $1 AND subject_type = 'principal' AND subject_id = $2", [bindingId, userId]);
      if (theirs) continue;
      await w.tx.query("INSERT INTO gh_cross_account_grants (org_id, user_id, binding_id) VALUES ($1, $2, $3)", [orgId, userId, bindingId]);
    }
    keep.add(bindingId);
    grants.push({ roleId: role.role_id, resource, subject, expiresAt: new Date(role.until) });
  }
  await grantRoles(ctx, w, orgId, grants);
  const ended = [...owned].filter((id) => !keep.has(id));
  if (ended.length === 0) return;
  const rows = await w.tx.query<BindingRow>("SELECT * FROM gh_role_bindings WHERE id = ANY($1::uuid[])", [ended]);
  for (const binding of rows) await removeSubject(ctx, w, orgId, binding, subject);
  await w.tx.query("DELETE FROM gh_cross_account_grants WHERE org_id = $1 AND user_id = $2 AND binding_id = ANY($3::uuid[])", [orgId, userId, ended]);
}

export function crossAccountRepository(ctx: StoreContext): CrossAccountRepository {
  const now = () => new Date(ctx.now());

  return {
    async publicRolesByDisplayName(names) {
      if (names.length === 0) return [];
      const rows = await ctx.db.query<{ id: string; display_name: string; kind: string }>(
        `SELECT id::text AS id, coalesce(display_name, name) AS display_name, kind FROM gh_roles
         WHERE org_id IS NULL AND coalesce(display_name, name) = ANY($1::text[]) ORDER BY kind DESC, id`,
        [names],
      );
      return rows.map((r) => ({ id: r.id, displayName: r.display_name, system: r.kind === "seeded" }));
    },

    async create(input, audit?: AuditOf<CrossAccountRequest>) {
      requireOrgId(input.targetOrg);
      return runWrite(ctx, input.targetOrg, "create_cross_account_request", async (w) => {
        await requireTenantRow(w.tx, input.targetOrg);
        const id = randomUUID();
        const at = now();
        await w.tx.query(
          `INSERT INTO gh_cross_account_requests (request_id, target_org, target_account, user_id, requester_username, requester_email,
             requester_first_name, requester_last_name, start_date, end_date, status, created_at, modified_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $11)`,
          [
            id,
            input.targetOrg,
            input.targetAccount,
            input.userId,
            input.requester.username,
            input.requester.email,
            input.requester.firstName,
            input.requester.lastName,
            input.startDate,
            input.endDate,
            at,
          ],
        );
        await setRoles(w.tx, id, input.roleIds);
        const created = (await loadRequest(w.tx, id, false))!;
        if (audit) await recordAudit(w, input.targetOrg, audit(created));
        return created;
      });
    },

    get(requestId) {
      return loadRequest(ctx.db, requestId, false);
    },

    async list(query): Promise<Page<CrossAccountRequest>> {
      const params: unknown[] = [];
      const where: string[] = [];
      const add = (clause: (p: string) => string, value: unknown) => {
        params.push(value);
        where.push(clause(`$${params.length}`));
      };
      if ("targetOrg" in query.by) add((p) => `target_org = ${p}`, requireOrgId(query.by.targetOrg));
      else add((p) => `user_id = ${p}`, query.by.userId);
      if (query.statuses && query.statuses.length > 0)
        add(
          (p) => `lower(status) = ANY(${p}::text[])`,
          query.statuses.map((s) => s.toLowerCase()),
        );
      if (query.targetOrgs && query.targetOrgs.length > 0) add((p) => `target_org = ANY(${p}::text[])`, query.targetOrgs);
      if (query.approvedOnly) add((p) => `status = 'approved' AND start_date < ${p} AND end_date > ${p}`, now());
      const filter = where.join(" AND ");
      const order = query.orderBy ? `${ORDER_COLUMNS[query.orderBy.field]} ${query.orderBy.descending ? "DESC" : "ASC"}, ` : "";
      const { limit, offset } = pageBounds(query.limit, query.offset);
      const [count] = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gh_cross_account_requests WHERE ${filter}`, params);
      const rows = await ctx.db.query<RequestRow>(`SELECT * FROM gh_cross_account_requests WHERE ${filter} ORDER BY ${order}created_at, request_id LIMIT ${limit ?? "ALL"} OFFSET ${offset}`, params);
      return { data: await toRequests(ctx.db, rows), count: count?.n ?? 0 };
    },

    async update(requestId, decide, audit) {
      const found = await loadRequest(ctx.db, requestId, false);
      if (!found) throw new StoreError("not-found", "Not found.", "uuid");
      // The decision's refusal is the caller's own error: it leaves the transaction as thrown.
      let refusal: { error: unknown } | undefined;
      const decided = (before: CrossAccountRequest, at: number) => {
        try {
          return decide(before, at);
        } catch (error) {
          refusal = { error };
          throw error;
        }
      };
      return runWrite(ctx, found.targetOrg, "update_cross_account_request", async (w) => {
        // Read again under the organisation's lock: the decision sees the request as it is now.
        const before = (await loadRequest(w.tx, requestId, true))!;
        const at = now();
        const change = decided(before, at.getTime());
        await w.tx.query(
          `UPDATE gh_cross_account_requests SET start_date = coalesce($2, start_date), end_date = coalesce($3, end_date),
             status = coalesce($4, status), target_account = CASE WHEN $5 THEN $6 ELSE target_account END,
             granted = CASE WHEN $4::text IS NOT NULL AND $4::text <> status THEN false ELSE granted END, modified_at = $7
           WHERE request_id = $1`,
          [requestId, change.startDate ?? null, change.endDate ?? null, change.status ?? null, change.targetAccount !== undefined, change.targetAccount ?? null, at],
        );
        if (change.roleIds) await setRoles(w.tx, requestId, change.roleIds);
        await syncGrants(ctx, w, before.targetOrg, before.userId, at);
        const after = (await loadRequest(w.tx, requestId, false))!;
        if (audit) await recordAudit(w, before.targetOrg, audit({ before, after }));
        return after;
      }).catch((error: unknown) => {
        throw refusal ? refusal.error : error;
      });
    },

    async activeRoleIds(targetOrg, userId) {
      const rows = await ctx.db.query<{ role_id: string }>(
        `SELECT DISTINCT rr.role_id::text AS role_id FROM gh_cross_account_requests c
         JOIN gh_cross_account_request_roles rr ON rr.request_id = c.request_id
         JOIN gh_roles r ON r.id = rr.role_id AND r.kind = 'seeded'
         WHERE c.target_org = $1 AND c.user_id = $2 AND c.status = 'approved' AND c.start_date <= $3 AND c.end_date > $3
         ORDER BY 1`,
        [targetOrg, userId, now()],
      );
      return rows.map((r) => r.role_id);
    },

    async sweep() {
      const at = now();
      const due = await ctx.db.query<{ target_org: string }>(
        `SELECT DISTINCT target_org FROM gh_cross_account_requests
         WHERE (status IN ('pending', 'approved') AND end_date <= $1) OR (status = 'approved' AND NOT granted AND start_date <= $1)
         ORDER BY target_org`,
        [at],
      );
      let expired = 0;
      let granted = 0;
      const revisions: number[] = [];
      for (const { target_org: orgId } of due) {
        const written = await runWrite(ctx, orgId, "sweep_cross_account_requests", async (w) => {
          const ending = await w.tx.query<{ request_id: string; user_id: string }>(
            `UPDATE gh_cross_account_requests SET status = 'expired', modified_at = $2
             WHERE target_org = $1 AND status IN ('pending', 'approved') AND end_date <= $2 RETURNING request_id::text AS request_id, user_id`,
            [orgId, at],
          );
          const starting = await w.tx.query<{ user_id: string }>(
            "SELECT DISTINCT user_id FROM gh_cross_account_requests WHERE target_org = $1 AND status = 'approved' AND NOT granted AND start_date <= $2 AND end_date > $2",
            [orgId, at],
          );
          const users = new Set([...ending.map((r) => r.user_id), ...starting.map((r) => r.user_id)]);
          for (const userId of users) await syncGrants(ctx, w, orgId, userId, at);
          await recordAudit(
            w,
            orgId,
            ending.map((r) => ({
              principalUsername: "system",
              description: `Expired cross-account request ${r.request_id} of user ${r.user_id}`,
              resourceType: "cross_account_request" as const,
              action: "edit" as const,
              resourceUuid: r.request_id,
            })),
          );
          if (users.size === 0) w.markUnchanged();
          return { expired: ending.length, granted: starting.length };
        });
        expired += written.value.expired;
        granted += written.value.granted;
        if (written.value.expired + written.value.granted > 0) revisions.push(written.revision);
      }
      return { expired, granted, revisions };
    },
  };
}
