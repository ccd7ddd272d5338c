// v1 reads (insights-rbac's /api/rbac/v1/access/ and /roles/).
// Part of the store's public types (types.ts re-exports every one).

import type { Group } from "./groups.types.js";
import type { BindingResource } from "./role-bindings.types.js";

/** `{ key, operation, value }` of a v1 resource definition. */
export interface V1AttributeFilter {
  key: string;
  operation: string;
  value: unknown;
}

/** One access entry of a v1 role. */
export interface V1AccessEntry {
  permission: string;
  resourceDefinitions: { attributeFilter: V1AttributeFilter }[];
}

/** A role reaching a principal, and the resource its binding is on. */
export interface V1Grant {
  roleId: string;
  resource: BindingResource;
}

export interface V1PrincipalQuery {
  /** Org admins also reach the admin-default group's roles. */
  isOrgAdmin: boolean;
  /** insights-rbac gives default groups to users only; service accounts need explicit groups. */
  defaultGroups: boolean;
}

export interface V1Repository {
  /**
   * Every (role, resource) that reaches the principal: bindings of its groups (standard groups,
   * the platform-default group and, for org admins, the admin-default group) and of the principal
   * itself. Platform parent roles are replaced by their children (the default system roles).
   */
  grantsOf(orgId: string, userId: string, query: V1PrincipalQuery): Promise<V1Grant[]>;
  /** The v1 access list of each role (stored list when it matches the permissions, else derived). */
  accessOf(roleIds: string[]): Promise<Map<string, V1AccessEntry[]>>;
  /** The tenant's groups each role is bound to (default groups through the platform parent roles). */
  groupsOfRoles(orgId: string, roleIds: string[]): Promise<Map<string, Group[]>>;
  /** Role ids bound to a group (platform parent roles replaced by their children). */
  rolesOfGroup(orgId: string, groupId: string): Promise<string[]>;
  /**
   * Ids of the tenant's groups that have had a role added through v1 (upstream's v1 policy,
   * which stays when the group's last role is removed).
   */
  groupsWithV1Policy(orgId: string): Promise<Set<string>>;
}
