import type { AssetTypeCatalog } from "./asset-types.js";
import { BINDING_LEVELS, highestLevel, LEVEL_LABELS, levelOfPattern, levelRank, type BindingLevel } from "./levels.js";
import { roleGrants, validateHeldPermission } from "./permissions.js";

/** One binding of a (part of a) role at one level. */
export interface PlannedBinding {
  readonly level: BindingLevel;
  /** The held v1 permissions this binding carries. */
  readonly permissions: readonly string[];
}

export interface OverGrant {
  readonly permission: string;
  readonly needed: BindingLevel;
  readonly boundAt: BindingLevel;
}

export interface BindingPlan {
  readonly role: string;
  /** The highest level any permission of the role needs. */
  readonly level: BindingLevel;
  /** True when organisation-level and root-level permissions are split into two bindings. */
  readonly split: boolean;
  readonly bindings: readonly PlannedBinding[];
  readonly permissionLevels: Readonly<Record<string, BindingLevel>>;
  /** Permissions bound above the level they need (accepted, rule 2). */
  readonly overGrants: readonly OverGrant[];
  /** Held permissions that no asset type classifies; bound by the default rule (Default Workspace). */
  readonly unclassified: readonly string[];
}

/** Level of one held permission; undefined when it is not classified. */
export type PermissionLevelOf = (heldPermission: string) => BindingLevel | undefined;

/**
 * Level of a held (possibly wildcard) permission from the asset types: the highest level among
 * the catalog permissions it grants; undefined when it grants none of them.
 */
export function permissionLevelsFromCatalog(catalog: AssetTypeCatalog): PermissionLevelOf {
  const concrete = catalog.permissions();
  const cache = new Map<string, BindingLevel | undefined>();
  return (held) => {
    if (cache.has(held)) return cache.get(held);
    validateHeldPermission(held);
    const levels: BindingLevel[] = [];
    for (const c of concrete) {
      if (!roleGrants([held], c)) continue;
      const [app, resource] = c.split(":") as [string, string];
      const type = catalog.get(app, resource);
      if (type) levels.push(levelOfPattern(type.pattern));
    }
    const level = levels.length > 0 ? highestLevel(levels) : undefined;
    cache.set(held, level);
    return level;
  };
}

/**
 * Plans the binding of one v2 role ("How v1 access grants are migrated", rules 1-3): bound at the
 * highest level any permission needs; organisation-level and root-level permissions mixed in one
 * role are split into a tenant binding and a Root Workspace binding (default-level ones join root).
 */
export function planRoleBinding(role: { readonly name: string; readonly permissions: readonly string[] }, levelOf: PermissionLevelOf): BindingPlan {
  const permissionLevels: Record<string, BindingLevel> = {};
  const unclassified: string[] = [];
  const permissions = [...new Set(role.permissions)];
  for (const p of permissions) {
    const level = levelOf(p);
    if (level === undefined) unclassified.push(p);
    permissionLevels[p] = level ?? "default";
  }
  const present = new Set(Object.values(permissionLevels));
  const level = highestLevel(present);
  const split = present.has("tenant") && present.has("root");
  const bindings: PlannedBinding[] = split
    ? [
        { level: "tenant", permissions: permissions.filter((p) => permissionLevels[p] === "tenant") },
        { level: "root", permissions: permissions.filter((p) => permissionLevels[p] !== "tenant") },
      ]
    : [{ level, permissions }];
  const overGrants: OverGrant[] = [];
  for (const b of bindings) {
    for (const p of b.permissions) {
      const needed = permissionLevels[p] ?? "default";
      if (levelRank(b.level) > levelRank(needed)) overGrants.push({ permission: p, needed, boundAt: b.level });
    }
  }
  return { role: role.name, level, split, bindings, permissionLevels, overGrants, unclassified };
}

/** Default-access scope: every user, or org admins only. */
export type DefaultScope = "user" | "admin";

/** Which roles (by part key) are children of the default parent role at each level. */
export type DefaultRolesPlan = Readonly<Record<DefaultScope, Readonly<Record<BindingLevel, readonly string[]>>>>;

/** Key of the part of a role bound at a level: the role name, or `name (level)` when split. */
export function rolePartKey(plan: BindingPlan, binding: PlannedBinding): string {
  return plan.split ? `${plan.role} (${LEVEL_LABELS[binding.level]})` : plan.role;
}

/**
 * Places default roles under the default parent roles of the three levels (rule 4), by the same
 * highest-level rule as any role.
 */
export function planDefaultRoles(roles: readonly { readonly name: string; readonly permissions: readonly string[]; readonly scope: DefaultScope }[], levelOf: PermissionLevelOf): DefaultRolesPlan {
  const empty = (): Record<BindingLevel, string[]> => ({ tenant: [], root: [], default: [] });
  const out: Record<DefaultScope, Record<BindingLevel, string[]>> = { user: empty(), admin: empty() };
  for (const role of roles) {
    const plan = planRoleBinding(role, levelOf);
    for (const b of plan.bindings) out[role.scope][b.level].push(rolePartKey(plan, b));
  }
  for (const scope of ["user", "admin"] as const) for (const l of BINDING_LEVELS) out[scope][l].sort();
  return out;
}

export interface DefaultRoleChange {
  readonly scope: DefaultScope;
  readonly level: BindingLevel;
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/**
 * What changes at each level when default roles change (a role needing another level moves
 * from one parent role to another).
 */
export function diffDefaultRolePlans(before: DefaultRolesPlan, after: DefaultRolesPlan): DefaultRoleChange[] {
  const changes: DefaultRoleChange[] = [];
  for (const scope of ["user", "admin"] as const) {
    for (const level of BINDING_LEVELS) {
      const b = new Set(before[scope][level]);
      const a = new Set(after[scope][level]);
      const added = [...a].filter((k) => !b.has(k)).sort();
      const removed = [...b].filter((k) => !a.has(k)).sort();
      if (added.length > 0 || removed.length > 0) changes.push({ scope, level, added, removed });
    }
  }
  return changes;
}
