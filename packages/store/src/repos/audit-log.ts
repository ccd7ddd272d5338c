// insights-rbac's audit log: one row per management write, written in that write's transaction
// (so a refused or failed write logs nothing), listed per organisation.
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import type { AuditEntry, AuditLogRecord, AuditLogRepository, Page } from "../types.js";
import { namePattern, pageBounds, requireOrgId } from "../validate.js";
import type { WriteContext } from "../write.js";

/** Upstream's column lengths: descriptions are cut at 255 characters. */
const DESCRIPTION_MAX = 255;

interface AuditRow {
  id: string;
  created_at: Date;
  principal_username: string;
  description: string;
  resource_type: string;
  resource_uuid: string | null;
  secondary_resource_uuid: string | null;
  action: string;
  [k: string]: unknown;
}

export async function recordAudit(w: WriteContext, orgId: string, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await w.tx.query(
    `INSERT INTO gh_audit_logs (org_id, principal_username, description, resource_type, resource_uuid, secondary_resource_uuid, action)
     SELECT $1, u, d, t, r::uuid, s::uuid, a FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(u, d, t, r, s, a)`,
    [
      orgId,
      entries.map((e) => e.principalUsername),
      entries.map((e) => e.description.slice(0, DESCRIPTION_MAX)),
      entries.map((e) => e.resourceType),
      entries.map((e) => e.resourceUuid ?? null),
      entries.map((e) => e.secondaryResourceUuid ?? null),
      entries.map((e) => e.action),
    ],
  );
}

const ORDER_COLUMNS: Record<string, string> = { sequence: "id", created: "created_at", principal_username: "principal_username", resource_type: "resource_type", action: "action" };

function requireTime(value: Date, field: string): string {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new StoreError("invalid-argument", "Enter a valid date/time.", field);
  return value.toISOString();
}

export function auditLogRepository(ctx: StoreContext): AuditLogRepository {
  return {
    async list(orgId, query = {}): Promise<Page<AuditLogRecord>> {
      requireOrgId(orgId);
      const params: unknown[] = [orgId];
      const where = ["org_id = $1"];
      const add = (clause: (p: string) => string, value: unknown) => {
        params.push(value);
        where.push(clause(`$${params.length}`));
      };
      if (query.principalUsername !== undefined && query.principalUsername !== "") {
        if (query.exactUsername) add((p) => `lower(principal_username) = lower(${p})`, query.principalUsername);
        else add((p) => `principal_username ILIKE ${p}`, namePattern(query.principalUsername));
      }
      if (query.resourceTypes?.length) add((p) => `resource_type = ANY(${p}::text[])`, query.resourceTypes);
      if (query.actions?.length) add((p) => `action = ANY(${p}::text[])`, query.actions);
      // Listed times have milliseconds: a bound equal to a listed time includes that row.
      if (query.createdAfter) add((p) => `date_trunc('milliseconds', created_at) >= ${p}::timestamptz`, requireTime(query.createdAfter, "created_after"));
      if (query.createdBefore) add((p) => `date_trunc('milliseconds', created_at) <= ${p}::timestamptz`, requireTime(query.createdBefore, "created_before"));
      const orderBy = query.orderBy ?? "-sequence";
      const desc = orderBy.startsWith("-");
      const column = ORDER_COLUMNS[desc ? orderBy.slice(1) : orderBy];
      if (!column) throw new StoreError("invalid-argument", `Unknown order_by '${orderBy}'.`, "order_by");
      const { limit, offset } = pageBounds(query.limit, query.offset);
      const filter = where.join(" AND ");
      const [count] = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gh_audit_logs WHERE ${filter}`, params);
      const rows = await ctx.db.query<AuditRow>(
        `SELECT id::text AS id, created_at, principal_username, description, resource_type, resource_uuid::text AS resource_uuid,
                secondary_resource_uuid::text AS secondary_resource_uuid, action
         FROM gh_audit_logs WHERE ${filter} ORDER BY ${column} ${desc ? "DESC" : "ASC"}, id ${desc ? "DESC" : "ASC"} LIMIT ${limit ?? "ALL"} OFFSET ${offset}`,
        params,
      );
      return {
        count: count?.n ?? 0,
        data: rows.map((r) => ({
          id: r.id,
          created: r.created_at,
          principalUsername: r.principal_username,
          description: r.description,
          resourceType: r.resource_type as AuditEntry["resourceType"],
          resourceUuid: r.resource_uuid,
          secondaryResourceUuid: r.secondary_resource_uuid,
          action: r.action as AuditEntry["action"],
        })),
      };
    },
  };
}
