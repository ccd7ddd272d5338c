import type { BindingResource, BindingSubject } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { forbidden, invalid, missingAs, notFound } from "../domain/errors.js";
import { echo, UUID_PATTERN } from "../schemas/common.js";
import { graphReady, isAdmin, type Services } from "./services.js";

export interface ResourceQuery {
  resource_type?: "workspace" | "tenant" | undefined;
  resource_id?: string | undefined;
  "resource.tenant.org_id"?: string | undefined;
}

/** The resource a query names (validated to exist in the caller's tenant), if any. */
export async function resolveResource(services: Services, ctx: RequestContext, query: ResourceQuery, field = "resource_id"): Promise<BindingResource | undefined> {
  const orgShorthand = query["resource.tenant.org_id"];
  if (orgShorthand !== undefined) {
    if (query.resource_id !== undefined) throw invalid("Use either resource_id or resource.tenant.org_id.", "resource.tenant.org_id");
    if (query.resource_type !== undefined && query.resource_type !== "tenant") {
      throw invalid("resource_type must be 'tenant' with resource.tenant.org_id.", "resource_type");
    }
    if (orgShorthand !== ctx.tenant.orgId) throw notFound();
    return { type: "tenant", id: ctx.tenant.tenantId };
  }
  if (query.resource_type === undefined && query.resource_id === undefined) return undefined;
  if (query.resource_type === undefined) throw invalid("resource_type is required (or use resource.tenant.org_id).", "resource_type");
  if (query.resource_id === undefined) throw invalid("resource_id is required (or use resource.tenant.org_id).", field);
  return checkResource(services, ctx, { type: query.resource_type, id: query.resource_id }, field);
}

export async function checkResource(services: Services, ctx: RequestContext, resource: BindingResource, field: string): Promise<BindingResource> {
  if (resource.type === "tenant") {
    if (resource.id !== ctx.tenant.tenantId) throw notFound();
    return resource;
  }
  if (!UUID_PATTERN.test(resource.id)) throw invalid(`'${resource.id}' is not a valid UUID.`, field);
  const id = resource.id.toLowerCase();
  await services.store.workspaces.get(ctx.tenant.orgId, id).catch(missingAs(() => notFound(`workspace with id '${resource.id}' not found`)));
  return { type: "workspace", id };
}

type BindingAction = "view" | "grant" | "revoke";

/** Workspace: `role_binding_<action>`; tenant (or no resource): `rbac_role_binding_<action>`. */
export async function requireBindingAccess(services: Services, ctx: RequestContext, resource: BindingResource | undefined, action: BindingAction): Promise<void> {
  if (isAdmin(ctx)) return;
  await graphReady(services, ctx);
  const allowed =
    resource?.type === "workspace"
      ? services.authz.check(ctx.principalId, { resourceType: "rbac/workspace", resourceId: resource.id, permission: `role_binding_${action}` })
      : services.authz.check(ctx.principalId, { resourceType: "rbac/tenant", resourceId: ctx.tenant.tenantId, permission: `rbac_role_binding_${action}` });
  if (!allowed) throw forbidden();
}

/**
 * batchCreate's permission check, made before the body is validated (as insights-rbac's permission
 * class does): a caller who is not an organisation administrator needs `grant` on every resource the
 * body names, and a body whose resources cannot be read is refused (403) rather than explained.
 * Resource types and ids that are readable but invalid are left to validation (400).
 */
export async function requireBatchCreateAccess(services: Services, ctx: RequestContext, body: unknown): Promise<void> {
  if (isAdmin(ctx)) return;
  const requests = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { requests?: unknown }).requests : undefined;
  if (!Array.isArray(requests) || requests.length === 0) throw forbidden();
  const named = new Map<string, BindingResource>();
  for (const item of requests.slice(0, 1000)) {
    const resource = typeof item === "object" && item !== null ? (item as { resource?: unknown }).resource : undefined;
    if (typeof resource !== "object" || resource === null || Array.isArray(resource)) throw forbidden();
    const { id, type } = resource as { id?: unknown; type?: unknown };
    if (typeof id !== "string" || typeof type !== "string" || id === "" || type === "") throw forbidden();
    const kind = type.toLowerCase();
    if (kind === "workspace" && UUID_PATTERN.test(id)) named.set(`workspace:${id.toLowerCase()}`, { type: "workspace", id: id.toLowerCase() });
    else if (kind === "tenant") named.set(`tenant:${id}`, { type: "tenant", id });
  }
  for (const resource of named.values()) await requireBindingAccess(services, ctx, resource, "grant");
}

/**
 * A group or principal subject of the caller's tenant (explain's subjects); another tenant's id
 * reads exactly as a nonexistent one (404, same words).
 */
export async function requireSubject(services: Services, ctx: RequestContext, subject: BindingSubject, field: string): Promise<BindingSubject> {
  if (subject.type === "group") {
    if (!UUID_PATTERN.test(subject.id)) throw invalid(`'${echo(subject.id)}' is not a valid UUID.`, field);
    const id = subject.id.toLowerCase();
    await services.store.groups.get(ctx.tenant.orgId, id).catch(missingAs(() => notFound(`Group '${id}' not found.`, field)));
    return { type: "group", id };
  }
  await services.store.principals.get(ctx.tenant.orgId, subject.id).catch(missingAs(() => notFound(`User '${echo(subject.id)}' not found.`, field)));
  return subject;
}
