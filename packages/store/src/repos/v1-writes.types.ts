// v1 writes with their dual write.
// Part of the store's public types (types.ts re-exports every one).

import type { AuditOf } from "./audit-log.types.js";
import type { Group } from "./groups.types.js";
import type { Role, RoleScope } from "./roles.types.js";
import type { Written } from "./shared.types.js";
import type { V1AccessEntry } from "./v1.types.js";

/** Where a v1 role is bound for each group holding it (computed by `planV1RolePlacement`). */
export interface V1RoleTargets {
  /** Organisation levels (tenant, Root Workspace, Default Workspace). */
  levels: RoleScope[];
  /** Workspaces of the tenant (inventory `group.id` definitions). */
  workspaceIds: string[];
  /** Also the ungrouped-hosts workspace, when the tenant has one. */
  ungrouped?: boolean;
  /**
   * A role mixing workspace-limited and unlimited access: its unlimited permissions alone, bound
   * for the role's groups at these levels (a part of the role, kept in relationships only), while
   * the role itself is bound on its workspaces only.
   */
  unlimited?: { levels: RoleScope[]; permissions: string[] };
}

export interface V1RoleWrite {
  name: string;
  displayName: string;
  description: string | null;
  access: V1AccessEntry[];
  /** The role's level (its scope). */
  scope: RoleScope;
  targets: V1RoleTargets;
}

/**
 * v1 role and group writes with their dual write: every write commits, in its one transaction,
 * the role bindings and tuples that make v2 grant what v1 grants, plus its audit rows. Role writes
 * and group-role changes are refused (`v2-activated`) once the organisation is in v2 mode.
 */
export interface V1WriteRepository {
  createRole(orgId: string, input: V1RoleWrite, audit?: AuditOf<Role>): Promise<Written<Role>>;
  /** Replaces name, display name, description and access; the role's bindings follow its new targets. */
  updateRole(orgId: string, id: string, input: V1RoleWrite, audit?: AuditOf<Role>): Promise<Written<Role>>;
  deleteRole(orgId: string, id: string, audit?: AuditOf<Role>): Promise<Written<Role>>;
  /** Binds each role to the group at its targets. */
  addGroupRoles(orgId: string, groupId: string, roles: { roleId: string; targets: V1RoleTargets }[], audit?: AuditOf<Role[]>): Promise<Written<Role[]>>;
  /** Removes every binding of these roles to the group. */
  removeGroupRoles(orgId: string, groupId: string, roleIds: string[], audit?: AuditOf<Role[]>): Promise<Written<Role[]>>;
  updateGroup(orgId: string, groupId: string, input: { name: string; description: string | null }, audit?: AuditOf<Group>): Promise<Written<Group>>;
  /**
   * Undoes a customised default access (upstream: deleting the tenant's "Custom default access"
   * group): the platform-default group is bound to the default parent roles at the three levels
   * again, and to nothing else.
   */
  restoreDefaultGroup(orgId: string, audit?: AuditOf<Group>): Promise<Written<Group>>;
}
