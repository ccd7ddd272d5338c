import type { BindingLevel, PlannedRole, TenantMigrationPlan, V1Export, V1Tenant } from "@gatehouse/rbac";
import type { ImportPhase, ImportRoleRef, Store, TenantImportPlan, V1AccessEntry, V1RoleTargets } from "@gatehouse/store";
import { MigrationError } from "./errors.js";

export interface TenantApplyResult {
  readonly orgId: string;
  readonly rolesCreated: number;
  readonly rolesUpdated: number;
  readonly groupsCreated: number;
  /** Group-role grants of the plan (default access included). */
  readonly bindings: number;
  /** Grants the store did not hold yet. */
  readonly grantsAdded: number;
  /** Revision of the tenant's import transaction; undefined when nothing changed (idempotent re-run). */
  readonly revision?: number;
  /** The planner's warnings of the tenant, then what the store found (workspaces the tenant does not have). */
  readonly warnings: readonly string[];
}

const uuidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const stableId = (id: string) => (uuidRe.test(id) ? { id } : {});

/**
 * The store's import plan of one tenant's migration plan: custom roles and groups keyed by their
 * planned (stable) ids, system roles referenced by name as seeded roles, group-role bindings by
 * level, and a customised default group as the tenant's default access. Platform parent roles
 * and the default groups' own bindings are the store's tenant bootstrap.
 */
export function toImportPlan(exp: V1Export, tenant: V1Tenant, plan: TenantMigrationPlan): TenantImportPlan {
  const v1Roles = [...exp.system_roles, ...(tenant.roles ?? [])];
  const roleRef = new Map<string, ImportRoleRef>();
  const roles: NonNullable<TenantImportPlan["roles"]> = [];
  for (const r of plan.roles) {
    if (r.source === "platform") continue;
    if (r.source === "system") {
      const v1 = v1Roles.find((x) => (x.uuid ?? x.name) === r.v1Role);
      roleRef.set(r.id, { seeded: v1?.name ?? r.name });
      continue;
    }
    // The v1 access entries of this part (resource definitions kept for /api/rbac/v1/access/).
    const v1 = v1Roles.find((x) => (x.uuid ?? x.name) === r.v1Role);
    const permissions = [...new Set(r.permissions)];
    const access = (v1?.access ?? [])
      .filter((a) => permissions.includes(a.permission))
      .map((a) => ({ permission: a.permission, resourceDefinitions: [...(a.resourceDefinitions ?? [])] as V1AccessEntry["resourceDefinitions"] }));
    roles.push({ key: r.id, ...stableId(r.id), name: r.name, permissions, scope: r.level, ...(access.length > 0 ? { access } : {}), ...limitedTargets(r) });
    roleRef.set(r.id, { key: r.id });
  }
  // With a customised default group the planner adds no synthetic one: the only "default" group is it.
  const customDefault = tenant.groups.some((g) => g.platform_default) ? plan.groups.find((g) => g.kind === "default") : undefined;
  const groups = plan.groups.filter((g) => g.kind === "group").map((g) => ({ key: g.id, ...stableId(g.id), name: g.name, members: [...g.members] }));
  const groupKeys = new Set(groups.map((g) => g.key));
  const bindings: NonNullable<TenantImportPlan["bindings"]> = [];
  const defaultAccess: Record<BindingLevel, ImportRoleRef[]> = { tenant: [], root: [], default: [] };
  // A limited role's planned bindings (its targets) name the groups holding it once each: the
  // store binds them at the role's targets.
  const limited = new Map(plan.roles.filter((r) => r.targets).map((r) => [r.id, r.level] as const));
  const heldLimited = new Set<string>();
  for (const b of plan.bindings) {
    const role = roleRef.get(b.roleId);
    if (!role) continue; // platform parent roles: bound by the tenant bootstrap; a limited role's unlimited part: by the store
    const limitedLevel = limited.get(b.roleId);
    if (limitedLevel !== undefined) {
      const key = `${b.roleId} ${b.groupId}`;
      if (heldLimited.has(key)) continue;
      heldLimited.add(key);
    }
    const level = limitedLevel ?? b.level;
    if (customDefault && b.groupId === customDefault.id) defaultAccess[level].push(role);
    else if (groupKeys.has(b.groupId)) bindings.push({ role, group: { key: b.groupId }, level });
  }
  return {
    principals: tenant.principals.map((p) => ({ userId: p.user_id, username: p.username ?? p.user_id, ...(p.is_org_admin !== undefined ? { isOrgAdmin: p.is_org_admin } : {}) })),
    roles,
    groups,
    bindings,
    ...(customDefault ? { defaultAccess } : {}),
  };
}

/**
 * The targets of a role (part) whose access is limited to inventory workspaces by `group.id`
 * definitions, as the planner placed it (`planV1RolePlacement`, where a v1 role write binds its
 * groups). None for a role without such a limit: it is bound at its level.
 */
function limitedTargets(role: PlannedRole): { targets: V1RoleTargets } | Record<string, never> {
  const t = role.targets;
  if (!t) return {};
  return {
    targets: {
      levels: [...t.levels],
      workspaceIds: [...t.workspaceIds],
      ungrouped: t.ungrouped,
      ...(t.unlimited ? { unlimited: { levels: [...t.unlimited.levels], permissions: [...t.unlimited.permissions] } } : {}),
    },
  };
}

/** One warning per role whose `group.id` definitions name workspaces the organisation does not have (a count, never the ids). */
function unknownWorkspaceWarnings(importPlan: TenantImportPlan, unknown: Readonly<Record<string, number>>): string[] {
  return (importPlan.roles ?? [])
    .filter((r) => (unknown[r.key] ?? 0) > 0)
    .map((r) => `role '${r.name}': ${unknown[r.key]} group.id workspace id(s) name no workspace of the organisation; v2 grants nothing there, as v1`);
}

/** Seeded role names the plan needs that the store does not have. */
async function missingSeededRoles(store: Store, orgId: string, importPlan: TenantImportPlan): Promise<string[]> {
  const wanted = new Set<string>();
  for (const b of importPlan.bindings ?? []) if ("seeded" in b.role) wanted.add(b.role.seeded);
  for (const refs of Object.values(importPlan.defaultAccess ?? {})) for (const r of refs) if ("seeded" in r) wanted.add(r.seeded);
  if (wanted.size === 0) return [];
  const seeded = new Set((await store.roles.list(orgId, { kinds: ["seeded"], limit: -1 })).data.map((r) => r.name.toLowerCase()));
  return [...wanted].filter((n) => !seeded.has(n.toLowerCase())).sort();
}

/**
 * Writes one tenant's plan through `store.imports.applyTenant`: ONE transaction (domain rows,
 * implied tuples, one change-feed entry), all or nothing, idempotent (a re-run writes nothing).
 */
export async function applyTenantPlan(
  store: Store,
  exp: V1Export,
  tenant: V1Tenant,
  plan: TenantMigrationPlan,
  onProgress?: (phase: ImportPhase, done: number, total: number) => void,
): Promise<TenantApplyResult> {
  const orgId = tenant.org_id;
  const importPlan = toImportPlan(exp, tenant, plan);
  const missing = await missingSeededRoles(store, orgId, importPlan);
  if (missing.length > 0) throw new MigrationError("invalid-export", `org ${orgId}: system roles not seeded in the store: ${missing.join(", ")}`);
  const { value, revision } = await store.imports.applyTenant(orgId, importPlan, onProgress ? { onProgress } : {});
  const defaultGrants = Object.values(importPlan.defaultAccess ?? {}).reduce((n, refs) => n + refs.length, 0);
  return {
    orgId,
    rolesCreated: value.rolesCreated,
    rolesUpdated: value.rolesUpdated,
    groupsCreated: value.groupsCreated,
    bindings: (importPlan.bindings?.length ?? 0) + defaultGrants,
    grantsAdded: value.grantsAdded,
    ...(value.changed ? { revision } : {}),
    warnings: [...plan.warnings, ...unknownWorkspaceWarnings(importPlan, value.unknownWorkspaces)],
  };
}
