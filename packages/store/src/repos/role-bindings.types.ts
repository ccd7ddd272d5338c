// Role bindings: a role on a resource, granted to groups or principals.
// Part of the store's public types (types.ts re-exports every one).

import type { Page, Revision, Written } from "./shared.types.js";

export type BindingResourceType = "workspace" | "tenant";

export type BindingSubjectType = "group" | "principal";

/** `id` is a workspace id, or the tenant resource id `<domain>/<org_id>`. */
export interface BindingResource {
  type: BindingResourceType;
  id: string;
}

/** `id` is a group id, or a principal's user id. */
export interface BindingSubject {
  type: BindingSubjectType;
  id: string;
}

/** One binding row: a role on a resource, granted to a set of subjects. */
export interface RoleBinding {
  id: string;
  orgId: string;
  roleId: string;
  resource: BindingResource;
  subjects: BoundSubject[];
  created: Date;
  modified: Date;
}

/** A subject of a binding; `expiresAt` set for a time-bound grant (a Gatehouse extension). */
export interface BoundSubject extends BindingSubject {
  expiresAt?: Date;
}

export interface RoleBindingGrant {
  resource: BindingResource;
  subject: BindingSubject;
  roleId: string;
  /** Time-bound grant: the subject holds the role until then (must be in the future). */
  expiresAt?: Date;
}

export interface RoleBindingListQuery {
  resource?: BindingResource;
  /** With `resource`: also bindings on its ancestors (workspaces up to root, then tenant). */
  includeInherited?: boolean;
  /** Bindings naming this subject directly. */
  subject?: BindingSubject;
  /** Bindings that reach this principal (user id) directly or through any of its groups. */
  grantedToPrincipal?: string;
  roleId?: string;
  /**
   * Also the organisation-level parts of v1 roles mixing workspace-limited and unlimited access
   * (kept in relationships only, repos/v1-role-parts.ts), as bindings of the role carrying
   * `permissions`. They are listed after the ordinary bindings' order, by the role's modified time.
   */
  includeV1Parts?: boolean;
  limit?: number;
  offset?: number;
}

/** A binding in a list result, with the resource it is attached to (`source`). */
export interface RoleBindingListItem extends RoleBinding {
  /** Equals `resource`; differs from the queried resource for inherited rows. */
  source: BindingResource;
  /**
   * Set on a v1 role's organisation-level part: the binding grants only these permissions of the
   * role (its unlimited ones; the role itself is bound on its workspaces). Its `id` is the part's
   * binding id, not a UUID.
   */
  permissions?: string[];
}

export interface RoleBindingRepository {
  /**
   * 1–100 grants, all-or-nothing; an existing identical grant is kept (idempotent). Returns one
   * binding per grant, in request order. Platform roles are not assignable.
   */
  batchCreate(orgId: string, grants: RoleBindingGrant[]): Promise<Written<RoleBinding[]>>;
  list(orgId: string, query?: RoleBindingListQuery): Promise<Page<RoleBindingListItem>>;
  get(orgId: string, id: string): Promise<RoleBinding>;
  /** Role ids the subject holds directly on the resource. */
  rolesOfSubject(orgId: string, resource: BindingResource, subject: BindingSubject): Promise<string[]>;
  /**
   * Replaces the roles of one subject on one resource (diff-based; bindings left without
   * subjects are deleted). `[]` removes all. The admin-default group cannot be modified.
   */
  replaceRolesOfSubject(
    orgId: string,
    resource: BindingResource,
    subject: BindingSubject,
    roleIds: string[],
    /** Time-bound grants: every listed role is held until then (must be in the future). */
    options?: { expiresAt?: Date },
  ): Promise<Written<{ roleIds: string[] }>>;
  /**
   * Deletes the binding subjects (and their tuples; bindings left without subjects too) whose
   * expiry is at or before `now`: one write, with its change-feed entry, per tenant that has any.
   * Answers never depend on it (evaluation already ignores what expired); it keeps storage small.
   */
  removeExpired(now?: Date): Promise<{ removed: number; revisions: Revision[] }>;
}
