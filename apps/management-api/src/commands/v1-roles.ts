// Read-only v1 roles (`/api/rbac/v1/roles/`, `/roles/{uuid}/`, `/groups/{uuid}/roles/`) in
// insights-rbac's v1 shapes, over the store's custom and seeded roles.
import type { Group, Role, V1AccessEntry } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { forbidden, invalid, missingAs, notFound } from "../domain/errors.js";
import { echo, UUID_PATTERN } from "../schemas/common.js";
import { ROLE_ORDER_FIELDS as ORDER_FIELDS, type RoleAddField as AddField, type V1GroupRolesQuery, type V1RoleListQuery } from "../schemas/v1-queries.js";
import { findPrincipalByUsername } from "./v1-access.js";
import { hasOnTenant, type Services } from "./services.js";

export interface V1RoleRecord {
  uuid: string;
  name: string;
  display_name: string;
  description: string | null;
  created: string;
  modified: string;
  policyCount: number;
  accessCount: number;
  applications: string[];
  system: boolean;
  platform_default: boolean;
  admin_default: boolean;
  external_role_id: null;
  external_tenant: null;
  access?: V1AccessEntry[];
  groups_in?: { name: string; uuid: string; description: string | null }[];
  groups_in_count?: number;
}

/** v1 records of roles: access lists, groups bound (default groups for admins only, as upstream). */
async function roleRecords(
  services: Services,
  ctx: RequestContext,
  roles: Role[],
  extra: readonly AddField[],
  includeAccess: boolean,
  principal?: { userId: string; isOrgAdmin: boolean },
): Promise<V1RoleRecord[]> {
  // For a principal's roles, groups_in lists that principal's groups only.
  const memberOf = principal ? new Set(await services.store.groups.groupsOf(ctx.tenant.orgId, principal.userId)) : null;
  const adminView = principal ? principal.isOrgAdmin : ctx.caller.isOrgAdmin;
  const ids = roles.map((r) => r.id);
  const [access, groups] = await Promise.all([services.store.v1.accessOf(ids), services.store.v1.groupsOfRoles(ctx.tenant.orgId, ids)]);
  return roles.map((role) => {
    const entries = access.get(role.id) ?? [];
    const allGroups = groups.get(role.id) ?? [];
    const visible = allGroups.filter((g: Group) => (g.kind !== "admin-default" || adminView) && (!memberOf || memberOf.has(g.id)));
    const record: V1RoleRecord = {
      uuid: role.id,
      name: role.name,
      display_name: role.displayName ?? role.name,
      description: role.description,
      created: role.created.toISOString(),
      modified: role.modified.toISOString(),
      policyCount: allGroups.length,
      accessCount: entries.length,
      applications: [...new Set(entries.map((e) => e.permission.split(":")[0]!))].sort(),
      system: role.kind !== "custom",
      platform_default: role.platformDefault,
      admin_default: role.adminDefault,
      external_role_id: null,
      external_tenant: null,
    };
    if (includeAccess || extra.includes("access")) record.access = entries;
    if (extra.includes("groups_in")) record.groups_in = visible.map((g) => ({ name: g.name, uuid: g.id, description: g.description }));
    if (extra.includes("groups_in_count")) record.groups_in_count = visible.length;
    return record;
  });
}

const v1Roles = async (services: Services, ctx: RequestContext) => (await services.store.roles.list(ctx.tenant.orgId, { kinds: ["custom", "seeded"], limit: -1 })).data;

const truthy = (v: string) => ["true", "1", "yes", "on"].includes(v.toLowerCase());
const falsy = (v: string) => ["false", "0", "no", "off"].includes(v.toLowerCase());

export async function listV1Roles(services: Services, ctx: RequestContext, query: V1RoleListQuery): Promise<V1RoleRecord[]> {
  const { scope, add_fields: extra } = query;
  const system = query.system !== undefined && truthy(query.system);
  const readAll = system || (await hasOnTenant(services, ctx, "rbac_roles_read"));
  if (!readAll && scope !== "principal") throw forbidden();

  let roles = await v1Roles(services, ctx);
  let principal: { userId: string; isOrgAdmin: boolean } | undefined;
  // scope=principal or username: only the roles reaching that principal.
  if (scope === "principal" || query.username) {
    let target = { userId: ctx.caller.userId, isOrgAdmin: ctx.caller.isOrgAdmin, isUser: !ctx.caller.isServiceAccount };
    if (query.username && scope !== "principal") {
      if (query.username.toLowerCase() !== ctx.caller.username.toLowerCase() && !readAll) return [];
      const found = await findPrincipalByUsername(services, ctx.tenant.orgId, query.username);
      if (!found) throw invalid(`No data found for principal with username '${echo(query.username)}'.`);
      target = { userId: found.userId, isOrgAdmin: found.isOrgAdmin, isUser: found.type === "user" };
    }
    const grants = await services.store.v1.grantsOf(ctx.tenant.orgId, target.userId, { isOrgAdmin: target.isOrgAdmin, defaultGroups: target.isUser });
    const held = new Set(grants.map((g) => g.roleId));
    principal = target;
    roles = roles.filter((r) => held.has(r.id));
  }

  const nameMatch = query.name_match;
  const matches = (value: string, wanted: string) => (nameMatch === "exact" ? value.toLowerCase() === wanted.toLowerCase() : value.toLowerCase().includes(wanted.toLowerCase()));
  if (query.name) roles = roles.filter((r) => matches(r.name, query.name!));
  if (query.display_name) roles = roles.filter((r) => matches(r.displayName ?? r.name, query.display_name!));
  if (query.system !== undefined && (truthy(query.system) || falsy(query.system))) roles = roles.filter((r) => (r.kind !== "custom") === truthy(query.system!));
  if (query.application) {
    const prefixes = query.application.split(",").map((a) => `${a.toLowerCase()}:`);
    roles = roles.filter((r) => r.permissions.some((p) => prefixes.some((prefix) => p.toLowerCase().startsWith(prefix))));
  }
  if (query.permission) {
    const wanted = new Set(query.permission.split(","));
    roles = roles.filter((r) => r.permissions.some((p) => wanted.has(p)));
  }

  const records = await roleRecords(services, ctx, roles, extra, false, principal);
  // DRF's OrderingFilter ignores unknown fields; default order is by name.
  const requested = (query.order_by ?? "")
    .split(",")
    .map((f) => f.trim())
    .filter((f) => (ORDER_FIELDS as readonly string[]).includes(f.replace(/^-/, "")));
  const order = requested.length > 0 ? requested : ["name"];
  const cmp = (a: V1RoleRecord, b: V1RoleRecord): number => {
    for (const f of order) {
      const desc = f.startsWith("-");
      const key = f.replace(/^-/, "") as (typeof ORDER_FIELDS)[number];
      const x = a[key];
      const y = b[key];
      if (x !== y) return (x < y ? -1 : 1) * (desc ? -1 : 1);
    }
    return 0;
  };
  return records.sort(cmp);
}

async function loadV1Role(services: Services, ctx: RequestContext, id: string): Promise<Role> {
  if (!UUID_PATTERN.test(id)) throw invalid(`${echo(id)} is not a valid UUID.`, "role uuid validation");
  const role = await services.store.roles.get(ctx.tenant.orgId, id.toLowerCase()).catch(missingAs(() => notFound()));
  if (role.kind === "platform") throw notFound();
  return role;
}

export async function getV1Role(services: Services, ctx: RequestContext, id: string): Promise<V1RoleRecord> {
  if (!(await hasOnTenant(services, ctx, "rbac_roles_read"))) throw forbidden();
  const [record] = await roleRecords(services, ctx, [await loadV1Role(services, ctx, id)], [], true);
  return record!;
}

/** `GET /roles/{uuid}/`'s record of a role the caller already holds (a write's answer: the role as written). */
export async function v1RoleRecord(services: Services, ctx: RequestContext, role: Role): Promise<V1RoleRecord> {
  if (!(await hasOnTenant(services, ctx, "rbac_roles_read"))) throw forbidden();
  const [record] = await roleRecords(services, ctx, [role], [], true);
  return record!;
}

export async function getV1RoleAccess(services: Services, ctx: RequestContext, id: string): Promise<V1AccessEntry[]> {
  return (await getV1Role(services, ctx, id)).access ?? [];
}

/**
 * The roles of a group, as `/groups/{uuid}/roles/` lists them (upstream's obtain_roles): with
 * `exclude=true` the organisation's roles the group does not hold; then `role_name`,
 * `role_display_name`, `role_description` (case-insensitive substrings) and `role_system`; ordered by
 * `order_by` (name by default; a field other than name, display_name, modified, policyCount is refused).
 */
export async function groupV1Roles(services: Services, ctx: RequestContext, groupId: string, query: V1GroupRolesQuery): Promise<V1RoleRecord[]> {
  if (!(await hasOnTenant(services, ctx, "rbac_groups_read"))) throw forbidden();
  if (!UUID_PATTERN.test(groupId)) throw invalid(`${echo(groupId)} is not a valid UUID.`, "uuid");
  await services.store.groups.get(ctx.tenant.orgId, groupId.toLowerCase()).catch(missingAs(() => notFound()));
  const { exclude, orderBy: order } = query;
  const held = new Set(await services.store.v1.rolesOfGroup(ctx.tenant.orgId, groupId.toLowerCase()));
  // exclude=true lists the roles the caller could add: the organisation's, or with scope=principal the caller's own.
  let mine: Set<string> | undefined;
  if (query.principalScope) {
    const grants = await services.store.v1.grantsOf(ctx.tenant.orgId, ctx.caller.userId, { isOrgAdmin: ctx.caller.isOrgAdmin, defaultGroups: !ctx.caller.isServiceAccount });
    mine = new Set(grants.map((g) => g.roleId));
  }
  const contains = (value: string | null, wanted: string | undefined) => !wanted || (value ?? "").toLowerCase().includes(wanted.toLowerCase());
  const roles = (await v1Roles(services, ctx)).filter(
    (r) =>
      held.has(r.id) !== exclude &&
      (mine === undefined || mine.has(r.id)) &&
      contains(r.name, query.roleName) &&
      contains(r.displayName ?? r.name, query.roleDisplayName) &&
      contains(r.description, query.roleDescription) &&
      // Django's icontains on a boolean compares with its text (True/False).
      contains(r.kind !== "custom" ? "True" : "False", query.roleSystem),
  );
  const key = order.replace(/^-/, "") as (typeof ORDER_FIELDS)[number];
  const sign = order.startsWith("-") ? -1 : 1;
  return (await roleRecords(services, ctx, roles, [], false)).sort((a, b) => (a[key] === b[key] ? 0 : (a[key] < b[key] ? -1 : 1) * sign));
}

/** A group's roles by name, as a group's v1 answers carry them; the caller has checked access to the group. */
export async function rolesOfGroupV1(services: Services, ctx: RequestContext, groupId: string): Promise<V1RoleRecord[]> {
  const ids = new Set(await services.store.v1.rolesOfGroup(ctx.tenant.orgId, groupId));
  const roles = (await v1Roles(services, ctx)).filter((r) => ids.has(r.id));
  return (await roleRecords(services, ctx, roles, [], false)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
