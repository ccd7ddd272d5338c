import { check, explain } from "@gatehouse/evaluator";
import { computeParity, countLostGrants, planTenantMigration, platformRoleId, type AssetTypeCatalog, type ParityReport } from "@gatehouse/rbac";
import { PLATFORM_ROLES, type Relationship } from "@gatehouse/store";
import { v1ExportFromStore } from "../authz/v1-export.js";
import type { RequestContext } from "../domain/context.js";
import { graphReady, type Services } from "./services.js";

/** Rows per list in the answer; `truncated` says when a list was cut. */
export const PARITY_MAX_ROWS = 1000;

export interface ParityAnswer {
  revision: number;
  consistency_token: string;
  /** How many group-to-role assignments at the tenant, Root and Default Workspace were read as v1 grants. */
  v1_assignments: number;
  report: ParityReport;
  truncated: boolean;
}

const tenantIds = ({ tenant }: RequestContext) => ({ orgId: tenant.orgId, tenantId: tenant.tenantId, rootWorkspaceId: tenant.rootWorkspaceId, defaultWorkspaceId: tenant.defaultWorkspaceId });

/**
 * `gatehouse parity` over the store, server-side: every v1 grant of the organisation checked in v2
 * (the authorization graph at its current revision) at the level its application checks.
 */
export async function parityReport(services: Services, ctx: RequestContext, catalog: AssetTypeCatalog): Promise<ParityAnswer> {
  const { store } = services;
  const { tenant } = ctx;
  const { export: exp, assignments } = await v1ExportFromStore(store, tenant);
  const v1Tenant = exp.tenants[0]!;
  const ids = tenantIds(ctx);
  const planned = planTenantMigration(exp, v1Tenant, catalog, ids);
  // Roles keep their store ids (the v1 role's uuid); platform parent roles map to the store's ids.
  const platformIds = new Map(PLATFORM_ROLES.map((p) => [platformRoleId(p.audience, p.scope), p.id]));
  const plan = { ...planned, roles: planned.roles.map((r) => ({ ...r, id: r.v1Role ?? platformIds.get(r.id) ?? r.id })) };

  const relationships: Relationship[] = [];
  const snapshot = await store.feed.snapshot({ orgId: tenant.orgId });
  for await (const batch of snapshot.batches) relationships.push(...batch);

  await graphReady(services, ctx);
  const graph = services.authz.graph;
  const revision = services.authz.revision;
  // One instant for the whole report: a grant expiring mid-report must not count on one side only.
  const now = services.authz.now();
  const report = computeParity({
    export: exp,
    catalog,
    tenants: [{ tenant: v1Tenant, plan }],
    relationships,
    check: (resource, permission, subject) => check(graph, resource, permission, subject, { now }),
    explain: (resource, permission, subject) => explain(graph, resource, permission, subject, { now }).summary,
    isDefined: (type, permission) => graph.model.isPermission(type, permission) || graph.model.isRelation(type, permission),
  });
  const cut = <T>(rows: readonly T[]) => rows.slice(0, PARITY_MAX_ROWS);
  const truncated = [report.lost, report.overGrants, report.extraGrants, report.unclassified, report.notInSchema].some((rows) => rows.length > PARITY_MAX_ROWS);
  return {
    revision,
    consistency_token: store.tokens.encode(revision),
    v1_assignments: assignments,
    report: {
      ...report,
      lost: cut(report.lost),
      overGrants: cut(report.overGrants),
      extraGrants: cut(report.extraGrants),
      unclassified: cut(report.unclassified),
      notInSchema: cut(report.notInSchema),
    },
    truncated,
  };
}

/**
 * The lost-grant count of the organisation's parity report (`report.summary.lost` of
 * `parityReport`), computed alone: the v1 grants checked in v2 at the current revision, with no
 * migration plan, relationship snapshot or explanations (what the parity upkeep needs after a write).
 */
export async function lostGrantCount(services: Services, ctx: RequestContext, catalog: AssetTypeCatalog): Promise<number> {
  const { export: exp } = await v1ExportFromStore(services.store, ctx.tenant);
  await graphReady(services, ctx);
  const graph = services.authz.graph;
  const now = services.authz.now();
  return countLostGrants({
    export: exp,
    catalog,
    tenant: exp.tenants[0]!,
    ids: tenantIds(ctx),
    check: (resource, permission, subject) => check(graph, resource, permission, subject, { now }),
    isDefined: (type, permission) => graph.model.isPermission(type, permission) || graph.model.isRelation(type, permission),
  });
}
