import type { Relationship } from "@gatehouse/evaluator";
import { platformRoleId, tupleKey, type AssetTypeCatalog, type ParityTenant, type TenantIds, type V1Export } from "@gatehouse/rbac";
import { PLATFORM_ROLES, type Store } from "@gatehouse/store";
import { planExport, simulatedTenantIds } from "./plan.js";

export interface StoreParityState {
  /** Each tenant's plan, with the store's tenant ids and the store's role ids. */
  readonly tenants: ParityTenant[];
  /** The tuples in force: the store's snapshot of every tenant of the export (and public tuples). */
  readonly relationships: Relationship[];
  /** Revision of each tenant's snapshot. */
  readonly revisions: Record<string, number>;
  readonly warnings: string[];
}

/**
 * What parity evaluates in `--from-store` mode: the store's tuples, its root/default workspace and
 * tenant ids, and the store's ids of the v2 roles each v1 role became (custom roles by name in the
 * tenant, system roles as seeded roles by name, default parent roles by audience and level), so a
 * lost grant can say where its role is actually bound.
 */
export async function loadStoreParityState(store: Store, exp: V1Export, catalog: AssetTypeCatalog): Promise<StoreParityState> {
  const warnings: string[] = [];
  const ids = new Map<string, TenantIds>();
  for (const t of exp.tenants) {
    const found = await store.tenants.find(t.org_id);
    if (found) ids.set(t.org_id, { orgId: found.orgId, tenantId: found.tenantId, rootWorkspaceId: found.rootWorkspaceId, defaultWorkspaceId: found.defaultWorkspaceId });
    else warnings.push(`org ${t.org_id} is not in the store: none of its v1 grants can hold`);
  }
  const planned = planExport(exp, catalog, (orgId) => ids.get(orgId) ?? simulatedTenantIds(exp.domain ?? "redhat", orgId));

  const platformIds = new Map<string, string>();
  for (const p of PLATFORM_ROLES) platformIds.set(platformRoleId(p.audience, p.scope), p.id);
  const v1Names = new Map([...exp.system_roles, ...exp.tenants.flatMap((t) => t.roles ?? [])].map((r) => [r.uuid ?? r.name, r.name]));

  const tenants: ParityTenant[] = [];
  const relationships: Relationship[] = [];
  const seen = new Set<string>();
  const revisions: Record<string, number> = {};
  for (const { tenant, plan } of planned) {
    if (!ids.has(tenant.org_id)) {
      tenants.push({ tenant, plan });
      continue;
    }
    const storeRoles = (await store.roles.list(tenant.org_id, { kinds: ["custom", "seeded"], limit: -1 })).data;
    const byName = (kind: string, name: string) => storeRoles.find((r) => r.kind === kind && r.name.toLowerCase() === name.toLowerCase())?.id;
    const roles = plan.roles.map((r) => {
      const id =
        r.source === "platform"
          ? platformIds.get(r.id)
          : r.source === "system"
            ? byName("seeded", v1Names.get(r.v1Role ?? "") ?? r.name)
            : (storeRoles.find((x) => x.kind === "custom" && x.id === r.id)?.id ?? byName("custom", r.name));
      return id ? { ...r, id } : r;
    });
    tenants.push({ tenant, plan: { ...plan, roles } });

    const snap = await store.feed.snapshot({ orgId: tenant.org_id });
    revisions[tenant.org_id] = snap.revision;
    for await (const batch of snap.batches) {
      for (const t of batch) {
        const key = tupleKey(t);
        if (seen.has(key)) continue; // public tuples come with every tenant's snapshot
        seen.add(key);
        relationships.push(t);
      }
    }
  }
  return { tenants, relationships, revisions, warnings };
}
