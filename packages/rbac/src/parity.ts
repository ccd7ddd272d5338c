import { assetVerb, type AssetTypeCatalog } from "./asset-types.js";
import { BINDING_LEVELS, LEVEL_LABELS, levelOfPattern, levelRank, levelsAbove, type BindingLevel } from "./levels.js";
import type { TenantMigrationPlan } from "./migration-plan.js";
import { roleGrants, wildcardCandidates } from "./permissions.js";
import { principalId, TYPES, type RelationshipTuple, type TenantIds } from "./tuples.js";
import { roleKey, v1RolesOf, type V1Export, type V1Principal, type V1Tenant } from "./v1-export.js";
import { isInventoryWorkspaceFilter, type V1AccessInput } from "./v1-placement.js";

export interface ObjectRef {
  readonly type: string;
  readonly id: string;
}

/** Evaluates a v2 permission (e.g. an evaluator `check` over a relationship graph). */
export type CheckFn = (resource: ObjectRef, permission: string, subject: ObjectRef) => boolean;
/** Explains a v2 decision in one line (e.g. the evaluator's `explain(...).summary`). */
export type ExplainFn = (resource: ObjectRef, permission: string, subject: ObjectRef) => string;

export interface LostGrant {
  readonly orgId: string;
  readonly userId: string;
  /** The concrete v1 permission the principal held. */
  readonly permission: string;
  /** v1 roles (and how the principal got them) that granted it. */
  readonly heldVia: readonly string[];
  readonly v2Permission: string;
  readonly pattern: number;
  readonly checkedAt: BindingLevel;
  readonly checkObject: ObjectRef;
  /** Levels where the v2 roles carrying the permission are bound. */
  readonly boundAt: readonly BindingLevel[];
  /** Why v2 denies, e.g. "bound at Default Workspace, checked at Root Workspace". */
  readonly reason: string;
  readonly explain?: string;
}

export interface OverGrant {
  readonly orgId: string;
  readonly userId: string;
  readonly permission: string;
  readonly v2Permission: string;
  readonly checkedAt: BindingLevel;
  /** Levels above the check level where v2 also grants it (from a higher-level binding). */
  readonly grantedAt: readonly BindingLevel[];
  readonly reason: string;
}

export interface ExtraGrant {
  readonly orgId: string;
  readonly userId: string;
  /** A catalog permission the principal did not hold in v1. */
  readonly permission: string;
  readonly v2Permission: string;
  readonly checkedAt: BindingLevel;
}

export interface ParityReport {
  readonly ok: boolean;
  readonly summary: {
    readonly tenants: number;
    readonly principals: number;
    readonly grantsVerified: number;
    readonly checks: number;
    readonly lost: number;
    readonly overGrants: number;
    readonly extraGrants: number;
    readonly unclassified: number;
    readonly notInSchema: number;
    /** v1 grants a principal holds that could not be checked (unclassified, or not in the schema). */
    readonly grantsUnverified: number;
  };
  readonly lost: readonly LostGrant[];
  readonly overGrants: readonly OverGrant[];
  readonly extraGrants: readonly ExtraGrant[];
  /** Held permissions no asset type classifies: their check level is unknown, so they are not verified. */
  readonly unclassified: readonly { readonly orgId: string; readonly permission: string }[];
  /**
   * v2 permissions the schema does not define at the checked object (only with `isDefined`): not
   * verified. `heldGrants` counts the principals holding it in v1 (0: nobody here needs it checked).
   */
  readonly notInSchema: readonly { readonly permission: string; readonly v2Permission: string; readonly objectType: string; readonly heldGrants: number }[];
}

export interface ParityTenant {
  readonly tenant: V1Tenant;
  readonly plan: TenantMigrationPlan;
}

export interface ParityInput {
  readonly export: V1Export;
  readonly catalog: AssetTypeCatalog;
  readonly tenants: readonly ParityTenant[];
  /** The v2 tuples actually in force (store snapshot or plan); used to say where roles are bound. */
  readonly relationships: Iterable<RelationshipTuple>;
  readonly check: CheckFn;
  readonly explain?: ExplainFn;
  /**
   * Whether the schema defines `permission` on `resourceType`. When given, v2 permissions the
   * schema lacks are not checked but listed in `notInSchema` (e.g. an application not modelled yet).
   */
  readonly isDefined?: (resourceType: string, permission: string) => boolean;
  /** Called after each principal (progress reporting). */
  readonly onPrincipal?: (done: number, total: number) => void;
}

/** The object the application checks for a permission level. */
export function checkObjectFor(ids: TenantIds, level: BindingLevel): ObjectRef {
  if (level === "tenant") return { type: TYPES.tenant, id: ids.tenantId };
  return { type: TYPES.workspace, id: level === "root" ? ids.rootWorkspaceId : ids.defaultWorkspaceId };
}

/** role id → levels where it is bound (directly, or as a child of a bound parent role). */
function boundLevelsIndex(relationships: Iterable<RelationshipTuple>, ids: readonly TenantIds[]): Map<string, Set<BindingLevel>> {
  const levelOfObject = new Map<string, BindingLevel>();
  for (const t of ids) {
    for (const level of BINDING_LEVELS) {
      const o = checkObjectFor(t, level);
      levelOfObject.set(`${o.type}:${o.id}`, level);
    }
  }
  const bindingLevel = new Map<string, BindingLevel>();
  const bindingRoles = new Map<string, string[]>();
  const children = new Map<string, string[]>();
  for (const r of relationships) {
    if (r.relation === "t_binding" && r.subjectType === TYPES.roleBinding) {
      const level = levelOfObject.get(`${r.resourceType}:${r.resourceId}`);
      if (level) bindingLevel.set(r.subjectId, level);
    } else if (r.resourceType === TYPES.roleBinding && r.relation === "t_role") {
      bindingRoles.set(r.resourceId, [...(bindingRoles.get(r.resourceId) ?? []), r.subjectId]);
    } else if (r.resourceType === TYPES.role && r.relation === "t_child") {
      children.set(r.resourceId, [...(children.get(r.resourceId) ?? []), r.subjectId]);
    }
  }
  const out = new Map<string, Set<BindingLevel>>();
  const mark = (roleId: string, level: BindingLevel, seen: Set<string>) => {
    if (seen.has(roleId)) return;
    seen.add(roleId);
    const set = out.get(roleId) ?? new Set<BindingLevel>();
    set.add(level);
    out.set(roleId, set);
    for (const c of children.get(roleId) ?? []) mark(c, level, seen);
  };
  for (const [binding, level] of bindingLevel) for (const role of bindingRoles.get(binding) ?? []) mark(role, level, new Set());
  return out;
}

const label = (l: BindingLevel) => LEVEL_LABELS[l];

function lostReason(boundAt: readonly BindingLevel[], checkedAt: BindingLevel): string {
  if (boundAt.length === 0) return `not bound at any level, checked at ${label(checkedAt)}`;
  const covering = boundAt.filter((l) => levelRank(l) >= levelRank(checkedAt));
  if (covering.length === 0) return `bound at ${boundAt.map(label).join(", ")}, checked at ${label(checkedAt)}`;
  return `bound at ${covering.map(label).join(", ")} which covers ${label(checkedAt)}, yet v2 denies (see explain)`;
}

/** A concrete catalogue permission and where its application checks it. */
interface CheckTarget {
  readonly permission: string;
  /** The held forms that grant it (`wildcardCandidates`). */
  readonly grantedBy: readonly string[];
  readonly pattern: number;
  readonly checkedAt: BindingLevel;
  readonly v2: readonly string[];
}

/** Every concrete catalogue permission with its check level: once per report, not once per principal. */
function checkTargets(catalog: AssetTypeCatalog): CheckTarget[] {
  return catalog.permissions().map((permission) => {
    const { assetType, verb } = assetVerb(catalog, permission);
    return { permission, grantedBy: wildcardCandidates(permission), pattern: assetType.pattern, checkedAt: levelOfPattern(assetType.pattern), v2: verb.v2 };
  });
}

/** Whether the held permissions grant the target (the wildcard rule of `roleGrants`). */
const grants = (held: ReadonlySet<string>, target: CheckTarget) => target.grantedBy.some((c) => held.has(c));

/**
 * A principal's v1 roles and the permissions they hold organisation-wide: an inventory entry
 * limited by group.id grants on those workspaces only (bound there), not at the level a check is
 * made, so the organisation-wide grants are the other entries.
 */
function heldBy(exp: V1Export, tenant: V1Tenant, principal: V1Principal) {
  const sources = v1RolesOf(exp, tenant, principal);
  const held = new Set(sources.flatMap((s) => s.role.access.filter((a) => !isInventoryWorkspaceFilter(a as V1AccessInput)).map((a) => a.permission)));
  return { sources, held };
}

export interface LostGrantCountInput {
  readonly export: V1Export;
  readonly catalog: AssetTypeCatalog;
  readonly tenant: V1Tenant;
  readonly ids: TenantIds;
  readonly check: CheckFn;
  readonly isDefined?: (resourceType: string, permission: string) => boolean;
}

/**
 * The number of lost grants `computeParity` reports for one tenant (`summary.lost`), without the
 * rest of the report: only the grants held in v1 are checked (no extra or over-grant checks, no
 * explanations), and no migration plan or stored relationships are needed.
 */
export function countLostGrants(input: LostGrantCountInput): number {
  const { tenant, ids, check, isDefined } = input;
  const domain = input.export.domain ?? "redhat";
  const targets = checkTargets(input.catalog);
  let lost = 0;
  for (const principal of tenant.principals) {
    const subject = { type: TYPES.principal, id: principalId(domain, principal.user_id) };
    const { held } = heldBy(input.export, tenant, principal);
    for (const target of targets) {
      if (!grants(held, target)) continue;
      const { checkedAt, v2 } = target;
      const object = checkObjectFor(ids, checkedAt);
      for (const v2Permission of v2) {
        if (isDefined && !isDefined(object.type, v2Permission)) continue;
        if (!check(object, v2Permission, subject)) lost++;
      }
    }
  }
  return lost;
}

/**
 * Compares v1 and v2 for every principal and every permission: each concrete catalog permission
 * the principal held in v1 is checked in v2 at the object its application's pattern checks.
 */
export function computeParity(input: ParityInput): ParityReport {
  const { catalog, check, explain } = input;
  const domain = input.export.domain ?? "redhat";
  const bound = boundLevelsIndex(
    input.relationships,
    input.tenants.map((t) => t.plan.ids),
  );
  const targets = checkTargets(catalog);
  const lost: LostGrant[] = [];
  const overGrants: OverGrant[] = [];
  const extraGrants: ExtraGrant[] = [];
  const unclassified = new Map<string, { orgId: string; permission: string }>();
  const notInSchema = new Map<string, { permission: string; v2Permission: string; objectType: string; heldGrants: number }>();
  let grantsUnverified = 0;
  let checks = 0;
  let grantsVerified = 0;
  const total = input.tenants.reduce((n, t) => n + t.tenant.principals.length, 0);
  let done = 0;
  const counted: CheckFn = (r, p, s) => {
    checks++;
    return check(r, p, s);
  };

  for (const { tenant, plan } of input.tenants) {
    const orgId = tenant.org_id;
    const v2RolesOf = new Map<string, string[]>();
    for (const r of plan.roles) if (r.v1Role) v2RolesOf.set(r.v1Role, [...(v2RolesOf.get(r.v1Role) ?? []), r.id]);
    for (const principal of tenant.principals) {
      const subject = { type: TYPES.principal, id: principalId(domain, principal.user_id) };
      const { sources, held } = heldBy(input.export, tenant, principal);
      for (const h of held) {
        if (targets.some((t) => roleGrants([h], t.permission))) continue;
        unclassified.set(`${orgId} ${h}`, { orgId, permission: h });
        grantsUnverified++;
      }
      for (const target of targets) {
        const { permission, pattern, checkedAt, v2 } = target;
        const object = checkObjectFor(plan.ids, checkedAt);
        const grantedInV1 = grants(held, target);
        for (const v2Permission of v2) {
          if (input.isDefined && !input.isDefined(object.type, v2Permission)) {
            const key = `${permission} ${v2Permission}`;
            const row = notInSchema.get(key) ?? { permission, v2Permission, objectType: object.type, heldGrants: 0 };
            if (grantedInV1) {
              row.heldGrants++;
              grantsUnverified++;
            }
            notInSchema.set(key, row);
            continue;
          }
          const allowed = counted(object, v2Permission, subject);
          if (!grantedInV1) {
            if (allowed) extraGrants.push({ orgId, userId: principal.user_id, permission, v2Permission, checkedAt });
            continue;
          }
          grantsVerified++;
          if (!allowed) {
            const granting = sources.filter((s) =>
              roleGrants(
                s.role.access.map((a) => a.permission),
                permission,
              ),
            );
            const levels = new Set<BindingLevel>();
            for (const s of granting) for (const id of v2RolesOf.get(roleKey(s.role)) ?? []) for (const l of bound.get(id) ?? []) levels.add(l);
            const boundAt = BINDING_LEVELS.filter((l) => levels.has(l));
            lost.push({
              orgId,
              userId: principal.user_id,
              permission,
              heldVia: granting.map((s) => `${s.role.name} via ${s.via}`),
              v2Permission,
              pattern,
              checkedAt,
              checkObject: object,
              boundAt,
              reason: lostReason(boundAt, checkedAt),
              ...(explain ? { explain: explain(object, v2Permission, subject) } : {}),
            });
            continue;
          }
          const grantedAt = levelsAbove(checkedAt).filter((l) => counted(checkObjectFor(plan.ids, l), v2Permission, subject));
          if (grantedAt.length > 0) {
            overGrants.push({
              orgId,
              userId: principal.user_id,
              permission,
              v2Permission,
              checkedAt,
              grantedAt,
              reason: `checked at ${label(checkedAt)}, also granted at ${grantedAt.map(label).join(", ")} by a higher-level binding`,
            });
          }
        }
      }
      input.onPrincipal?.(++done, total);
    }
  }
  return {
    ok: lost.length === 0,
    summary: {
      tenants: input.tenants.length,
      principals: total,
      grantsVerified,
      checks,
      lost: lost.length,
      overGrants: overGrants.length,
      extraGrants: extraGrants.length,
      unclassified: unclassified.size,
      notInSchema: notInSchema.size,
      grantsUnverified,
    },
    lost,
    overGrants,
    extraGrants,
    unclassified: [...unclassified.values()],
    notInSchema: [...notInSchema.values()],
  };
}
