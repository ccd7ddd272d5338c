import { planRoleBinding, type BindingPlan, type PermissionLevelOf } from "./binding-plan.js";
import type { BindingLevel } from "./levels.js";

/** A v1 access entry as a v1 role write carries it. */
export interface V1AccessInput {
  readonly permission: string;
  readonly resourceDefinitions?: readonly { readonly attributeFilter: { readonly key: string; readonly operation: string; readonly value?: unknown } }[];
}

/** Where a v1 role's grants live in v2: the bindings a group holding the role gets. */
export interface V1RolePlacement {
  /** The role's level by the migration rule (stored as its scope). */
  readonly level: BindingLevel;
  /**
   * Organisation levels the role is bound at: its level, or the tenant and the Root Workspace when
   * it mixes their permissions (rule 3); the Default Workspace for a role without access (grants
   * nothing). Empty when every entry is limited to inventory workspaces.
   */
  readonly levels: readonly BindingLevel[];
  /** Inventory workspaces named by `group.id` resource definitions (bindings on those workspaces). */
  readonly workspaceIds: readonly string[];
  /** A `group.id` definition names `null`: the ungrouped hosts. */
  readonly ungrouped: boolean;
  /**
   * A role mixing workspace-limited and unlimited entries, where some permission is only limited:
   * binding the whole role at an organisation level would grant that permission everywhere. The
   * role is then bound on its workspaces only, and its unlimited permissions alone (a part of the
   * role) at these organisation levels. Absent otherwise.
   */
  readonly unlimited?: { readonly levels: readonly BindingLevel[]; readonly permissions: readonly string[] };
  readonly plan: BindingPlan;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An inventory entry limited by `group.id` (inventory groups are workspaces in v2). */
export function isInventoryWorkspaceFilter(entry: V1AccessInput): boolean {
  const [app, resource] = entry.permission.split(":");
  return app === "inventory" && ["groups", "hosts", "*"].includes(resource ?? "") && (entry.resourceDefinitions ?? []).some((d) => d.attributeFilter.key === "group.id");
}

/**
 * Places a v1 role in v2 with the migration's rule (`planRoleBinding`, the rule `gatehouse migrate`
 * applies): bound at the highest level any permission needs, split into tenant and Root Workspace
 * bindings when it mixes them. Inventory entries limited by `group.id` become bindings on those
 * workspaces; a role made only of such entries gets no organisation-level binding, so v2 grants
 * exactly the workspaces v1 names. Other definitions (attribute filters v2 has no relation for)
 * do not narrow the grant.
 */
export function planV1RolePlacement(access: readonly V1AccessInput[], levelOf: PermissionLevelOf): V1RolePlacement {
  const plan = planRoleBinding({ name: "", permissions: access.map((a) => a.permission) }, levelOf);
  const workspaceIds = new Set<string>();
  let ungrouped = false;
  for (const entry of access) {
    if (!isInventoryWorkspaceFilter(entry)) continue;
    for (const d of entry.resourceDefinitions ?? []) {
      if (d.attributeFilter.key !== "group.id") continue;
      const raw = d.attributeFilter.value;
      for (const v of Array.isArray(raw) ? raw : [raw]) {
        if (v === null) ungrouped = true;
        else if (typeof v === "string" && UUID.test(v)) workspaceIds.add(v.toLowerCase());
      }
    }
  }
  // A role without access is still bound (at the Default Workspace, granting nothing), so v1 lists it among the group's roles.
  const everyEntryFiltered = access.length > 0 && access.every(isInventoryWorkspaceFilter);
  const levels = everyEntryFiltered ? [] : plan.bindings.map((b) => b.level);
  const placed = { level: plan.level, levels, workspaceIds: [...workspaceIds].sort(), ungrouped, plan };
  if (everyEntryFiltered || (workspaceIds.size === 0 && !ungrouped)) return placed;
  // Mixed: a permission granted only on workspaces must not reach the organisation level.
  const unlimitedPermissions = [...new Set(access.filter((a) => !isInventoryWorkspaceFilter(a)).map((a) => a.permission))];
  const covered = new Set(unlimitedPermissions);
  if (access.filter(isInventoryWorkspaceFilter).every((a) => covered.has(a.permission))) return placed;
  const unlimitedPlan = planRoleBinding({ name: "", permissions: unlimitedPermissions }, levelOf);
  return { ...placed, levels: [], unlimited: { levels: unlimitedPlan.bindings.map((b) => b.level), permissions: unlimitedPermissions.sort() } };
}
