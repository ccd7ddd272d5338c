import { isInventoryWorkspaceFilter, type V1Export, type V1Group, type V1Role, type V1Tenant } from "@gatehouse/rbac";
import type { Role, Store, Tenant } from "@gatehouse/store";
import { invalid } from "../domain/errors.js";

/** Organisations above this size get a 400 pointing at `gatehouse parity` (it runs offline). */
export const PARITY_MAX_PRINCIPALS = 5000;

function toV1Role(role: Role): V1Role {
  return {
    uuid: role.id,
    name: role.name,
    ...(role.displayName ? { display_name: role.displayName } : {}),
    access: role.permissions.map((permission) => ({ permission })),
    ...(role.kind === "seeded" ? { system: true, platform_default: role.platformDefault, admin_default: role.adminDefault } : {}),
  };
}

/**
 * The organisation's v1 grants as the store keeps them: v1 assignments are group-to-role
 * bindings at the organisation level (the tenant, the Root Workspace or the Default Workspace),
 * which is what `gatehouse migrate` imports and the v1 group endpoints maintain. Bindings on other
 * workspaces are v2-only and not v1 grants. A default-access group bound to roles other than the
 * platform parent roles is the tenant's customised default access. Above `maxPrincipals` principals
 * it refuses (400): an HTTP answer stays bounded.
 */
export async function v1ExportFromStore(store: Store, tenant: Tenant, maxPrincipals = PARITY_MAX_PRINCIPALS): Promise<{ export: V1Export; assignments: number }> {
  const org = tenant.orgId;
  // Independent reads, side by side (one round trip's wait instead of four).
  const [principalPage, rolePage, bindingPage, groupPage] = await Promise.all([
    store.principals.list(org, { limit: -1 }),
    store.roles.list(org, { limit: -1 }),
    store.roleBindings.list(org, { limit: -1 }),
    store.groups.list(org, { limit: -1 }),
  ]);
  const principals = principalPage.data;
  if (principals.length > maxPrincipals) {
    throw invalid(`The parity report runs here for organisations of at most ${PARITY_MAX_PRINCIPALS} principals; run 'gatehouse parity' instead.`);
  }
  const roles = rolePage.data;
  const roleById = new Map(roles.map((r) => [r.id, r]));
  const orgLevel = new Set([tenant.tenantId, tenant.rootWorkspaceId, tenant.defaultWorkspaceId]);
  // A v1 role mixing workspace-limited and unlimited access is bound on its workspaces only, its
  // unlimited permissions being a part bound at the organisation level: its groups hold those
  // permissions as v1 grants, checked at the level their application checks.
  const custom = roles.filter((r) => r.kind === "custom");
  const standard = groupPage.data.filter((g) => g.kind === "standard");
  const [access, members] = await Promise.all([
    store.v1.accessOf(custom.map((r) => r.id)),
    Promise.all(standard.map(async (g) => [g.id, await store.groups.members(org, g.id)] as const)).then((pairs) => new Map(pairs)),
  ]);
  const unlimitedOf = new Map<string, string[]>();
  for (const r of custom) {
    const entries = access.get(r.id) ?? [];
    const unlimited = entries.filter((e) => !isInventoryWorkspaceFilter(e)).map((e) => e.permission);
    if (unlimited.length > 0 && unlimited.length < entries.length) unlimitedOf.set(r.id, [...new Set(unlimited)]);
  }
  const bindings = bindingPage.data.filter((b) => orgLevel.has(b.resource.id) || unlimitedOf.has(b.roleId));
  const rolesOfGroup = new Map<string, Set<string>>();
  let assignments = 0;
  for (const b of bindings) {
    for (const s of b.subjects) {
      if (s.type !== "group") continue;
      const set = rolesOfGroup.get(s.id) ?? new Set<string>();
      set.add(b.roleId);
      rolesOfGroup.set(s.id, set);
      assignments++;
    }
  }
  const groups: V1Group[] = [];
  for (const g of groupPage.data) {
    const bound = [...(rolesOfGroup.get(g.id) ?? [])].map((id) => roleById.get(id)).filter((r): r is Role => r !== undefined);
    if (g.kind === "standard") {
      groups.push({ uuid: g.id, name: g.name, principals: members.get(g.id) ?? [], roles: bound.filter((r) => r.kind !== "platform").map((r) => r.id) });
    } else if (g.kind === "platform-default" && bound.some((r) => r.kind !== "platform")) {
      // Customised default access: its own roles, plus the platform defaults while a platform parent role is still bound.
      const keepsDefaults = bound.some((r) => r.kind === "platform");
      const defaults = keepsDefaults ? roles.filter((r) => r.kind === "seeded" && r.platformDefault).map((r) => r.id) : [];
      groups.push({ uuid: g.id, name: g.name, principals: [], roles: [...new Set([...bound.filter((r) => r.kind !== "platform").map((r) => r.id), ...defaults])], platform_default: true });
    }
  }
  const v1Tenant: V1Tenant = {
    org_id: org,
    principals: principals.map((p) => ({ user_id: p.userId, username: p.username, is_org_admin: p.isOrgAdmin })),
    roles: custom.map((r) => toV1Role(unlimitedOf.has(r.id) ? { ...r, permissions: unlimitedOf.get(r.id)! } : r)),
    groups,
  };
  return {
    export: { version: 1, domain: store.domain, system_roles: roles.filter((r) => r.kind === "seeded").map(toV1Role), tenants: [v1Tenant] },
    assignments,
  };
}
