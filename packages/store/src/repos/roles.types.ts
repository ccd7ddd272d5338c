// Roles: custom, seeded and platform roles, and the role configuration that seeds them.
// Part of the store's public types (types.ts re-exports every one).

import type { Page, Written } from "./shared.types.js";

/** Level a role is bound at: Default Workspace, Root Workspace, or tenant (organization). */
export type RoleScope = "default" | "root" | "tenant";

/** custom: per tenant; seeded: public system role; platform: public default parent role. */
export type RoleKind = "custom" | "seeded" | "platform";

export interface Role {
  id: string;
  /** Null for public (seeded, platform) roles. */
  orgId: string | null;
  kind: RoleKind;
  name: string;
  displayName: string | null;
  description: string | null;
  /** v1 permission strings `app:resource:verb`, in the order given. */
  permissions: string[];
  scope: RoleScope;
  platformDefault: boolean;
  adminDefault: boolean;
  created: Date;
  modified: Date;
}

/** A system role definition from the role configuration (plain data). */
export interface SystemRoleDefinition {
  name: string;
  display_name?: string;
  description?: string;
  platform_default?: boolean;
  admin_default?: boolean;
  access: { permission: string }[];
  /** Level the role needs (highest level among its permissions); default `default`. */
  scope?: RoleScope;
  /** The configuration's version of the role (default 1): a stored role is rewritten only when this is higher. */
  version?: number;
}

/** What one seeding run did (insights-rbac's rules: create missing, update on a higher version, leave the rest). */
export interface SeedReport {
  /** Every configured role as stored after the run, in the order given. */
  roles: Role[];
  created: string[];
  updated: Array<{ name: string; from: number; to: number }>;
  /** Configured with the stored version (or a lower one): not written. */
  unchanged: string[];
  /** Seeded earlier but no longer configured: kept (bindings may use them), as insights-rbac does. */
  unconfigured: string[];
  /** False when the run wrote nothing (no new revision). */
  changed: boolean;
}

export interface SeedOptions {
  /** Called after each configured role is handled. */
  onProgress?: (done: number, total: number, name: string, action: "created" | "updated" | "unchanged") => void;
  /**
   * Makes this configuration the active one in the same transaction (a reload): the run always
   * takes a revision, and its change-feed entry has kind `role_config`, so every follower switches
   * schema exactly at that revision.
   */
  activate?: ActiveRoleConfig;
}

/** The role configuration every service runs on. */
export interface ActiveRoleConfig {
  hash: string;
  dir: string;
  loadedAt: Date;
  schemaZed: string;
}

/** A schema element a configuration change would remove; `relation` is the stored name (`t_...`). */
export type SchemaElement = { kind: "type"; type: string } | { kind: "relation"; type: string; name: string } | { kind: "permission"; type: string; name: string };

export interface RoleConfigRepository {
  /** The active configuration, once a reload has recorded one. */
  active(): Promise<ActiveRoleConfig | undefined>;
  /** Those of `elements` that stored relationships (of any tenant) still use. */
  inUse(elements: SchemaElement[]): Promise<SchemaElement[]>;
}

/** Change-feed kind of a reload's commit. */
export const ROLE_CONFIG_CHANGE = "role_config";

export interface RoleInput {
  name: string;
  description?: string | null;
  permissions: string[];
  scope?: RoleScope;
}

export interface RoleListQuery {
  /** Case-insensitive substring; with `*` an anchored glob. */
  name?: string;
  /** Roles holding any of these exact permission strings (insights-rbac: a comma list is a union). */
  permissions?: string[];
  scope?: RoleScope;
  kinds?: RoleKind[];
  ids?: string[];
  orderBy?: "name" | "-name" | "modified" | "-modified" | "created" | "-created";
  limit?: number;
  offset?: number;
}

export interface RoleRepository {
  /**
   * Inserts or updates the public seeded roles by name (ids stay stable across re-seeding) and
   * recomputes the children of the six platform parent roles from the `platform_default` /
   * `admin_default` flags and scopes. Seeded roles absent from `roles` are deleted.
   */
  /** One transaction; idempotent (a re-run with the same versions writes nothing); custom roles are never touched. */
  seedSystemRoles(roles: SystemRoleDefinition[], options?: SeedOptions): Promise<Written<SeedReport>>;
  create(orgId: string, input: RoleInput): Promise<Written<Role>>;
  /** Full replacement; custom roles of the tenant only (`system-role-immutable`). */
  update(orgId: string, id: string, input: RoleInput): Promise<Written<Role>>;
  /** All-or-nothing; also deletes every binding that used the roles. */
  deleteMany(orgId: string, ids: string[]): Promise<Written<{ ids: string[] }>>;
  /** The tenant's custom roles and the public roles. */
  get(orgId: string, id: string): Promise<Role>;
  list(orgId: string, query?: RoleListQuery): Promise<Page<Role>>;
  /** The six platform parent roles (user/admin × scope). */
  platformRoles(): Promise<Role[]>;
}
