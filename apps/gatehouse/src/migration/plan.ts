import { deterministicId, planTenantMigration, tenantResourceId, type AssetTypeCatalog, type TenantIds, type TenantMigrationPlan, type V1Export, type V1Tenant } from "@gatehouse/rbac";

export interface PlannedTenant {
  readonly tenant: V1Tenant;
  readonly plan: TenantMigrationPlan;
}

/** Tenant ids for a run without a store: stable, derived from the org id. */
export function simulatedTenantIds(domain: string, orgId: string): TenantIds {
  return {
    orgId,
    tenantId: tenantResourceId(domain, orgId),
    rootWorkspaceId: deterministicId("root-workspace", orgId),
    defaultWorkspaceId: deterministicId("default-workspace", orgId),
  };
}

/** Plans every tenant of the export. */
export function planExport(exp: V1Export, catalog: AssetTypeCatalog, idsOf: (orgId: string) => TenantIds = (orgId) => simulatedTenantIds(exp.domain ?? "redhat", orgId)): PlannedTenant[] {
  return exp.tenants.map((tenant) => ({ tenant, plan: planTenantMigration(exp, tenant, catalog, idsOf(tenant.org_id)) }));
}
