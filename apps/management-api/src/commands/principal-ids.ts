import { isStoreError } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { UUID_PATTERN } from "../schemas/common.js";
import { principalUuid } from "./principals.js";
import type { Services } from "./services.js";

/**
 * insights-rbac names a user in role bindings by the principal's UUID (the `uuid` of
 * `GET /principals/`); the store keys principals by their external user id. The UUID is derived
 * from (org, user id), so the mapping never changes: it is remembered once found, and only the
 * principal's existence is checked again.
 */
const known = new Map<string, string>();
const KNOWN_MAX = 100_000;

function remember(key: string, userId: string): void {
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(key, userId);
}

async function exists(services: Services, ctx: RequestContext, userId: string): Promise<boolean> {
  return services.store.principals.get(ctx.tenant.orgId, userId).then(
    () => true,
    (error: unknown) => {
      if (isStoreError(error, "not-found") || isStoreError(error, "invalid-argument")) return false;
      throw error;
    },
  );
}

/** The user id of the principal with this UUID in the caller's organisation, or null. */
export async function userIdOfPrincipalUuid(services: Services, ctx: RequestContext, uuid: string): Promise<string | null> {
  if (!UUID_PATTERN.test(uuid)) return null;
  const wanted = uuid.toLowerCase();
  const key = `${ctx.tenant.orgId}\u0000${wanted}`;
  const cached = known.get(key);
  if (cached !== undefined) return (await exists(services, ctx, cached)) ? cached : null;
  const all = await services.store.principals.list(ctx.tenant.orgId, { limit: -1 });
  for (const principal of all.data) {
    const id = principalUuid(ctx.tenant.orgId, principal.userId);
    remember(`${ctx.tenant.orgId}\u0000${id}`, principal.userId);
    if (id === wanted) return principal.userId;
  }
  return null;
}

/** A principal UUID, or (as insights-rbac's `granted_subject_id` also allows) a user id. */
export async function userIdOfUuidOrUserId(services: Services, ctx: RequestContext, id: string): Promise<string | null> {
  const byUuid = await userIdOfPrincipalUuid(services, ctx, id);
  if (byUuid !== null) return byUuid;
  return (await exists(services, ctx, id)) ? id : null;
}
