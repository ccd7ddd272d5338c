import type { BindingLevel } from "./levels.js";
import { roleGrants } from "./permissions.js";

/** A role that may be bound (custom or seeded), with the level it is scoped for. */
export interface FixRole {
  readonly id: string;
  readonly name: string;
  readonly permissions: readonly string[];
  readonly scope: BindingLevel;
}

/** A v1 grant the subject holds: a role bound to one of its groups (or to itself: `groupId` null). */
export interface HeldGrant {
  readonly groupId: string | null;
  readonly roleId: string;
}

export interface GrantFixInput {
  /** The concrete v1 permissions that carry the denied permission; a role needs any one of them. */
  readonly needed: readonly string[];
  /** The level of the resource the binding goes on (a role must be scoped for it). */
  readonly level: BindingLevel;
  /** Assignable roles of the organisation. */
  readonly roles: readonly FixRole[];
  /** Roles the subject already holds through its groups (its v1 grants), wherever they are bound. */
  readonly held: readonly HeldGrant[];
  /** Every concrete v1 permission the schema knows: what a role grants beyond `needed` is counted against these. */
  readonly catalogue: readonly string[];
  /** Level of a concrete permission (where a custom role holding it is scoped), or null when unclassified. */
  readonly levelOf: (permission: string) => BindingLevel | null;
}

export type FixRoleChoice =
  | { readonly kind: "existing"; readonly role: FixRole }
  /** No role scoped for the level grants it without more: a custom role holding exactly `permissions`. */
  | { readonly kind: "new"; readonly name: string; readonly permissions: readonly string[]; readonly basedOn: FixRole | null };

export interface GrantFix {
  readonly role: FixRoleChoice;
  /** The group the v1 grant came through; null binds the subject itself. */
  readonly groupId: string | null;
  /** Concrete permissions the binding grants besides the needed one (the over-grant to preview). */
  readonly alsoGrants: readonly string[];
}

/** Concrete catalogue permissions a role's (possibly wildcard) permissions grant. */
export function grantedPermissions(permissions: readonly string[], catalogue: readonly string[]): string[] {
  return catalogue.filter((p) => roleGrants(permissions, p));
}

/**
 * The narrowest fix for a denial: the least-privileged role scoped for the level that carries one
 * of the needed permissions, bound to the group the subject's v1 grant came through (the first
 * such group; the subject itself when it held the permission through no group). When the subject
 * held the permission (a v1 grant bound at the wrong level) and every existing role scoped here
 * would also grant something else, a custom role holding exactly the held permission is proposed
 * instead (also when no role exists), provided that permission belongs at the level. Null when
 * nothing can grant it at this level.
 */
export function planGrantFix(input: GrantFixInput): GrantFix | null {
  const carries = (role: FixRole) => input.needed.some((p) => roleGrants(role.permissions, p));
  const roleById = new Map(input.roles.map((r) => [r.id, r]));
  const heldRoles = input.held.map((h) => ({ grant: h, role: roleById.get(h.roleId) })).filter((x) => x.role !== undefined && carries(x.role));
  const via = heldRoles.find((x) => x.grant.groupId !== null) ?? heldRoles[0];
  const groupId = via?.grant.groupId ?? null;

  const extraOf = (permissions: readonly string[]) => grantedPermissions(permissions, input.catalogue).filter((p) => !input.needed.includes(p));
  const ranked = input.roles
    .filter((r) => r.scope === input.level && carries(r))
    .map((role) => ({ role, extra: extraOf(role.permissions) }))
    .sort((a, b) => a.extra.length - b.extra.length || a.role.permissions.length - b.role.permissions.length || a.role.name.localeCompare(b.role.name));
  const best = ranked[0];
  if (best && best.extra.length === 0) return { role: { kind: "existing", role: best.role }, groupId, alsoGrants: [] };

  // A v1 grant bound at the wrong level, or nothing to bind at all: a custom role holding exactly
  // the permission the subject held (so it matches the v1 grant), when that permission belongs here.
  const heldPermission = input.needed.find((p) => via?.role && roleGrants(via.role.permissions, p)) ?? input.needed[0];
  if ((via || !best) && heldPermission !== undefined && input.levelOf(heldPermission) === input.level) {
    const basedOn = via?.role ?? null;
    const name = `${basedOn ? basedOn.name : heldPermission} (${LEVEL_SUFFIX[input.level]})`;
    return { role: { kind: "new", name, permissions: [heldPermission], basedOn }, groupId, alsoGrants: [] };
  }
  if (!best) return null;
  return { role: { kind: "existing", role: best.role }, groupId, alsoGrants: best.extra };
}

const LEVEL_SUFFIX: Readonly<Record<BindingLevel, string>> = { tenant: "organisation", root: "Root Workspace", default: "Default Workspace" };
