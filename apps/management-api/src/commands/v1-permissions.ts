// GET /api/rbac/v1/permissions/ and /permissions/options/: the active role configuration's
// permission catalogue with insights-rbac's filters (the console's permission pickers).
import { byteOrder, type PermissionRecord } from "../authz/catalogue.js";
import type { RequestContext } from "../domain/context.js";
import { invalid, isMissing } from "../domain/errors.js";
import { echo, UUID_PATTERN } from "../schemas/common.js";
import { requireOnTenant, type Services } from "./services.js";
import { validKey } from "./v1-access.js";

const BOOLEAN_VALUES = ["true", "false"] as const;
export const PERMISSION_OPTION_FIELDS = ["application", "resource_type", "verb"] as const;
type OptionField = (typeof PERMISSION_OPTION_FIELDS)[number];
/** Fields a list may be ordered by besides the default (`permission`); others are ignored, as DRF's OrderingFilter does. */
const ORDER_FIELDS: readonly string[] = ["application", "resource_type", "verb", "permission"];

export interface V1PermissionFilter {
  application?: string | undefined;
  resourceType?: string | undefined;
  verb?: string | undefined;
  permission?: string | undefined;
  excludeGlobals?: string | undefined;
  excludeRoles?: string | undefined;
  allowedOnly?: string | undefined;
}

/** A comma list of exact values (upstream's `multiple_values_in`); undefined when not given. */
const commaValues = (value: string | undefined): Set<string> | undefined => (value ? new Set(value.split(",")) : undefined);

/** The catalogue narrowed by upstream's `PermissionFilter`; the caller may read permissions. */
async function filteredPermissions(services: Services, ctx: RequestContext, filter: V1PermissionFilter): Promise<PermissionRecord[]> {
  await requireOnTenant(services, ctx, "rbac_permissions_read");
  const applications = commaValues(filter.application);
  const resourceTypes = commaValues(filter.resourceType);
  const verbs = commaValues(filter.verb);
  const fragment = filter.permission?.toLowerCase();
  // Present but empty is "required" upstream; absent is the default.
  const excludeGlobals = validKey("exclude_globals", filter.excludeGlobals ?? "false", BOOLEAN_VALUES, true) === "true";
  const allowedOnly = validKey("allowed_only", filter.allowedOnly ?? "false", BOOLEAN_VALUES, true) === "true";
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
 * Permissions held by the roles `exclude_roles` names (a comma list of UUIDs). Roles the
 * organisation cannot see count as holding nothing, so another tenant's roles reveal nothing.
 */
async function permissionsOfRoles(services: Services, ctx: RequestContext, raw: string | undefined): Promise<Set<string>> {
  if (!raw) return new Set();
  const ids = raw.split(",");
  for (const id of ids) if (!UUID_PATTERN.test(id)) throw invalid(`${echo(id)} is not a valid UUID.`, "UUID Validation");
  const held = new Set<string>();
  for (const id of new Set(ids.map((i) => i.toLowerCase()))) {
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
export async function v1PermissionOptions(services: Services, ctx: RequestContext, field: string | undefined, filter: V1PermissionFilter): Promise<string[]> {
  await requireOnTenant(services, ctx, "rbac_permissions_read");
  const chosen = validKey("field", field, PERMISSION_OPTION_FIELDS, true) as OptionField;
  const records = await filteredPermissions(services, ctx, filter);
  return [...new Set(records.map((r) => r[chosen]))].sort(byteOrder);
}
