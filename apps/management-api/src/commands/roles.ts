import { RoleNameTaken, SYSTEM_ROLE_NOT_UPDATABLE, type Role, type RoleListQuery, type RoleScope, type Written } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { invalid, missingAs, notFound } from "../domain/errors.js";
import { UUID_PATTERN } from "../schemas/common.js";
import { requireOnTenant, settled, type Services } from "./services.js";

export interface PermissionRecord {
  application: string;
  resource_type: string;
  operation: string;
}

export interface RoleRecord {
  id: string;
  name: string;
  description: string | null;
  permissions_count: number;
  permissions: PermissionRecord[];
  last_modified: string;
  org_id: string | null;
}

/**
 * Permissions come back in the order the caller wrote them (create/update answers) and
 * alphabetically otherwise, as insights-rbac orders them.
 */
function orderedPermissions(permissions: string[], inputOrder?: string[]): string[] {
  if (!inputOrder) return [...permissions].sort();
  const rank = new Map(inputOrder.map((p, i) => [p, i] as const));
  return [...permissions].sort((a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
}

export function roleRecord(role: Role, inputOrder?: string[]): RoleRecord {
  return {
    id: role.id,
    name: role.name,
    // v2 roles always carry a description; a v1 role written without one has none.
    description: role.description ?? "",
    permissions_count: role.permissions.length,
    permissions: orderedPermissions(role.permissions, inputOrder).map((p) => {
      const [application = "", resource_type = "", operation = ""] = p.split(":");
      return { application, resource_type, operation };
    }),
    last_modified: role.modified.toISOString(),
    org_id: role.orgId,
  };
}

/** Roles a tenant sees: its custom roles and the public seeded ones; platform roles stay hidden. */
const LISTED_KINDS: RoleListQuery["kinds"] = ["custom", "seeded"];

export interface RoleFilters {
  name?: string | undefined;
  permissions?: string[] | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  tenantOrgId?: string | undefined;
  orderBy?: "name" | "-name" | "last_modified" | "-last_modified" | undefined;
}

/**
 * Scope a resource filter stands for; null = the filter matches nothing; "standard" = a standard
 * workspace: DEFAULT-scoped roles whose every permission is workspace-granular (as insights-rbac).
 */
async function scopeOfResource(services: Services, ctx: RequestContext, filters: RoleFilters): Promise<RoleScope | "standard" | undefined | null> {
  if (filters.tenantOrgId !== undefined) {
    if (filters.resourceId !== undefined) throw invalid("Use either resource_id or resource.tenant.org_id.", "resource.tenant.org_id");
    if (filters.resourceType !== undefined && filters.resourceType !== "tenant") throw invalid("resource_type must be 'tenant' with resource.tenant.org_id.", "resource_type");
    return filters.tenantOrgId === ctx.tenant.orgId ? "tenant" : null;
  }
  if (filters.resourceId !== undefined && filters.resourceType === undefined) throw invalid("resource_id requires resource_type.", "resource_type");
  if (filters.resourceType === undefined) return undefined;
  if (filters.resourceType === "tenant") {
    return filters.resourceId === undefined || filters.resourceId === ctx.tenant.tenantId ? "tenant" : null;
  }
  if (filters.resourceType !== "workspace") return null;
  // Without an id, "workspace" means the roles grantable on any workspace: DEFAULT-scoped ones (as upstream).
  if (filters.resourceId === undefined) return "default";
  if (!UUID_PATTERN.test(filters.resourceId.trim())) throw invalid("Enter a valid UUID.", "resource_id");
  const ws = await services.store.workspaces.get(ctx.tenant.orgId, filters.resourceId.trim().toLowerCase()).catch(() => null);
  if (!ws) return null;
  return ws.type === "root" ? "root" : ws.type === "standard" ? "standard" : "default";
}

/** A role grantable on a standard workspace: it holds permissions, none checked at the Default Workspace only. */
function grantableOnStandardWorkspace(services: Services, role: Role): boolean {
  return role.permissions.length > 0 && !role.permissions.some((p) => services.catalogue.defaultOnly(p));
}

export async function listRoles(services: Services, ctx: RequestContext, filters: RoleFilters, page: { limit: number; offset: number }): Promise<{ count: number; data: RoleRecord[] }> {
  await requireOnTenant(services, ctx, "rbac_roles_read");
  const scope = await scopeOfResource(services, ctx, filters);
  if (scope === null) return { count: 0, data: [] };
  const name = filters.name?.trim();
  const orderBy = filters.orderBy?.replace("last_modified", "modified") as RoleListQuery["orderBy"];
  const query = {
    kinds: LISTED_KINDS,
    ...(name && name !== "*" ? { name } : {}),
    ...(filters.permissions && filters.permissions.length > 0 ? { permissions: filters.permissions } : {}),
    ...(orderBy ? { orderBy } : {}),
  };
  if (scope === "standard") {
    // The store cannot tell granular permissions apart: filter the DEFAULT-scoped roles here, then page.
    const all = await services.store.roles.list(ctx.tenant.orgId, { ...query, scope: "default", limit: -1 });
    const roles = all.data.filter((role) => grantableOnStandardWorkspace(services, role));
    const end = page.limit === -1 ? undefined : page.offset + page.limit;
    return { count: roles.length, data: roles.slice(page.offset, end).map((role) => roleRecord(role)) };
  }
  const result = await services.store.roles.list(ctx.tenant.orgId, { ...query, limit: page.limit, offset: page.offset, ...(scope ? { scope } : {}) });
  return { count: result.count, data: result.data.map((role) => roleRecord(role)) };
}

async function loadVisibleRole(services: Services, ctx: RequestContext, id: string): Promise<Role> {
  const role = await services.store.roles.get(ctx.tenant.orgId, id).catch(missingAs(() => notFound()));
  if (role.kind === "platform") throw notFound();
  return role;
}

export async function getRole(services: Services, ctx: RequestContext, id: string): Promise<RoleRecord> {
  await requireOnTenant(services, ctx, "rbac_roles_read");
  return roleRecord(await loadVisibleRole(services, ctx, id));
}

export interface RoleWrite {
  name: string;
  description?: string | null | undefined;
  permissions: PermissionRecord[];
}

/** Catalogue and single-scope rules; returns the permission strings and their common scope. */
function validateRoleWrite(services: Services, input: RoleWrite): { permissions: string[]; scope: RoleScope } {
  const permissions = [...new Set(input.permissions.map((p) => `${p.application}:${p.resource_type}:${p.operation}`))];
  const unknown = permissions.filter((p) => !services.catalogue.has(p));
  if (unknown.length > 0) throw invalid(`The following permissions do not exist: ${unknown.join(", ")}`, "permissions");
  const scopes = new Set(permissions.map((p) => services.catalogue.scopeOf(p)));
  if (scopes.size > 1) {
    throw invalid(`All permissions in a role must belong to the same scope; found scopes: ${[...scopes].sort().join(", ")}.`, "permissions");
  }
  return { permissions, scope: [...scopes][0] ?? "default" };
}

/**
 * A refusal of the one role name rule (the store's, for v1 and v2 writes alike) in the words of
 * the API version called: insights-rbac's v1 serializer, or its v2 role service.
 */
export function roleNameRefused(api: "v1" | "v2") {
  return (error: unknown): never => {
    if (!(error instanceof RoleNameTaken)) throw error;
    const { clash, roleName, displayName } = error;
    if (clash === "tenant") throw api === "v1" ? invalid(`Role '${roleName}' already exists for a tenant.`, "role") : invalid(`A role with name '${roleName}' already exists for this tenant.`, "name");
    if (clash === "system-display-name") throw invalid(`Display name '${displayName}' conflicts with an existing system role.`, api === "v1" ? "display_name" : "name");
    throw invalid(`Role name '${roleName}' conflicts with an existing system role.`, "name");
  };
}

export async function createRole(services: Services, ctx: RequestContext, input: RoleWrite): Promise<Written<RoleRecord>> {
  await requireOnTenant(services, ctx, "rbac_roles_write");
  const { permissions, scope } = validateRoleWrite(services, input);
  const written = await services.store.roles.create(ctx.tenant.orgId, { name: input.name, description: input.description ?? "", permissions, scope }).catch(roleNameRefused("v2"));
  await settled(services, written);
  return { ...written, value: roleRecord(written.value, permissions) };
}

/** A system role is never updated, through v1 or v2: one rule, with the field each API version names. */
export function requireUpdatable(role: Role, field = "detail"): void {
  if (role.kind !== "custom") throw invalid(SYSTEM_ROLE_NOT_UPDATABLE, field);
}

export async function updateRole(services: Services, ctx: RequestContext, id: string, input: RoleWrite): Promise<Written<RoleRecord>> {
  await requireOnTenant(services, ctx, "rbac_roles_write");
  const existing = await loadVisibleRole(services, ctx, id);
  requireUpdatable(existing);
  const { permissions, scope } = validateRoleWrite(services, input);
  const written = await services.store.roles.update(ctx.tenant.orgId, id, { name: input.name, description: input.description ?? "", permissions, scope }).catch(roleNameRefused("v2"));
  await settled(services, written);
  return { ...written, value: roleRecord(written.value, permissions) };
}

export async function batchDeleteRoles(services: Services, ctx: RequestContext, ids: string[]): Promise<Written<{ ids: string[] }>> {
  await requireOnTenant(services, ctx, "rbac_roles_write");
  const unique = [...new Set(ids)];
  // Check everything first so that nothing is deleted when one id is bad.
  for (const id of unique) {
    const role = await services.store.roles.get(ctx.tenant.orgId, id).catch(missingAs(() => notFound(`Role '${id}' not found.`, "ids")));
    if (role.kind !== "custom") throw invalid("System roles may not be deleted.", "ids");
  }
  const written = await services.store.roles.deleteMany(ctx.tenant.orgId, unique);
  return settled(services, written);
}
