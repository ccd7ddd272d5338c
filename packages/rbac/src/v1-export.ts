import { RbacError } from "./errors.js";
import { validateHeldPermission } from "./permissions.js";

/** One access entry of a v1 role. */
export interface V1Access {
  readonly permission: string;
  readonly resourceDefinitions?: readonly unknown[];
}

export interface V1Role {
  readonly uuid?: string;
  readonly name: string;
  readonly display_name?: string;
  readonly description?: string;
  readonly access: readonly V1Access[];
  readonly system?: boolean;
  /** Granted to every user through the "Default access" group. */
  readonly platform_default?: boolean;
  /** Granted to org admins through the "Default admin access" group. */
  readonly admin_default?: boolean;
}

export interface V1Group {
  readonly uuid?: string;
  readonly name: string;
  /** User ids of the members. */
  readonly principals: readonly string[];
  /** Role uuids or names (tenant custom roles first, then system roles). */
  readonly roles: readonly string[];
  /** A tenant's custom default access group: every user is a member; replaces platform-default roles. */
  readonly platform_default?: boolean;
}

export interface V1Principal {
  readonly user_id: string;
  readonly username?: string;
  readonly is_org_admin?: boolean;
}

export interface V1Tenant {
  readonly org_id: string;
  readonly principals: readonly V1Principal[];
  readonly roles?: readonly V1Role[];
  readonly groups: readonly V1Group[];
}

/** A v1 export: system roles shared by all tenants, then per tenant principals, roles and groups. */
export interface V1Export {
  readonly version: 1;
  readonly domain?: string;
  readonly system_roles: readonly V1Role[];
  readonly tenants: readonly V1Tenant[];
}

/** Stable key of a role: its uuid, else its name. */
export function roleKey(role: V1Role): string {
  return role.uuid ?? role.name;
}

/** The roles a tenant can reference: its custom roles, then the system roles. */
export function tenantRoleIndex(exp: V1Export, tenant: V1Tenant): Map<string, V1Role> {
  const index = new Map<string, V1Role>();
  for (const r of exp.system_roles) {
    index.set(r.name, r);
    if (r.uuid) index.set(r.uuid, r);
  }
  // Custom roles shadow system roles of the same name within their tenant.
  for (const r of tenant.roles ?? []) {
    index.set(r.name, r);
    if (r.uuid) index.set(r.uuid, r);
  }
  return index;
}

/**
 * Semantic checks a schema cannot express: valid permission strings, unique names, group
 * references to existing roles and principals, at most one custom default group. Reports every
 * problem at once.
 */
export function checkV1Export(exp: V1Export): V1Export {
  const problems: string[] = [];
  const checkRoles = (roles: readonly V1Role[], where: string) => {
    const names = new Set<string>();
    roles.forEach((r, i) => {
      const at = `${where}[${i}] '${r.name}'`;
      if (names.has(r.name)) problems.push(`${at}: duplicate role name`);
      names.add(r.name);
      r.access.forEach((a, j) => {
        try {
          validateHeldPermission(a.permission);
        } catch (err) {
          problems.push(`${at}.access[${j}]: ${err instanceof Error ? err.message : String(err)}`);
        }
      });
    });
  };
  checkRoles(exp.system_roles, "system_roles");
  const orgs = new Set<string>();
  exp.tenants.forEach((t, ti) => {
    const where = `tenants[${ti}] (org ${t.org_id})`;
    if (orgs.has(t.org_id)) problems.push(`${where}: duplicate org_id`);
    orgs.add(t.org_id);
    checkRoles(t.roles ?? [], `${where}.roles`);
    for (const r of t.roles ?? []) {
      if (r.system || r.platform_default || r.admin_default) {
        problems.push(`${where}.roles '${r.name}': custom roles cannot be system, platform_default or admin_default`);
      }
    }
    const users = new Set<string>();
    for (const p of t.principals) {
      if (users.has(p.user_id)) problems.push(`${where}: duplicate principal '${p.user_id}'`);
      users.add(p.user_id);
    }
    const roles = tenantRoleIndex(exp, t);
    const groupNames = new Set<string>();
    t.groups.forEach((g, gi) => {
      const at = `${where}.groups[${gi}] '${g.name}'`;
      if (groupNames.has(g.name)) problems.push(`${at}: duplicate group name`);
      groupNames.add(g.name);
      for (const u of g.principals) if (!users.has(u)) problems.push(`${at}: unknown principal '${u}'`);
      for (const r of g.roles) if (!roles.has(r)) problems.push(`${at}: unknown role '${r}'`);
    });
    if (t.groups.filter((g) => g.platform_default).length > 1) {
      problems.push(`${where}: more than one custom default access group`);
    }
  });
  if (problems.length > 0) {
    throw new RbacError("invalid-export", `invalid v1 export (${problems.length} problem(s)):\n  ${problems.join("\n  ")}`, problems);
  }
  return exp;
}

/** Why a principal holds a role in v1. */
export interface V1RoleSource {
  readonly role: V1Role;
  /** The group name, or "Default access" / "Default admin access" for platform defaults. */
  readonly via: string;
}

export const DEFAULT_ACCESS_GROUP = "Default access";
export const DEFAULT_ADMIN_ACCESS_GROUP = "Default admin access";

/**
 * The roles a principal holds in v1: roles of its groups, the custom default group's roles (or the
 * platform-default system roles when the tenant has none) and, for org admins, admin-default roles.
 */
export function v1RolesOf(exp: V1Export, tenant: V1Tenant, principal: V1Principal): V1RoleSource[] {
  const index = tenantRoleIndex(exp, tenant);
  const out: V1RoleSource[] = [];
  const customDefault = tenant.groups.find((g) => g.platform_default);
  for (const g of tenant.groups) {
    if (!g.platform_default && !g.principals.includes(principal.user_id)) continue;
    for (const r of g.roles) {
      const role = index.get(r);
      if (role) out.push({ role, via: g.name });
    }
  }
  if (!customDefault) {
    for (const r of exp.system_roles) if (r.platform_default) out.push({ role: r, via: DEFAULT_ACCESS_GROUP });
  }
  if (principal.is_org_admin) {
    for (const r of exp.system_roles) if (r.admin_default) out.push({ role: r, via: DEFAULT_ADMIN_ACCESS_GROUP });
  }
  return out;
}

/** The held v1 permission strings of a principal (possibly wildcards). */
export function v1PermissionsOf(exp: V1Export, tenant: V1Tenant, principal: V1Principal): Set<string> {
  const held = new Set<string>();
  for (const { role } of v1RolesOf(exp, tenant, principal)) for (const a of role.access) held.add(a.permission);
  return held;
}
