import { createHash } from "node:crypto";
import { isStoreError, type Principal, type PrincipalType } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { notFound } from "../domain/errors.js";
import { requireOnTenant, type Services } from "./services.js";

export interface PrincipalRecord {
  uuid: string;
  username: string;
  type: PrincipalType;
  user_id: string | null;
  service_account_id: string | null;
  group_count: number;
}

/** Principals are keyed by external user id; their `uuid` is derived from it (name-based, v5 layout). */
export function principalUuid(orgId: string, userId: string): string {
  const hash = createHash("sha1").update(`gatehouse-principal:${orgId}/${userId}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

async function principalRecord(services: Services, ctx: RequestContext, principal: Principal): Promise<PrincipalRecord> {
  const groups = await services.store.groups.groupsOf(ctx.tenant.orgId, principal.userId);
  // Default groups are implicit memberships, not counted (insights-rbac counts explicit groups).
  const explicit = groups.filter((id) => id !== ctx.tenant.platformDefaultGroupId && id !== ctx.tenant.adminDefaultGroupId);
  return {
    uuid: principalUuid(ctx.tenant.orgId, principal.userId),
    username: principal.username,
    type: principal.type,
    user_id: principal.type === "user" ? principal.userId : null,
    service_account_id: principal.type === "service-account" ? principal.userId : null,
    group_count: explicit.length,
  };
}

export async function listPrincipals(
  services: Services,
  ctx: RequestContext,
  filters: { username?: string | undefined; type?: PrincipalType | undefined; orderBy?: "username" | "-username" | undefined },
  page: { limit: number; offset: number },
): Promise<{ count: number; data: PrincipalRecord[] }> {
  await requireOnTenant(services, ctx, "rbac_principal_read");
  const username = filters.username?.trim();
  const result = await services.store.principals.list(ctx.tenant.orgId, {
    limit: page.limit,
    offset: page.offset,
    ...(username && username !== "*" ? { username } : {}),
    ...(filters.type ? { type: filters.type } : {}),
    ...(filters.orderBy ? { orderBy: filters.orderBy } : {}),
  });
  return { count: result.count, data: await Promise.all(result.data.map((p) => principalRecord(services, ctx, p))) };
}

/** By derived uuid or by user id. */
export async function getPrincipal(services: Services, ctx: RequestContext, idOrUuid: string): Promise<PrincipalRecord> {
  await requireOnTenant(services, ctx, "rbac_principal_read");
  const direct = await services.store.principals.get(ctx.tenant.orgId, idOrUuid).catch((error: unknown) => {
    if (isStoreError(error, "not-found") || isStoreError(error, "invalid-argument")) return null;
    throw error;
  });
  if (direct) return principalRecord(services, ctx, direct);
  const all = await services.store.principals.list(ctx.tenant.orgId, { limit: -1 });
  const match = all.data.find((p) => principalUuid(ctx.tenant.orgId, p.userId) === idOrUuid.toLowerCase());
  if (!match) throw notFound();
  return principalRecord(services, ctx, match);
}

/** The organisation's principals of these user ids, in the order given; ids of no principal are left out. */
export async function principalsByIds(services: Services, ctx: RequestContext, userIds: readonly string[]): Promise<Principal[]> {
  const found = await Promise.all(userIds.map((id) => services.store.principals.get(ctx.tenant.orgId, id).catch(() => null)));
  return found.filter((p): p is Principal => p !== null);
}

export async function listPrincipalsByIds(services: Services, ctx: RequestContext, userIds: string[]): Promise<PrincipalRecord[]> {
  const records: PrincipalRecord[] = [];
  for (const userId of userIds) {
    const principal = await services.store.principals.get(ctx.tenant.orgId, userId).catch(() => null);
    if (principal) records.push(await principalRecord(services, ctx, principal));
  }
  return records;
}

/**
 * A service account as upstream's group answers list it (`ServiceAccount`). Gatehouse has no
 * service-account directory, so `name`, `description`, `owner` and `time_created` are left out.
 */
export interface V1ServiceAccount {
  clientId: string;
  username: string;
  type: "service-account";
}

/** Upstream names a service account's principal `service-account-<clientId>`. */
const SERVICE_ACCOUNT_USERNAME = /^service-account-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * The client id of a service-account principal. Gatehouse keys a service account by the user id
 * its identity carried, which is the client id when the identity has no `user_id`; otherwise the
 * client id is the one in upstream's username form.
 */
export function clientIdOf(principal: Principal): string {
  return SERVICE_ACCOUNT_USERNAME.exec(principal.username)?.[1] ?? principal.userId.toLowerCase();
}

export const v1ServiceAccount = (p: Principal): V1ServiceAccount => ({ clientId: clientIdOf(p), username: p.username, type: "service-account" });
