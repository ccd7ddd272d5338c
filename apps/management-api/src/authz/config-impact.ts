// The impact of a role-configuration change on what a store holds: its relationships as they are
// (seeded from the running configuration) and as they would be once the next one is seeded
// (insights-rbac's rule: a seeded role changes only with a higher version), evaluated for every
// organisation the store has (see @gatehouse/rbac computeConfigImpact). The reload shows it before
// applying; `gatehouse config-impact` shows it for a store too.
import {
  deterministicId,
  evaluateConfigImpact,
  heldV1Permissions,
  impactDigest,
  reseededV1Export,
  reseedRelationships,
  subjectsOfTenants,
  type AssetTypeCatalog,
  type ConfigImpact,
  type ImpactRunSide,
  type ImpactTenant,
  type RelationshipTuple,
  type SeededRoleRecord,
  type TenantIds,
} from "@gatehouse/rbac";
import { PLATFORM_ROLES, type Store, type Tenant } from "@gatehouse/store";
import { v1ExportFromStore } from "./v1-export.js";
import type { RoleConfiguration } from "./role-config.js";

export interface ImpactData {
  readonly before: ImpactRunSide;
  readonly after: ImpactRunSide;
  readonly tenants: ImpactTenant[];
  readonly domain: string;
  readonly source: Record<string, unknown>;
}

/** A configuration's seeded roles as the impact compares them (and as a store seeds them). */
export function seededRolesOf(config: RoleConfiguration): SeededRoleRecord[] {
  return config.systemRoles.map((r) => ({
    name: r.name,
    version: r.version ?? 1,
    platform_default: r.platform_default === true,
    admin_default: r.admin_default === true,
    scope: r.scope ?? "default",
    permissions: r.access.map((a) => a.permission),
  }));
}

/**
 * A store's relationships as they are (seeded from `from`) and as they would be once `to` is
 * seeded (insights-rbac's rule: a seeded role changes only with a higher version), and each
 * principal's v1 permissions on both sides (the organisation's v1 export as the store keeps it,
 * its seeded roles reseeded the same way), so parity flips are reported as with a v1 export.
 */
export async function storeImpactData(store: Store, from: RoleConfiguration, to: RoleConfiguration, domain: string, org?: string): Promise<ImpactData> {
  const relationships: RelationshipTuple[] = [];
  const snap = await store.feed.snapshot(org ? { orgId: org } : {});
  for await (const batch of snap.batches) for (const t of batch) relationships.push(t);
  const tenantIds = new Set<string>();
  for (const t of relationships) if (t.resourceType === "rbac/workspace" && t.relation === "t_parent" && t.subjectType === "rbac/tenant") tenantIds.add(t.subjectId);
  const prefix = `${domain}/`;
  const orgs = [...tenantIds].filter((t) => t.startsWith(prefix)).map((t) => t.slice(prefix.length));
  if (org && !orgs.includes(org)) throw new UnknownOrganisationError(org);
  const ids: TenantIds[] = [];
  const rows: Tenant[] = [];
  for (const o of orgs.sort()) {
    const t = await store.tenants.find(o);
    if (!t) continue;
    rows.push(t);
    ids.push({ orgId: t.orgId, tenantId: t.tenantId, rootWorkspaceId: t.rootWorkspaceId, defaultWorkspaceId: t.defaultWorkspaceId });
  }
  const storedIds = new Map<string, string>();
  if (ids.length > 0) {
    for (const r of (await store.roles.list(ids[0]!.orgId, { kinds: ["seeded"], limit: -1 })).data) storedIds.set(r.name.toLowerCase(), r.id);
  }
  const before = seededRolesOf(from);
  const after = seededRolesOf(to);
  const reseeded = reseedRelationships(relationships, {
    storedIds,
    before,
    after,
    parents: PLATFORM_ROLES.map((p) => ({ id: p.id, audience: p.audience, scope: p.scope })),
    newRoleId: (name) => deterministicId("seeded-role", name.toLowerCase()),
  });
  const subjects = subjectsOfTenants(relationships, ids, domain);
  const tenants: ImpactTenant[] = [];
  for (const [i, t] of ids.entries()) {
    const s = subjects.get(t.orgId);
    const { export: exp } = await v1ExportFromStore(store, rows[i]!, Number.POSITIVE_INFINITY);
    const v1Tenant = exp.tenants[0]!;
    const heldBefore = heldV1Permissions(exp, v1Tenant);
    const heldAfter = heldV1Permissions(reseededV1Export(exp, before, after), v1Tenant);
    // Members and binding subjects, and the principals only default access reaches.
    const users = [...new Set([...(s?.userIds ?? []), ...v1Tenant.principals.map((p) => p.user_id)])];
    tenants.push({
      orgId: t.orgId,
      ids: t,
      principals: users.map((u) => {
        const workspaceIds = s?.workspaceIds.get(u);
        return { userId: u, heldBefore: heldBefore.get(u) ?? new Set(), heldAfter: heldAfter.get(u) ?? new Set(), ...(workspaceIds ? { workspaceIds } : {}) };
      }),
    });
  }
  return {
    before: { model: from.model, schemaAst: from.schemaAst, relationships, seededRoles: before },
    after: { model: to.model, schemaAst: to.schemaAst, relationships: reseeded, seededRoles: after },
    tenants,
    domain,
    source: { kind: "store", revision: snap.revision },
  };
}

/** An organisation the store does not have. */
export class UnknownOrganisationError extends Error {
  override readonly name = "UnknownOrganisationError";
  constructor(readonly orgId: string) {
    super(`organisation '${orgId.length > 100 ? `${orgId.slice(0, 100)}…` : orgId}' is not in the store`);
  }
}

/** The store's impact of seeding `to` over `from`, with its digest. */
export async function storeConfigImpact(
  store: Store,
  from: RoleConfiguration,
  to: RoleConfiguration,
  catalog: AssetTypeCatalog,
  domain: string,
  examples = 5,
): Promise<{ impact: ConfigImpact; digest: string }> {
  const data = await storeImpactData(store, from, to, domain);
  const { impact } = evaluateConfigImpact({ ...data, catalog, examples });
  return { impact, digest: impactDigest(impact) };
}

/** An impact for an HTTP answer: the organisations with most losses first, at most `limit` of them. */
export function boundedImpact(impact: ConfigImpact, limit = 100): ConfigImpact & { organisationsOmitted: number } {
  return { ...impact, organisations: impact.organisations.slice(0, limit), organisationsOmitted: Math.max(0, impact.organisations.length - limit) };
}
