import type { AssetTypeCatalog } from "./asset-types.js";
import { permissionLevelsFromCatalog, planDefaultRoles, planRoleBinding, rolePartKey, type BindingPlan, type DefaultRolesPlan, type DefaultScope } from "./binding-plan.js";
import { deterministicId } from "./ids.js";
import { BINDING_LEVELS, type BindingLevel } from "./levels.js";
import { bindingTuples, groupMemberTuple, roleChildTuple, rolePermissionTuple, TYPES, tupleKey, type RelationshipTuple, type TenantIds } from "./tuples.js";
import { roleKey, tenantRoleIndex, type V1Export, type V1Role, type V1Tenant } from "./v1-export.js";
import { isInventoryWorkspaceFilter, planV1RolePlacement, type V1AccessInput } from "./v1-placement.js";

/** A v2 role produced from (a part of) a v1 role. */
export interface PlannedRole {
  readonly id: string;
  readonly name: string;
  readonly source: "system" | "custom" | "platform";
  /** Key of the v1 role it comes from (none for platform parent roles). */
  readonly v1Role?: string;
  readonly level: BindingLevel;
  readonly permissions: readonly string[];
  /**
   * Set for a (part of a) custom role with inventory `group.id` definitions: where each group
   * holding it is really bound (planV1RolePlacement, as the import and a v1 role write bind it)
   * instead of at `level`.
   */
  readonly targets?: PlannedTargets;
}

/** Where a role limited to inventory workspaces is bound (see V1RolePlacement). */
export interface PlannedTargets {
  /** Organisation levels (empty when the role is bound on its workspaces only). */
  readonly levels: readonly BindingLevel[];
  /** Workspaces named by `group.id` (a workspace the organisation does not have gets nothing). */
  readonly workspaceIds: readonly string[];
  /** Also the ungrouped-hosts workspace (bound only where the organisation has one). */
  readonly ungrouped: boolean;
  /** The role's unlimited permissions alone, a part `<role>_u` bound at these levels. */
  readonly unlimited?: { readonly levels: readonly BindingLevel[]; readonly permissions: readonly string[] };
}

export interface PlannedGroup {
  readonly id: string;
  readonly name: string;
  readonly kind: "group" | "default" | "admin-default";
  readonly members: readonly string[];
}

export interface PlannedRoleBinding {
  readonly id: string;
  /** The level bound at; for a binding on a workspace (`workspaceId`), the role's level. */
  readonly level: BindingLevel;
  readonly roleId: string;
  readonly groupId: string;
  /** Bound on this inventory workspace (a role with `targets`), not at `level`. */
  readonly workspaceId?: string;
  /** The binding of the role's unlimited part `<role>_u` at `level` (a role with `targets.unlimited`). */
  readonly unlimitedPart?: true;
}

/** The part of a limited role holding its unlimited permissions (as the store names it: repos/v1-role-parts.ts). */
export const unlimitedPartRoleId = (roleId: string): string => `${roleId}_u`;
const unlimitedPartBindingId = (roleId: string, level: BindingLevel): string => `${unlimitedPartRoleId(roleId)}_${level}`;

export interface TenantMigrationPlan {
  readonly orgId: string;
  readonly ids: TenantIds;
  readonly roles: readonly PlannedRole[];
  readonly groups: readonly PlannedGroup[];
  readonly bindings: readonly PlannedRoleBinding[];
  readonly bindingPlans: ReadonlyMap<string, BindingPlan>;
  readonly defaultRoles: DefaultRolesPlan;
  readonly warnings: readonly string[];
  /** Every tuple the plan implies (roles, groups, bindings), sorted and without duplicates. */
  readonly relationships: readonly RelationshipTuple[];
}

function v2RoleBaseId(role: V1Role, orgId: string): string {
  if (role.uuid) return role.uuid;
  return role.system ? deterministicId("system-role", role.name) : deterministicId("custom-role", orgId, role.name);
}

/** Id of the platform (default parent) role of a scope and level; public, shared by all tenants. */
export function platformRoleId(scope: DefaultScope, level: BindingLevel): string {
  return deterministicId("platform-role", scope, level);
}

function levelResource(ids: TenantIds, level: BindingLevel): { type: string; id: string } {
  if (level === "tenant") return { type: TYPES.tenant, id: ids.tenantId };
  return { type: TYPES.workspace, id: level === "root" ? ids.rootWorkspaceId : ids.defaultWorkspaceId };
}

/** Plans the v2 roles, groups and bindings of one tenant of a v1 export. */
export function planTenantMigration(exp: V1Export, tenant: V1Tenant, catalog: AssetTypeCatalog, ids: TenantIds): TenantMigrationPlan {
  const domain = exp.domain ?? "redhat";
  const orgId = tenant.org_id;
  const levelOf = permissionLevelsFromCatalog(catalog);
  const index = tenantRoleIndex(exp, tenant);
  const warnings = new Set<string>();
  const tuples = new Map<string, RelationshipTuple>();
  const add = (ts: RelationshipTuple[]) => ts.forEach((t) => tuples.set(tupleKey(t), t));

  const roles: PlannedRole[] = [];
  const bindingPlans = new Map<string, BindingPlan>();
  /** v1 role key → its v2 parts. */
  const parts = new Map<string, { id: string; level: BindingLevel; key: string; targets?: PlannedTargets }[]>();
  const planRole = (role: V1Role) => {
    const key = roleKey(role);
    const existing = parts.get(key);
    if (existing) return existing;
    const permissions = role.access.map((a) => a.permission);
    const plan = planRoleBinding({ name: role.name, permissions }, levelOf);
    bindingPlans.set(key, plan);
    for (const p of plan.unclassified) warnings.add(`role '${role.name}': '${p}' matches no asset type; bound at Default Workspace`);
    // `group.id` definitions of inventory access become bindings on those workspaces (planV1RolePlacement);
    // any other attribute filter has no v2 relation and does not narrow the grant.
    const unexpressed = role.access.filter((a) => {
      const defs = (a.resourceDefinitions ?? []) as readonly { readonly attributeFilter?: { readonly key?: unknown } }[];
      if (defs.length === 0) return false;
      const byGroup = defs.every((d) => d?.attributeFilter?.key === "group.id");
      return !byGroup || !isInventoryWorkspaceFilter(a as V1AccessInput);
    });
    if (unexpressed.length > 0) {
      warnings.add(
        `role '${role.name}': ${unexpressed.length} access entr${unexpressed.length === 1 ? "y has" : "ies have"} resource definitions v2 cannot express (only inventory group.id); v2 grants those permissions without the filter`,
      );
    }
    const base = v2RoleBaseId(role, orgId);
    const out = plan.bindings.map((b) => {
      const id = plan.split ? deterministicId(base, b.level) : base;
      const name = rolePartKey(plan, b);
      // A custom part with inventory group.id definitions is placed as a v1 role write places it.
      const access = role.system ? [] : role.access.filter((a) => b.permissions.includes(a.permission));
      const placed = access.some((a) => isInventoryWorkspaceFilter(a as V1AccessInput)) ? planV1RolePlacement(access as V1AccessInput[], levelOf) : undefined;
      const targets: PlannedTargets | undefined = placed && {
        levels: [...placed.levels],
        workspaceIds: [...placed.workspaceIds],
        ungrouped: placed.ungrouped,
        ...(placed.unlimited ? { unlimited: { levels: [...placed.unlimited.levels], permissions: [...placed.unlimited.permissions] } } : {}),
      };
      roles.push({ id, name, source: role.system ? "system" : "custom", v1Role: key, level: b.level, permissions: b.permissions, ...(targets ? { targets } : {}) });
      add(b.permissions.map((p) => rolePermissionTuple(id, p)));
      if (targets?.unlimited) add(targets.unlimited.permissions.map((p) => rolePermissionTuple(unlimitedPartRoleId(id), p)));
      return { id, level: b.level, key: name, ...(targets ? { targets } : {}) };
    });
    parts.set(key, out);
    return out;
  };
  for (const r of tenant.roles ?? []) planRole(r);

  const groups: PlannedGroup[] = [];
  const bindings: PlannedRoleBinding[] = [];
  const everyone = tenant.principals.map((p) => p.user_id);
  const bind = (groupId: string, roleRef: string) => {
    const role = index.get(roleRef);
    if (!role) return; // checkV1Export rejects unknown references before planning
    for (const part of planRole(role)) {
      const t = part.targets;
      if (!t) {
        const id = deterministicId("binding", orgId, groupId, part.id, part.level);
        bindings.push({ id, level: part.level, roleId: part.id, groupId });
        add(bindingTuples(levelResource(ids, part.level), id, part.id, groupId));
        continue;
      }
      // Limited: at its target levels and on its workspaces (the ungrouped-hosts workspace is the
      // store's, bound there only), its unlimited part at that part's levels.
      for (const level of t.levels) {
        const id = deterministicId("binding", orgId, groupId, part.id, level);
        bindings.push({ id, level, roleId: part.id, groupId });
        add(bindingTuples(levelResource(ids, level), id, part.id, groupId));
      }
      for (const workspaceId of t.workspaceIds) {
        const id = deterministicId("binding", orgId, groupId, part.id, "workspace", workspaceId);
        bindings.push({ id, level: part.level, roleId: part.id, groupId, workspaceId });
        add(bindingTuples({ type: TYPES.workspace, id: workspaceId }, id, part.id, groupId));
      }
      for (const level of t.unlimited?.levels ?? []) {
        const id = unlimitedPartBindingId(part.id, level);
        bindings.push({ id, level, roleId: unlimitedPartRoleId(part.id), groupId, unlimitedPart: true });
        add(bindingTuples(levelResource(ids, level), id, unlimitedPartRoleId(part.id), groupId));
      }
    }
  };
  const customDefault = tenant.groups.find((g) => g.platform_default);
  for (const g of tenant.groups) {
    const id = g.uuid ?? deterministicId("group", orgId, g.name);
    const members = g.platform_default ? everyone : [...g.principals];
    groups.push({ id, name: g.name, kind: g.platform_default ? "default" : "group", members });
    add(members.map((u) => groupMemberTuple(id, domain, u)));
    for (const r of g.roles) bind(id, r);
  }

  // Default access: the platform parent roles at the three levels, bound to the default groups.
  const defaultGroupId = customDefault?.uuid ?? (customDefault ? deterministicId("group", orgId, customDefault.name) : deterministicId("default-group", orgId));
  const adminGroupId = deterministicId("default-admin-group", orgId);
  if (!customDefault) {
    groups.push({ id: defaultGroupId, name: "Default access", kind: "default", members: everyone });
    add(everyone.map((u) => groupMemberTuple(defaultGroupId, domain, u)));
  }
  const admins = tenant.principals.filter((p) => p.is_org_admin).map((p) => p.user_id);
  groups.push({ id: adminGroupId, name: "Default admin access", kind: "admin-default", members: admins });
  add(admins.map((u) => groupMemberTuple(adminGroupId, domain, u)));

  const defaultSources = exp.system_roles.flatMap((r) => [
    ...(r.platform_default && !customDefault ? [{ role: r, scope: "user" as const }] : []),
    ...(r.admin_default ? [{ role: r, scope: "admin" as const }] : []),
  ]);
  const defaultRoles = planDefaultRoles(
    defaultSources.map(({ role, scope }) => ({ name: role.name, permissions: role.access.map((a) => a.permission), scope })),
    levelOf,
  );
  for (const scope of ["user", "admin"] as const) {
    if (scope === "user" && customDefault) continue; // the custom default group's own bindings replace it
    const groupId = scope === "user" ? defaultGroupId : adminGroupId;
    for (const level of BINDING_LEVELS) {
      const parentId = platformRoleId(scope, level);
      roles.push({ id: parentId, name: `Default ${scope} access (${level})`, source: "platform", level, permissions: [] });
      for (const { role } of defaultSources.filter((s) => s.scope === scope)) {
        for (const part of planRole(role)) if (part.level === level) add([roleChildTuple(parentId, part.id)]);
      }
      const id = deterministicId("default-binding", orgId, scope, level);
      bindings.push({ id, level, roleId: parentId, groupId });
      add(bindingTuples(levelResource(ids, level), id, parentId, groupId));
    }
  }

  const relationships = [...tuples.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, t]) => t);
  return { orgId, ids, roles, groups, bindings, bindingPlans, defaultRoles, warnings: [...warnings].sort(), relationships };
}
