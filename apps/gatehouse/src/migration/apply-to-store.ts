import type { BindingLevel, TenantMigrationPlan, V1Export, V1Tenant } from "@gatehouse/rbac";
import type { BindingResource, RoleBindingGrant, Store, Tenant } from "@gatehouse/store";
import { MigrationError } from "./errors.js";

export interface TenantApplyResult {
  readonly orgId: string;
  readonly rolesCreated: number;
  readonly rolesUpdated: number;
  readonly groupsCreated: number;
  readonly bindings: number;
  /** Highest revision written for the tenant; undefined when nothing changed (idempotent re-run). */
  readonly revision?: number;
}

const BATCH = 100;

function resourceOf(tenant: Tenant, level: BindingLevel): BindingResource {
  if (level === "tenant") return { type: "tenant", id: tenant.tenantId };
  return { type: "workspace", id: level === "root" ? tenant.rootWorkspaceId : tenant.defaultWorkspaceId };
}

/**
 * Writes one tenant's plan through the store repositories, idempotently: existing roles and groups
 * are matched by name, bindings are created only if missing. The store has no single-transaction
 * import yet, so each repository call commits on its own (see the README, "Migration").
 */
export async function applyTenantPlan(store: Store, exp: V1Export, tenant: V1Tenant, plan: TenantMigrationPlan): Promise<TenantApplyResult> {
  const orgId = tenant.org_id;
  let revision: number | undefined;
  const wrote = (r: { revision: number }) => {
    revision = Math.max(revision ?? 0, r.revision);
  };
  const t = await store.tenants.bootstrap(orgId);
  if (t.created) wrote(t);
  const bootstrapped = t.value;

  const existingPrincipals = new Map((await store.principals.list(orgId, { limit: -1 })).data.map((p) => [p.userId, p]));
  const principalChanges = tenant.principals.filter((p) => {
    const e = existingPrincipals.get(p.user_id);
    return !e || e.isOrgAdmin !== (p.is_org_admin === true) || e.username !== (p.username ?? p.user_id);
  });
  if (principalChanges.length > 0) {
    wrote(await store.principals.upsert(orgId, principalChanges.map((p) => ({ userId: p.user_id, username: p.username ?? p.user_id, isOrgAdmin: p.is_org_admin === true }))));
  }

  // Roles: custom parts by name (created or updated); seeded roles must exist already.
  const roles = (await store.roles.list(orgId, { limit: -1 })).data;
  const roleIdByPlanId = new Map<string, string>();
  let rolesCreated = 0;
  let rolesUpdated = 0;
  const missingSeeded: string[] = [];
  for (const r of plan.roles) {
    if (r.source === "platform") continue;
    const v1 = [...exp.system_roles, ...(tenant.roles ?? [])].find((x) => (x.uuid ?? x.name) === r.v1Role);
    const wanted = r.source === "system" ? (v1?.name ?? r.name) : r.name;
    const found = roles.find((x) => x.name === wanted && (r.source === "system" ? x.kind === "seeded" : x.kind === "custom"));
    if (r.source === "system") {
      if (found) roleIdByPlanId.set(r.id, found.id);
      else missingSeeded.push(wanted);
      continue;
    }
    const input = { name: r.name, permissions: [...r.permissions], scope: r.level };
    if (!found) {
      const created = await store.roles.create(orgId, input);
      wrote(created);
      rolesCreated++;
      roleIdByPlanId.set(r.id, created.value.id);
    } else {
      roleIdByPlanId.set(r.id, found.id);
      const same = found.scope === r.level && [...found.permissions].sort().join() === [...r.permissions].sort().join();
      if (!same) {
        wrote(await store.roles.update(orgId, found.id, input));
        rolesUpdated++;
      }
    }
  }
  if (missingSeeded.length > 0) {
    throw new MigrationError("invalid-export", `org ${orgId}: system roles not seeded in the store: ${[...new Set(missingSeeded)].join(", ")}`);
  }

  // Groups by name; the custom default group maps to the tenant's platform-default group.
  const groups = (await store.groups.list(orgId, { limit: -1 })).data;
  const groupIdByPlanId = new Map<string, string>();
  let groupsCreated = 0;
  for (const g of plan.groups) {
    if (g.kind === "default") groupIdByPlanId.set(g.id, bootstrapped.platformDefaultGroupId);
    else if (g.kind === "admin-default") groupIdByPlanId.set(g.id, bootstrapped.adminDefaultGroupId);
    else {
      let id = groups.find((x) => x.name === g.name && x.kind === "standard")?.id;
      if (!id) {
        const created = await store.groups.create(orgId, { name: g.name });
        wrote(created);
        groupsCreated++;
        id = created.value.id;
      }
      groupIdByPlanId.set(g.id, id);
      const members = new Set(await store.groups.members(orgId, id));
      const missing = g.members.filter((m) => !members.has(m));
      if (missing.length > 0) wrote(await store.groups.addMembers(orgId, id, missing));
    }
  }

  // Bindings: group-role grants; the default groups' own bindings are the store's bootstrap.
  const grants: RoleBindingGrant[] = [];
  const customDefault = new Map<BindingLevel, string[]>();
  for (const b of plan.bindings) {
    const roleId = roleIdByPlanId.get(b.roleId);
    const groupId = groupIdByPlanId.get(b.groupId);
    if (!roleId || !groupId) continue; // platform parent roles: bound by the tenant bootstrap
    if (groupId === bootstrapped.platformDefaultGroupId) customDefault.set(b.level, [...(customDefault.get(b.level) ?? []), roleId]);
    else grants.push({ resource: resourceOf(bootstrapped, b.level), subject: { type: "group", id: groupId }, roleId });
  }
  let bindings = 0;
  for (let i = 0; i < grants.length; i += BATCH) {
    const chunk = grants.slice(i, i + BATCH);
    const missing: RoleBindingGrant[] = [];
    for (const g of chunk) {
      const held = await store.roleBindings.rolesOfSubject(orgId, g.resource, g.subject);
      if (!held.includes(g.roleId)) missing.push(g);
    }
    if (missing.length > 0) wrote(await store.roleBindings.batchCreate(orgId, missing));
    bindings += chunk.length;
  }
  // A custom default group replaces the platform-default roles of every user, level by level.
  if (plan.groups.some((g) => g.kind === "default" && g.name !== "Default access")) {
    for (const level of ["tenant", "root", "default"] as const) {
      const resource = resourceOf(bootstrapped, level);
      const subject = { type: "group" as const, id: bootstrapped.platformDefaultGroupId };
      const wanted = [...new Set(customDefault.get(level) ?? [])].sort();
      const current = [...(await store.roleBindings.rolesOfSubject(orgId, resource, subject))].sort();
      if (wanted.join() !== current.join()) wrote(await store.roleBindings.replaceRolesOfSubject(orgId, resource, subject, wanted));
      bindings += wanted.length;
    }
  }
  return { orgId, rolesCreated, rolesUpdated, groupsCreated, bindings, ...(revision !== undefined ? { revision } : {}) };
}
