import type { Store, Written } from "@gatehouse/store";
import type { Authorizer } from "../authz/authorizer.js";
import type { PermissionCatalogue } from "../authz/catalogue.js";
import type { ManagementApiConfig } from "../config.js";
import type { RequestContext } from "../domain/context.js";
import { forbidden } from "../domain/errors.js";

/** What every command needs; built once by `buildServer`. */
export interface Services {
  store: Store;
  authz: Authorizer;
  catalogue: PermissionCatalogue;
  config: ManagementApiConfig;
  /** The clock of the store and the answers (epoch ms): judges dates and expiries. */
  now: () => number;
  /** Told of each committed v1 write (parity upkeep; absent: not kept). */
  parity?: V1WriteObserver;
}

/** Recomputes what a v1 write may have changed; answers the organisation's lost grants, if known. */
export interface V1WriteObserver {
  afterV1Write(ctx: RequestContext, written: Written<unknown>): Promise<number | undefined>;
}

/** Org admins (identity flag) and admin system users may do everything in their own org. */
export function isAdmin(ctx: RequestContext): boolean {
  return ctx.caller.isOrgAdmin;
}

/** Makes sure the graph reflects the tenant bootstrap and the caller's principal record. */
export async function graphReady(services: Services, ctx: RequestContext): Promise<void> {
  if (services.authz.revision < ctx.minRevision) await services.authz.catchUp(ctx.minRevision, services.config.readYourWritesTimeoutMs);
}

export async function canOnWorkspace(services: Services, ctx: RequestContext, workspaceId: string, permission: string): Promise<boolean> {
  if (isAdmin(ctx)) return true;
  await graphReady(services, ctx);
  return services.authz.check(ctx.principalId, { resourceType: "rbac/workspace", resourceId: workspaceId, permission });
}

/** Whether the caller holds `permission` on its tenant (org admins always do). */
export async function hasOnTenant(services: Services, ctx: RequestContext, permission: string): Promise<boolean> {
  if (isAdmin(ctx)) return true;
  await graphReady(services, ctx);
  return services.authz.check(ctx.principalId, { resourceType: "rbac/tenant", resourceId: ctx.tenant.tenantId, permission });
}

export async function requireOnTenant(services: Services, ctx: RequestContext, permission: string): Promise<void> {
  if (!(await hasOnTenant(services, ctx, permission))) throw forbidden();
}

/** After a write: the caller's next request must see it, so apply it to the graph first. */
export async function settled<T>(services: Services, written: Written<T>): Promise<Written<T>> {
  await services.authz.catchUp(written.revision, services.config.readYourWritesTimeoutMs);
  return written;
}
