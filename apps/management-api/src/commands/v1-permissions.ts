// GET /api/rbac/v1/permissions/ and /permissions/options/: the active role configuration's
// permission catalogue with insights-rbac's filters (the console's permission pickers).
import { byteOrder, type PermissionRecord } from "../authz/catalogue.js";
import type { RequestContext } from "../domain/context.js";
import { isMissing } from "../domain/errors.js";
import type { PERMISSION_OPTION_FIELDS, V1PermissionFilter } from "../schemas/v1-queries.js";
import { requireOnTenant, type Services } from "./services.js";

type OptionField = (typeof PERMISSION_OPTION_FIELDS)[number];
/** Fields a list may be ordered by besides the default (`permission`); others are ignored, as DRF's OrderingFilter does. */
const ORDER_FIELDS: readonly string[] = ["application", "resource_type", "verb", "permission"];

/** A comma list of exact values (upstream's `multiple_values_in`); undefined when not given. */
const commaValues = (value: string | undefined): Set<string> | undefined => (value ? new Set(value.split(",")) : undefined);

/** The catalogue narrowed by upstream's `PermissionFilter`; the caller may read permissions. */
async function filteredPermissions(services: Services, ctx: RequestContext, filter: V1PermissionFilter): Promise<PermissionRecord[]> {
  await requireOnTenant(services, ctx, "rbac_permissions_read");
  const applications = commaValues(filter.application);
  const resourceTypes = commaValues(filter.resourceType);
  const verbs = commaValues(filter.verb);
  const fragment = filter.permission?.toLowerCase();
  const { excludeGlobals, allowedOnly } = filter;
  const excluded = await permissionsOfRoles(services, ctx, filter.excludeRoles);
  const allowList = services.config.roleCreateAllowList;
  return services.catalogue.records.filter(
    (p) =>
      (!applications || applications.has(p.application)) &&
      (!resourceTypes || resourceTypes.has(p.resource_type)) &&
      (!verbs || verbs.has(p.verb)) &&
      (!fragment || p.permission.toLowerCase().includes(fragment)) &&
      !(excludeGlobals && (p.application === "*" || p.resource_type === "*" || p.verb === "*")) &&
      !(allowedOnly && allowList !== undefined && !allowList.includes(p.application)) &&
      !excluded.has(p.permission),
  );
}

/**
 * Permissions held by the roles `exclude_roles` names. Roles the organisation cannot see count as
 * holding nothing, so another tenant's roles reveal nothing.
 */
async function permissionsOfRoles(services: Services, ctx: RequestContext, ids: readonly string[]): Promise<Set<string>> {
  const held = new Set<string>();
  for (const id of ids) {
    const role = await services.store.roles.get(ctx.tenant.orgId, id).catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
    for (const permission of role?.permissions ?? []) held.add(permission);
  }
  return held;
}

/** `/permissions/`: byte order of the permission string unless `order_by` names a field (`-` descending). */
export async function listV1Permissions(services: Services, ctx: RequestContext, filter: V1PermissionFilter, orderBy: string | undefined): Promise<PermissionRecord[]> {
  const records = await filteredPermissions(services, ctx, filter);
  const desc = orderBy?.startsWith("-") ?? false;
  const field = orderBy?.replace(/^-/, "") ?? "permission";
  const key = (ORDER_FIELDS.includes(field) ? field : "permission") as keyof PermissionRecord & ("application" | "resource_type" | "verb" | "permission");
  const sign = desc ? -1 : 1;
  return [...records].sort((a, b) => sign * (byteOrder(a[key], b[key]) || byteOrder(a.permission, b.permission)));
}

/** `/permissions/options/`: the distinct values of one `field`, ascending, over the filtered catalogue. */
export async function v1PermissionOptions(services: Services, ctx: RequestContext, chosen: OptionField, filter: V1PermissionFilter): Promise<string[]> {
  await requireOnTenant(services, ctx, "rbac_permissions_read");
  const records = await filteredPermissions(services, ctx, filter);
  return [...new Set(records.map((r) => r[chosen]))].sort(byteOrder);
}
