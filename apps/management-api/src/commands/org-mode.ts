// An organisation's v1 / v2 mode for operators: read it, and activate v2 explicitly, optionally
// only when the parity report shows no v1 grant lost in v2 (the organisation's v1 writes end then).
import { defaultAssetTypes } from "@gatehouse/rbac";
import { isStoreError, type OrgModeState, type Store } from "@gatehouse/store";
import { parityReport } from "./parity.js";
import type { RequestContext } from "../domain/context.js";
import { conflict, forbidden, invalid, notFound, unavailable } from "../domain/errors.js";
import { echo } from "../schemas/common.js";
import type { Services } from "./services.js";

export interface OrgModeAnswer {
  org_id: string;
  mode: "v1" | "v2";
  v2_activated_at: string | null;
  /** Lost grants of the parity report run before an activation that asked for it. */
  parity_lost?: number;
}

const ORG_ID = /^[A-Za-z0-9_.-]{1,64}$/;

const answer = (s: OrgModeState, extra: Partial<OrgModeAnswer> = {}): OrgModeAnswer => ({
  org_id: s.orgId,
  mode: s.mode,
  v2_activated_at: s.v2ActivatedAt ? s.v2ActivatedAt.toISOString() : null,
  ...extra,
});

function requireOrgId(orgId: string): string {
  if (!ORG_ID.test(orgId)) throw invalid(`'${echo(orgId)}' is not a valid org id.`, "org_id");
  return orgId;
}

function tenantNotFound(error: unknown): never {
  if (isStoreError(error, "tenant-not-found")) throw notFound("No organisation matches the given org id.");
  throw error;
}

/**
 * The operator endpoints carry no identity, so (as the role-configuration reload) only callers on
 * the same host may use them, and only once the service has started.
 */
export function operatorServices(fromLocalHost: boolean, services: Services | null): Services {
  if (!fromLocalHost) throw forbidden("Organisation modes can be read and set from the local host only.");
  if (!services) throw unavailable("The service is not ready.");
  return services;
}

export async function orgMode(store: Store, orgId: string): Promise<OrgModeAnswer> {
  return answer(await store.orgMode.get(requireOrgId(orgId)).catch(tenantNotFound));
}

/** A request context of the organisation for operator work (no caller principal). */
async function operatorContext(store: Store, orgId: string): Promise<RequestContext> {
  const tenant = await store.tenants.get(orgId).catch((error: unknown) => {
    if (isStoreError(error, "not-found") || isStoreError(error, "tenant-not-found")) throw notFound("No organisation matches the given org id.");
    throw error;
  });
  return {
    caller: { orgId, userId: "", username: "gatehouse-operator", isOrgAdmin: true, isServiceAccount: false, isSystemUser: true },
    tenant,
    principalId: "",
    minRevision: 0,
  };
}

/**
 * Activates v2 for the organisation (idempotent). With `requireParity`, refused (409) while the
 * parity report shows a lost grant; nothing changes then.
 */
export async function activateV2(services: Services, orgId: string, options: { requireParity: boolean }): Promise<OrgModeAnswer & { changed: boolean }> {
  const ctx = await operatorContext(services.store, requireOrgId(orgId));
  let lost: number | undefined;
  if (options.requireParity) {
    const parity = await parityReport(services, ctx, defaultAssetTypes());
    lost = parity.report.summary.lost;
    if (lost > 0) throw conflict(`The parity report shows ${lost} v1 grant(s) not granted in v2; fix them (GET /api/rbac/v2/access:parity/) before activating v2.`, "parity");
  }
  const written = await services.store.orgMode.activate(orgId).catch(tenantNotFound);
  return { ...answer(written.value, lost === undefined ? {} : { parity_lost: lost }), changed: written.value.changed };
}
