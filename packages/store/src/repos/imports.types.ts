// Imports: one tenant's migration plan in one transaction.
// Part of the store's public types (types.ts re-exports every one).

import type { PrincipalInput } from "./principals.types.js";
import type { RoleScope } from "./roles.types.js";
import type { Written } from "./shared.types.js";
import type { Tenant } from "./tenants.types.js";
import type { V1RoleTargets } from "./v1-writes.types.js";
import type { V1AccessEntry } from "./v1.types.js";

/** A custom role of an import plan; `key` names it inside the plan (bindings refer to it). */
export interface ImportRole {
  key: string;
  /** Id used when the role is created. An existing custom role with this id, else with this name (case-insensitive), is reused. */
  id?: string;
  name: string;
  description?: string | null;
  permissions: string[];
  scope: RoleScope;
  /** The role's v1 access list (resource definitions included); its permissions must equal `permissions`. */
  access?: V1AccessEntry[];
  /**
   * Where the role's groups are bound when its access is limited to inventory workspaces
   * (`group.id` resource definitions), as a v1 role write binds them: the plan's bindings of the
   * role then name its groups only (their level must still be the role's scope), and each group
   * is bound exactly at these targets, the `unlimited` part included. Workspaces the tenant does
   * not have grant nothing and are counted in the result's `unknownWorkspaces`. Absent: the
   * role is bound at the bindings' levels.
   */
  targets?: V1RoleTargets;
}

/** A standard group of an import plan. */
export interface ImportGroup {
  key: string;
  /** Id used when the group is created. An existing standard group with this id, else with this name, is reused. */
  id?: string;
  name: string;
  description?: string | null;
  /** User ids (principals of the tenant or of the plan). Missing members are added, none removed. */
  members: string[];
}

/** The role of a binding: a role of the plan (`key`), or a seeded role by id or name (`seeded`). */
export type ImportRoleRef = { key: string } | { seeded: string };

/** One grant: the members of a plan group hold the role at a level of the tenant. */
export interface ImportBinding {
  role: ImportRoleRef;
  group: { key: string };
  /** tenant, root (the Root Workspace) or default (the Default Workspace); must equal the role's scope. */
  level: RoleScope;
}

/** Plain data of one tenant's import (e.g. a v1 → v2 migration plan). Every part is optional. */
export interface TenantImportPlan {
  /** Inserted or updated (username, type, org admin flag). */
  principals?: PrincipalInput[];
  roles?: ImportRole[];
  groups?: ImportGroup[];
  /** Added if missing; bindings not in the plan are kept. */
  bindings?: ImportBinding[];
  /**
   * A customised default access: at each level given, the roles of the tenant's platform-default
   * group ("Default access") become exactly these (replacing the platform parent role there).
   */
  defaultAccess?: Partial<Record<RoleScope, ImportRoleRef[]>>;
}

export type ImportPhase = "tenant" | "principals" | "roles" | "groups" | "bindings" | "default-access";

export interface ImportOptions {
  /** Called inside the transaction as each phase advances (for progress bars). */
  onProgress?: (phase: ImportPhase, done: number, total: number) => void;
}

export interface TenantImportResult {
  /** False when the store already held everything: no revision was taken, nothing was written. */
  changed: boolean;
  tenant: Tenant;
  tenantCreated: boolean;
  principalsWritten: number;
  rolesCreated: number;
  rolesUpdated: number;
  groupsCreated: number;
  membersAdded: number;
  /** Subjects added to role bindings (grants), default access included. */
  grantsAdded: number;
  /** Grants removed from the platform-default group by `defaultAccess`. */
  grantsRemoved: number;
  /** Plan role key → store role id. */
  roleIds: Record<string, string>;
  /** Plan group key → store group id. */
  groupIds: Record<string, string>;
  /** Plan role key → how many workspace ids of its `targets` name no workspace of the tenant (roles with none left out). */
  unknownWorkspaces: Record<string, number>;
}

export interface ImportRepository {
  /**
   * Applies one tenant's plan in ONE transaction (bootstrapping the tenant if needed): domain
   * rows, the tuples they imply and one change-feed entry, or nothing at all if any element is
   * invalid. Idempotent: a re-run finds the rows by id or name and returns `changed: false` with
   * the head revision (no new revision).
   */
  applyTenant(orgId: string, plan: TenantImportPlan, options?: ImportOptions): Promise<Written<TenantImportResult>>;
}
