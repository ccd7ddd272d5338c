// insights-rbac's audit log: what each v1 write records (descriptions in upstream's words) and
// GET /api/rbac/v1/auditlogs/.
import type { AuditEntry, AuditLogRecord, Group, Principal, Role } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { forbidden } from "../domain/errors.js";
import type { V1AuditLogQuery } from "../schemas/v1-queries.js";
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

const ORDERING = ["sequence", "created", "principal_username", "resource_type", "action"];

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
export async function listAuditLogs(services: Services, ctx: RequestContext, query: V1AuditLogQuery, page: { limit: number; offset: number }): Promise<{ count: number; data: AuditLogItem[] }> {
  if (!isAdmin(ctx)) throw forbidden();
  const order = query.order_by ?? "-sequence";
  const field = order.split(",")[0]!.replace(/^-/, "");
  // DRF's OrderingFilter ignores unknown fields and falls back to the default ordering (newest row first).
  const orderBy = ORDERING.includes(field) ? order.split(",")[0]! : "-sequence";
  const result = await services.store.auditLog.list(ctx.tenant.orgId, {
    ...(query.principal_username !== undefined ? { principalUsername: query.principal_username } : {}),
    exactUsername: query.name_match === "exact",
    ...(query.resource_type ? { resourceTypes: query.resource_type } : {}),
    ...(query.action ? { actions: query.action } : {}),
    ...(query.created_after ? { createdAfter: query.created_after } : {}),
    ...(query.created_before ? { createdBefore: query.created_before } : {}),
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
