// insights-rbac's audit log: what each v1 write records (descriptions in upstream's words) and
// GET /api/rbac/v1/auditlogs/.
import type { AuditEntry, AuditLogRecord, Group, Principal, Role } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { forbidden, invalid } from "../domain/errors.js";
import { echo } from "../schemas/common.js";
import { pyList } from "./v1-access.js";
import { isAdmin, type Services } from "./services.js";

const entry = (ctx: RequestContext, fields: Omit<AuditEntry, "principalUsername">): AuditEntry => ({ principalUsername: ctx.caller.username, ...fields });

export const audit = {
  created: (ctx: RequestContext, type: "group" | "role", object: Group | Role): AuditEntry[] => [
    entry(ctx, { resourceType: type, action: "create", resourceUuid: object.id, description: `Created ${type}: ${object.name}` }),
  ],
  deleted: (ctx: RequestContext, type: "group" | "role", object: Group | Role): AuditEntry[] => [
    entry(ctx, { resourceType: type, action: "delete", resourceUuid: object.id, description: `Deleted ${type}: ${object.name}` }),
  ],
  /** Upstream lists what the request changed against the object as it was. */
  edited: (ctx: RequestContext, type: "group" | "role", before: Group | Role, request: { name?: unknown; description?: unknown; display_name?: unknown; access?: unknown }): AuditEntry[] => {
    let description = `${type} ${before.name}: \n `;
    if (request.name !== before.name) description += "Edited name \n";
    if ((request.description ?? null) !== before.description) description += "Edited description";
    if (type === "role") {
      if (request.display_name !== ((before as Role).displayName ?? before.name)) description += "Edited display name \n";
      if (Array.isArray(request.access) && request.access.length > 0) description += "edited access (permissions/resources)";
    }
    return [entry(ctx, { resourceType: type, action: "edit", resourceUuid: before.id, description })];
  },
  assigned: (ctx: RequestContext, group: Group, kind: "role" | "user" | "service-account", objects: { id: string; name: string }[], action: "add" | "remove"): AuditEntry[] =>
    objects.map((o) =>
      entry(ctx, {
        resourceType: "group",
        action,
        resourceUuid: group.id,
        secondaryResourceUuid: kind === "role" ? o.id : null,
        description: `${kind} ${o.name} ${action === "add" ? "added to" : "removed from"} group: ${group.name}`,
      }),
    ),
  members: (ctx: RequestContext, group: Group, principals: Principal[], action: "add" | "remove"): AuditEntry[] => [
    ...audit.assigned(
      ctx,
      group,
      "user",
      principals.filter((p) => p.type === "user").map((p) => ({ id: p.userId, name: p.username })),
      action,
    ),
    ...audit.assigned(
      ctx,
      group,
      "service-account",
      principals.filter((p) => p.type !== "user").map((p) => ({ id: p.userId, name: p.username })),
      action,
    ),
  ],
};

const RESOURCE_TYPES = ["group", "role", "role_v2", "user", "permission", "workspace", "role_binding", "cross_account_request"] as const;
const ACTIONS = ["delete", "add", "edit", "create", "remove"] as const;
const ORDERING = ["sequence", "created", "principal_username", "resource_type", "action"];

export interface AuditLogQueryParams {
  principalUsername?: string | undefined;
  nameMatch?: string | undefined;
  resourceTypes?: string[] | undefined;
  actions?: string[] | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  orderBy?: string | undefined;
}

/** ISO 8601 as django-filter's IsoDateTimeFilter reads it: a date, or a date and time with an optional zone (none: UTC). */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

function isoDateTime(name: string, value: string | undefined): Date | undefined {
  if (value === undefined || value === "") return undefined;
  const m = ISO_DATE_TIME.exec(value.trim());
  if (m) {
    const [, y, mo, d, h = "00", mi = "00", s = "00", frac = "", zone = "Z"] = m;
    const daysInMonth = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
    // Out-of-range parts (month 13, hour 24, 31 April) are refused, not rolled over.
    if (Number(mo) >= 1 && Number(mo) <= 12 && Number(d) >= 1 && Number(d) <= daysInMonth && Number(h) <= 23 && Number(mi) <= 59 && Number(s) <= 59) {
      const offset = zone === "Z" ? "Z" : `${zone.slice(0, 3)}:${zone.length > 3 ? zone.slice(-2) : "00"}`;
      const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(3, "0").slice(0, 3)}${offset}`);
      if (!Number.isNaN(date.getTime())) return date;
    }
  }
  throw invalid("Enter a valid date/time.", name);
}

function choices(name: string, values: string[] | undefined, allowed: readonly string[]): string[] | undefined {
  if (!values?.length) return undefined;
  const bad = values.find((v) => !allowed.includes(v));
  // django-filter's MultipleChoiceFilter words.
  if (bad !== undefined) throw invalid(`Select a valid choice. ${echo(bad)} is not one of the available choices.`, name);
  return values;
}

export interface AuditLogItem {
  /** The row's id: increasing in the order rows were written (upstream's `sequence`). */
  sequence: number;
  created: string;
  principal_username: string;
  description: string;
  resource_type: string;
  action: string;
}

/** Org admins only, as upstream's AuditLogAccessPermission. */
export async function listAuditLogs(services: Services, ctx: RequestContext, query: AuditLogQueryParams, page: { limit: number; offset: number }): Promise<{ count: number; data: AuditLogItem[] }> {
  if (!isAdmin(ctx)) throw forbidden();
  const order = query.orderBy ?? "-sequence";
  const field = order.split(",")[0]!.replace(/^-/, "");
  // DRF's OrderingFilter ignores unknown fields and falls back to the default ordering (newest row first).
  const orderBy = ORDERING.includes(field) ? order.split(",")[0]! : "-sequence";
  const createdAfter = isoDateTime("created_after", query.createdAfter);
  const createdBefore = isoDateTime("created_before", query.createdBefore);
  if (query.nameMatch !== undefined && !["partial", "exact"].includes(query.nameMatch)) {
    throw invalid(`name_match query parameter value ${echo(query.nameMatch)} is invalid. Valid inputs are ${pyList(["partial", "exact"])}.`);
  }
  const result = await services.store.auditLog.list(ctx.tenant.orgId, {
    ...(query.principalUsername !== undefined ? { principalUsername: query.principalUsername } : {}),
    exactUsername: query.nameMatch === "exact",
    ...(choices("resource_type", query.resourceTypes, RESOURCE_TYPES) ? { resourceTypes: query.resourceTypes! } : {}),
    ...(choices("action", query.actions, ACTIONS) ? { actions: query.actions! } : {}),
    ...(createdAfter ? { createdAfter } : {}),
    ...(createdBefore ? { createdBefore } : {}),
    orderBy,
    limit: page.limit,
    offset: page.offset,
  });
  return {
    count: result.count,
    data: result.data.map((r: AuditLogRecord) => ({
      sequence: Number(r.id),
      created: r.created.toISOString(),
      principal_username: r.principalUsername,
      description: r.description,
      resource_type: r.resourceType,
      action: r.action,
    })),
  };
}
