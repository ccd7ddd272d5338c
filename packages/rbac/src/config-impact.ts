// What a role-configuration change does to people: for every organisation and principal, each
// catalogued permission is checked before and after at the object its application checks (the
// pattern's level), with the same evaluator on both sides (the caller's `check` functions). Access
// lost and gained, v1 grants whose v2 parity flips, permissions the new schema no longer defines,
// seeded roles changed; counted per permission and per organisation, with a few examples each.
import { assetVerb, type AssetTypeCatalog } from "./asset-types.js";
import { levelOfPattern, type BindingLevel } from "./levels.js";
import { checkObjectFor, type CheckFn, type ObjectRef } from "./parity.js";
import { roleGrants } from "./permissions.js";
import { principalId, TYPES, type TenantIds } from "./tuples.js";

/** One side (before or after) of a change: the evaluator over that side's schema and relationships. */
export interface ImpactSide {
  readonly check: CheckFn;
  /** Whether the schema defines `permission` on `resourceType`. */
  readonly isDefined: (resourceType: string, permission: string) => boolean;
}

export interface ImpactPrincipal {
  readonly userId: string;
  /** The v1 permissions the principal holds under each side's seeded roles (only with v1 data). */
  readonly heldBefore?: ReadonlySet<string>;
  readonly heldAfter?: ReadonlySet<string>;
  /**
   * Workspaces below the Default Workspace where the principal's bindings are made: workspace-level
   * permissions are checked there too (a grant on a team's workspace never shows at the level).
   */
  readonly workspaceIds?: readonly string[];
}

export interface ImpactTenant {
  readonly orgId: string;
  readonly ids: TenantIds;
  readonly principals: readonly ImpactPrincipal[];
}

/** A seeded (system) role as a configuration defines it. */
export interface SeededRole {
  readonly name: string;
  readonly version?: number;
  readonly platform_default?: boolean;
  readonly admin_default?: boolean;
  readonly permissions: readonly string[];
}

export interface SeededRoleChange {
  readonly name: string;
  readonly change: "added" | "removed" | "changed";
  readonly permissionsAdded: readonly string[];
  readonly permissionsRemoved: readonly string[];
  /** `platform_default` / `admin_default` when that flag differs. */
  readonly flagsChanged: readonly string[];
  /** A changed role whose version was not raised: a store keeps its seeded copy (insights-rbac's rule). */
  readonly versionNotRaised?: true;
}

export interface ImpactExample {
  readonly orgId: string;
  readonly userId: string;
  readonly object: ObjectRef;
}

/** Counts for one v2 permission at the level its applications check it. */
export interface PermissionImpact {
  readonly v2Permission: string;
  readonly checkedAt: BindingLevel;
  readonly objectType: string;
  /** The catalogued v1 permissions applications check as this v2 permission there. */
  readonly v1Permissions: string[];
  lost: number;
  gained: number;
  parityBroken: number;
  parityRestored: number;
  readonly examples: { lost: ImpactExample[]; gained: ImpactExample[]; parityBroken: ImpactExample[] };
}

export interface OrganisationImpact {
  readonly orgId: string;
  lost: number;
  gained: number;
  parityBroken: number;
  parityRestored: number;
  /** A few of the organisation's losses (permission and subject). */
  readonly examples: { v2Permission: string; userId: string; object: ObjectRef }[];
}

export interface UnverifiablePermission {
  readonly v2Permission: string;
  readonly objectType: string;
  readonly v1Permissions: string[];
  /** v1 grants (principal × v1 permission) after the change that nothing can check. */
  heldGrants: number;
}

export interface ConfigImpact {
  readonly summary: {
    readonly organisations: number;
    readonly principals: number;
    /** Catalogued (v2 permission, level) pairs, and how many the change could affect (re-evaluated). */
    readonly permissions: number;
    readonly permissionsEvaluated: number;
    readonly checks: number;
    readonly lost: number;
    readonly gained: number;
    readonly parityBroken: number;
    readonly parityRestored: number;
    readonly unverifiable: number;
    readonly seededRolesChanged: number;
  };
  /** Only permissions with something to report, most losses first. */
  readonly permissions: PermissionImpact[];
  readonly organisations: OrganisationImpact[];
  readonly unverifiable: UnverifiablePermission[];
  readonly seededRoles: readonly SeededRoleChange[];
}

export interface ImpactInput {
  readonly catalog: AssetTypeCatalog;
  readonly domain: string;
  readonly tenants: readonly ImpactTenant[];
  readonly before: ImpactSide;
  readonly after: ImpactSide;
  /**
   * Whether (objectType, v2 permission) can answer differently (see affectedMembers); the rest is
   * not evaluated. Default: everything is.
   */
  readonly affected?: (objectType: string, v2Permission: string) => boolean;
  /** Whether the holding of a concrete v1 permission can differ (a seeded role changed). */
  readonly v1Affected?: (permission: string) => boolean;
  readonly seededRoles?: readonly SeededRoleChange[];
  /** Examples kept per permission and per organisation (default 5). */
  readonly examples?: number;
  readonly onTenant?: (done: number, total: number) => void;
}

export interface CatalogCheck {
  readonly key: string;
  readonly v2Permission: string;
  readonly checkedAt: BindingLevel;
  readonly objectType: string;
  readonly v1Permissions: string[];
  readonly definedBefore: boolean;
  readonly definedAfter: boolean;
}

/** Every (v2 permission, level) the catalogue's applications check, with its v1 permissions. */
function catalogChecks(catalog: AssetTypeCatalog, before: Pick<ImpactSide, "isDefined">, after: Pick<ImpactSide, "isDefined">): CatalogCheck[] {
  const out = new Map<string, CatalogCheck>();
  for (const permission of catalog.permissions()) {
    const { assetType, verb } = assetVerb(catalog, permission);
    const checkedAt = levelOfPattern(assetType.pattern);
    const objectType = checkedAt === "tenant" ? TYPES.tenant : TYPES.workspace;
    for (const v2Permission of verb.v2) {
      const key = `${v2Permission}@${checkedAt}`;
      const row = out.get(key) ?? {
        key,
        v2Permission,
        checkedAt,
        objectType,
        v1Permissions: [],
        definedBefore: before.isDefined(objectType, v2Permission),
        definedAfter: after.isDefined(objectType, v2Permission),
      };
      row.v1Permissions.push(permission);
      out.set(key, row);
    }
  }
  return [...out.values()];
}

/** Seeded roles added, removed or changed (permissions, default flags) between two configurations. */
export function diffSeededRoles(before: readonly SeededRole[], after: readonly SeededRole[]): SeededRoleChange[] {
  const byName = (roles: readonly SeededRole[]) => new Map(roles.map((r) => [r.name.toLowerCase(), r]));
  const a = byName(before);
  const b = byName(after);
  const out: SeededRoleChange[] = [];
  for (const [key, r] of a) {
    if (!b.has(key)) out.push({ name: r.name, change: "removed", permissionsAdded: [], permissionsRemoved: [...new Set(r.permissions)].sort(), flagsChanged: [] });
  }
  for (const [key, r] of b) {
    const old = a.get(key);
    if (!old) {
      out.push({ name: r.name, change: "added", permissionsAdded: [...new Set(r.permissions)].sort(), permissionsRemoved: [], flagsChanged: [] });
      continue;
    }
    const had = new Set(old.permissions);
    const has = new Set(r.permissions);
    const permissionsAdded = [...has].filter((p) => !had.has(p)).sort();
    const permissionsRemoved = [...had].filter((p) => !has.has(p)).sort();
    const flagsChanged = (["platform_default", "admin_default"] as const).filter((f) => (old[f] ?? false) !== (r[f] ?? false));
    if (permissionsAdded.length + permissionsRemoved.length + flagsChanged.length === 0) continue;
    const versionNotRaised = (r.version ?? 1) <= (old.version ?? 1);
    out.push({ name: r.name, change: "changed", permissionsAdded, permissionsRemoved, flagsChanged, ...(versionNotRaised ? { versionNotRaised: true as const } : {}) });
  }
  return out.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

/**
 * The concrete v1 permissions whose holding a seeded-role change can alter: those its added or
 * removed permissions grant (wildcards included), and all of a role whose default flags changed.
 */
export function v1PermissionsAffectedBy(changes: readonly SeededRoleChange[], before: readonly SeededRole[], after: readonly SeededRole[]): (permission: string) => boolean {
  const touched = new Set<string>();
  const all = new Map([...before, ...after].map((r) => [r.name.toLowerCase(), r]));
  for (const c of changes) {
    for (const p of [...c.permissionsAdded, ...c.permissionsRemoved]) touched.add(p);
    if (c.flagsChanged.length > 0) for (const p of all.get(c.name.toLowerCase())?.permissions ?? []) touched.add(p);
  }
  const cache = new Map<string, boolean>();
  return (permission) => {
    let hit = cache.get(permission);
    if (hit === undefined) cache.set(permission, (hit = roleGrants(touched, permission)));
    return hit;
  };
}

const pushExample = <T>(list: T[], limit: number, item: T) => {
  if (list.length < limit) list.push(item);
};

/**
 * The catalogued (object type, v2 permission) pairs a change must evaluate: those whose answers
 * may change, or where a v1 holding checked there may; never one defined on neither side.
 */
export function evaluatedChecks(input: Pick<ImpactInput, "catalog" | "affected" | "v1Affected"> & { readonly before: Pick<ImpactSide, "isDefined">; readonly after: Pick<ImpactSide, "isDefined"> }): {
  all: CatalogCheck[];
  evaluated: CatalogCheck[];
} {
  const all = catalogChecks(input.catalog, input.before, input.after);
  const affected = input.affected ?? (() => true);
  const v1Affected = input.v1Affected ?? (() => false);
  const evaluated = all.filter((c) => (c.definedBefore || c.definedAfter) && (c.definedBefore !== c.definedAfter || affected(c.objectType, c.v2Permission) || c.v1Permissions.some(v1Affected)));
  return { all, evaluated };
}

/** Computes the impact of a configuration change (see the module comment). */
export function computeConfigImpact(input: ImpactInput): ConfigImpact {
  const { before, after, domain } = input;
  const limit = input.examples ?? 5;
  const { all: checks, evaluated } = evaluatedChecks(input);
  const rows = new Map<string, PermissionImpact>();
  const rowOf = (c: CatalogCheck): PermissionImpact => {
    let row = rows.get(c.key);
    if (!row) {
      row = {
        v2Permission: c.v2Permission,
        checkedAt: c.checkedAt,
        objectType: c.objectType,
        v1Permissions: c.v1Permissions,
        lost: 0,
        gained: 0,
        parityBroken: 0,
        parityRestored: 0,
        examples: { lost: [], gained: [], parityBroken: [] },
      };
      rows.set(c.key, row);
    }
    return row;
  };
  const unverifiable = new Map<string, UnverifiablePermission>();
  for (const c of checks) {
    if (c.definedBefore && !c.definedAfter) unverifiable.set(c.key, { v2Permission: c.v2Permission, objectType: c.objectType, v1Permissions: c.v1Permissions, heldGrants: 0 });
  }
  const organisations: OrganisationImpact[] = [];
  let principals = 0;
  let checkCount = 0;
  let done = 0;
  const totals = { lost: 0, gained: 0, parityBroken: 0, parityRestored: 0 };

  for (const tenant of input.tenants) {
    const org: OrganisationImpact = { orgId: tenant.orgId, lost: 0, gained: 0, parityBroken: 0, parityRestored: 0, examples: [] };
    const objects = new Map<BindingLevel, ObjectRef>();
    const objectAt = (level: BindingLevel) => {
      let o = objects.get(level);
      if (!o) objects.set(level, (o = checkObjectFor(tenant.ids, level)));
      return o;
    };
    for (const principal of tenant.principals) {
      principals++;
      const subject = { type: TYPES.principal, id: principalId(domain, principal.userId) };
      for (const c of evaluated) {
        const object = objectAt(c.checkedAt);
        let was = false;
        let is = false;
        const where = c.checkedAt === "default" && principal.workspaceIds ? [object, ...principal.workspaceIds.map((id) => ({ type: TYPES.workspace, id }))] : [object];
        for (const [i, at] of where.entries()) {
          const allowedBefore = c.definedBefore && before.check(at, c.v2Permission, subject);
          const allowedAfter = c.definedAfter && after.check(at, c.v2Permission, subject);
          checkCount += (c.definedBefore ? 1 : 0) + (c.definedAfter ? 1 : 0);
          if (i === 0) {
            was = allowedBefore;
            is = allowedAfter;
          }
          if (allowedBefore === allowedAfter) continue;
          const example = { orgId: tenant.orgId, userId: principal.userId, object: at };
          const row = rowOf(c);
          if (allowedBefore) {
            row.lost++;
            org.lost++;
            pushExample(row.examples.lost, limit, example);
            pushExample(org.examples, limit, { v2Permission: c.v2Permission, userId: principal.userId, object: at });
          } else {
            row.gained++;
            org.gained++;
            pushExample(row.examples.gained, limit, example);
          }
        }
        const example = { orgId: tenant.orgId, userId: principal.userId, object };
        if (!principal.heldBefore || !principal.heldAfter) continue;
        // Parity of a v1 grant: held in v1 and allowed in v2 where its application checks it.
        const heldBefore = c.v1Permissions.some((p) => roleGrants(principal.heldBefore as ReadonlySet<string>, p));
        const heldAfter = c.v1Permissions.some((p) => roleGrants(principal.heldAfter as ReadonlySet<string>, p));
        if (heldAfter && !c.definedAfter) {
          const u = unverifiable.get(c.key);
          if (u) u.heldGrants++;
        }
        const okBefore = !heldBefore || was;
        const okAfter = !heldAfter || is;
        if (okBefore === okAfter) continue;
        const row = rowOf(c);
        if (okBefore) {
          row.parityBroken++;
          org.parityBroken++;
          pushExample(row.examples.parityBroken, limit, example);
        } else {
          row.parityRestored++;
          org.parityRestored++;
        }
      }
    }
    if (org.lost + org.gained + org.parityBroken + org.parityRestored > 0) organisations.push(org);
    totals.lost += org.lost;
    totals.gained += org.gained;
    totals.parityBroken += org.parityBroken;
    totals.parityRestored += org.parityRestored;
    input.onTenant?.(++done, input.tenants.length);
  }
  const byLoss = <T extends { lost: number; parityBroken: number; gained: number }>(x: T, y: T) => y.lost + y.parityBroken - (x.lost + x.parityBroken) || y.gained - x.gained;
  return {
    summary: {
      organisations: input.tenants.length,
      principals,
      permissions: checks.length,
      permissionsEvaluated: evaluated.length,
      checks: checkCount,
      ...totals,
      unverifiable: unverifiable.size,
      seededRolesChanged: input.seededRoles?.length ?? 0,
    },
    permissions: [...rows.values()].sort(byLoss),
    organisations: organisations.sort(byLoss),
    unverifiable: [...unverifiable.values()],
    seededRoles: input.seededRoles ?? [],
  };
}

/**
 * What blocks the change: permissions with lost access or broken parity that `accepted` does not
 * name (by v2 permission, by one of its v1 permissions, or `*` for everything).
 */
export function unacceptedImpact(impact: ConfigImpact, accepted: readonly string[]): PermissionImpact[] {
  if (accepted.includes("*")) return [];
  const names = new Set(accepted);
  return impact.permissions.filter((p) => p.lost + p.parityBroken > 0 && !names.has(p.v2Permission) && !p.v1Permissions.some((v) => names.has(v)));
}

/**
 * A short digest of what an impact reports (counts per permission and organisation, seeded role
 * and schema changes; not the examples), so a caller can accept exactly the impact it was shown.
 * FNV-1a (64 bits): it names an impact, it protects nothing.
 */
export function impactDigest(impact: ConfigImpact): string {
  const text = JSON.stringify([
    impact.permissions.map((p) => [p.v2Permission, p.checkedAt, p.lost, p.gained, p.parityBroken, p.parityRestored]),
    impact.organisations.map((o) => [o.orgId, o.lost, o.gained, o.parityBroken, o.parityRestored]),
    impact.unverifiable.map((u) => [u.v2Permission, u.objectType, u.heldGrants]),
    impact.seededRoles,
  ]);
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}
