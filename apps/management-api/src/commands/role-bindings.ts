import {
  isStoreError,
  type BindingResource,
  type BindingSubject,
  type RoleBindingGrant,
  type RoleBindingListItem,
  type RoleBindingListQuery,
  type Written,
} from "@gatehouse/store";
import type { RequestContext } from "../http/identity.js";
import { ApiError, badRequest, forbidden, notFound, workspaceNotFound } from "../http/problem.js";
import { UUID_PATTERN } from "../schemas/common.js";
import { BindingViews, toStoreSubjectType, type ResourceView, type RoleRef, type SubjectView } from "./binding-views.js";
import { graphReady, isAdmin, settled, type Services } from "./services.js";

export interface ResourceQuery {
  resource_type?: "workspace" | "tenant" | undefined;
  resource_id?: string | undefined;
  "resource.tenant.org_id"?: string | undefined;
}

/** The resource a query names (validated to exist in the caller's tenant), if any. */
export async function resolveResource(services: Services, ctx: RequestContext, query: ResourceQuery, field = "resource_id"): Promise<BindingResource | undefined> {
  const orgShorthand = query["resource.tenant.org_id"];
  if (orgShorthand !== undefined) {
    if (query.resource_id !== undefined) throw badRequest("Use either resource_id or resource.tenant.org_id.", "resource.tenant.org_id");
    if (query.resource_type !== undefined && query.resource_type !== "tenant") {
      throw badRequest("resource_type must be 'tenant' with resource.tenant.org_id.", "resource_type");
    }
    if (orgShorthand !== ctx.tenant.orgId) throw notFound();
    return { type: "tenant", id: ctx.tenant.tenantId };
  }
  if (query.resource_type === undefined && query.resource_id === undefined) return undefined;
  if (query.resource_type === undefined) throw badRequest("resource_type is required with resource_id.", "resource_type");
  if (query.resource_id === undefined) throw badRequest("resource_id is required with resource_type.", field);
  return checkResource(services, ctx, { type: query.resource_type, id: query.resource_id }, field);
}

export async function checkResource(services: Services, ctx: RequestContext, resource: BindingResource, field: string): Promise<BindingResource> {
  if (resource.type === "tenant") {
    if (resource.id !== ctx.tenant.tenantId) throw notFound();
    return resource;
  }
  if (!UUID_PATTERN.test(resource.id)) throw badRequest(`'${resource.id}' is not a valid UUID.`, field);
  const id = resource.id.toLowerCase();
  await services.store.workspaces.get(ctx.tenant.orgId, id).catch((error: unknown) => {
    if (isStoreError(error, "not-found") || isStoreError(error, "cross-tenant")) throw workspaceNotFound();
    throw error;
  });
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

async function requireSubject(services: Services, ctx: RequestContext, subject: BindingSubject, field: string): Promise<BindingSubject> {
  if (subject.type === "group") {
    if (!UUID_PATTERN.test(subject.id)) throw badRequest(`'${subject.id}' is not a valid UUID.`, field);
    const id = subject.id.toLowerCase();
    await services.store.groups.get(ctx.tenant.orgId, id).catch((error: unknown) => {
      if (isStoreError(error, "not-found") || isStoreError(error, "cross-tenant")) throw new ApiError(404, [{ message: `Group '${id}' not found.`, field }]);
      throw error;
    });
    return { type: "group", id };
  }
  await services.store.principals.get(ctx.tenant.orgId, subject.id).catch((error: unknown) => {
    if (isStoreError(error, "not-found") || isStoreError(error, "cross-tenant")) throw new ApiError(404, [{ message: `User '${subject.id}' not found.`, field }]);
    throw error;
  });
  return subject;
}

export interface BindingRow {
  role: RoleRef;
  subject: SubjectView;
  resource: ResourceView;
  sources: ResourceView[];
}

export interface BindingListInput extends ResourceQuery {
  role_id?: string | undefined;
  subject_type?: "group" | "user" | undefined;
  subject_id?: string | undefined;
  granted_subject_type?: "user" | "group" | "principal" | undefined;
  granted_subject_id?: string | undefined;
  "granted_subject.principal.user_id"?: string | undefined;
  exclude_sources?: "none" | "indirect" | "direct" | undefined;
  order_by?: string | undefined;
}

function subjectFilters(input: BindingListInput): Pick<RoleBindingListQuery, "subject" | "grantedToPrincipal"> {
  const granted = input.granted_subject_type !== undefined || input.granted_subject_id !== undefined || input["granted_subject.principal.user_id"] !== undefined;
  const direct = input.subject_type !== undefined || input.subject_id !== undefined;
  if (granted && direct) throw badRequest("granted_subject filters cannot be combined with subject filters.", "granted_subject_type");
  if (direct) {
    if (input.subject_type === undefined || input.subject_id === undefined) throw badRequest("subject_type and subject_id must be given together.", "subject_id");
    return { subject: { type: toStoreSubjectType(input.subject_type), id: input.subject_type === "group" ? input.subject_id.toLowerCase() : input.subject_id } };
  }
  if (!granted) return {};
  const id = input["granted_subject.principal.user_id"] ?? input.granted_subject_id;
  if (input.granted_subject_type === undefined || id === undefined) throw badRequest("granted_subject_type and granted_subject_id must be given together.", "granted_subject_id");
  if (input.granted_subject_type === "group") return { subject: { type: "group", id: id.toLowerCase() } };
  return { grantedToPrincipal: id };
}

async function toRows(views: BindingViews, item: RoleBindingListItem, queried: BindingResource | undefined, childrenOf: Map<string, string[]>): Promise<BindingRow[]> {
  const first = item.subjects.find((s) => s.type === "group") ?? item.subjects[0] ?? { type: "group" as const, id: "" };
  const role = await views.role(item.roleId);
  // A binding of a platform (aggregate) role is shown as one row per child role it carries.
  const roleIds = role?.kind === "platform" ? (childrenOf.get(item.roleId) ?? []) : [item.roleId];
  const subject = await views.subject(first);
  const resource = await views.resource(queried ?? item.resource);
  const sources = [await views.resource(item.source)];
  return Promise.all(roleIds.map(async (id) => ({ role: await views.roleRef(id), subject, resource, sources })));
}

/** Platform role id → child role ids, from the `t_child` tuples. */
async function platformChildren(services: Services, ctx: RequestContext): Promise<Map<string, string[]>> {
  const tuples = await services.store.relationships.read(ctx.tenant.orgId, { resourceType: "rbac/role", relation: "t_child", includePublic: true });
  const children = new Map<string, string[]>();
  for (const tuple of tuples) children.set(tuple.resourceId, [...(children.get(tuple.resourceId) ?? []), tuple.subjectId]);
  return children;
}

function sortRows(rows: BindingRow[], orderBy: string): BindingRow[] {
  const descending = orderBy.startsWith("-");
  const [group, field] = orderBy.replace(/^-/, "").split(".") as ["role" | "resource", string];
  const key = (row: BindingRow) => String((row[group] as unknown as Record<string, unknown>)[field] ?? "");
  return [...rows].sort((a, b) => (descending ? -1 : 1) * key(a).localeCompare(key(b)));
}

export async function listRoleBindings(
  services: Services,
  ctx: RequestContext,
  input: BindingListInput,
  page: { limit: number; offset: number },
  details: { subject: boolean; resourceName: boolean },
): Promise<{ count: number; data: BindingRow[] }> {
  const resource = await resolveResource(services, ctx, input);
  await requireBindingAccess(services, ctx, resource, "view");
  const exclude = input.exclude_sources ?? "none";
  const query: RoleBindingListQuery = {
    ...subjectFilters(input),
    ...(resource ? { resource, includeInherited: exclude !== "indirect" } : {}),
  };
  const views = new BindingViews(services, ctx, details);
  // Platform-role expansion, inherited-only filtering and ordering need the whole result, so the
  // page is cut here rather than in SQL.
  const all = await services.store.roleBindings.list(ctx.tenant.orgId, { ...query, limit: -1 });
  let items = all.data;
  if (resource && exclude === "direct") items = items.filter((item) => item.source.type !== resource.type || item.source.id !== resource.id);
  const childrenOf = await platformChildren(services, ctx);
  let rows = (await Promise.all(items.map((item) => toRows(views, item, resource, childrenOf)))).flat();
  if (input.role_id) rows = rows.filter((row) => row.role.id === input.role_id);
  if (input.order_by) rows = sortRows(rows, input.order_by);
  const end = page.limit === -1 ? undefined : page.offset + page.limit;
  return { count: rows.length, data: rows.slice(page.offset, end) };
}

export interface GrantRequest {
  resource: { id: string; type: "workspace" | "tenant" };
  subject: { id: string; type: "group" | "user" };
  role: { id: string };
}

export async function batchCreateRoleBindings(
  services: Services,
  ctx: RequestContext,
  requests: GrantRequest[],
): Promise<Written<{ role: RoleRef; subject: SubjectView; resource: ResourceView }[]>> {
  const grants: RoleBindingGrant[] = [];
  const views = new BindingViews(services, ctx, { subject: false, resourceName: false });
  // Each distinct resource is checked (404) and authorized (403) once, before anything is written;
  // subjects and roles are validated by the store inside the all-or-nothing transaction.
  const resources = new Map<string, Promise<BindingResource>>();
  for (const [i, request] of requests.entries()) {
    const key = `${request.resource.type}:${request.resource.id.toLowerCase()}`;
    let resource = resources.get(key);
    if (!resource) {
      resource = checkResource(services, ctx, request.resource, `requests.${i}.resource.id`);
      resources.set(key, resource);
    }
    const subjectId = request.subject.id;
    if (request.subject.type === "group" && !UUID_PATTERN.test(subjectId)) throw badRequest(`'${subjectId}' is not a valid UUID.`, `requests.${i}.subject.id`);
    grants.push({
      resource: await resource,
      subject: { type: toStoreSubjectType(request.subject.type), id: request.subject.type === "group" ? subjectId.toLowerCase() : subjectId },
      roleId: request.role.id,
    });
  }
  for (const resource of resources.values()) await requireBindingAccess(services, ctx, await resource, "grant");
  const written = await services.store.roleBindings.batchCreate(ctx.tenant.orgId, grants).catch((error: unknown) => {
    if (isStoreError(error, "not-assignable")) throw badRequest(error.message, "requests");
    if (isStoreError(error, "not-found") || isStoreError(error, "cross-tenant")) throw new ApiError(404, [{ message: error.message, field: `requests.${error.field ?? "detail"}` }]);
    throw error;
  });
  await settled(services, written);
  const value = await Promise.all(
    grants.map(async (grant) => ({
      role: await views.roleRef(grant.roleId),
      subject: await views.subject(grant.subject),
      resource: await views.resource(grant.resource),
    })),
  );
  return { ...written, value };
}

export interface BySubjectRow {
  subject: SubjectView;
  roles: RoleRef[];
  resource: ResourceView;
  sources: ResourceView[];
  last_modified: string;
}

export async function listBySubject(
  services: Services,
  ctx: RequestContext,
  input: ResourceQuery & { subject_type?: "group" | "user" | undefined; subject_id?: string | undefined; exclude_sources?: "none" | "indirect" | "direct" | undefined },
  page: { limit: number; offset: number },
  details: { subject: boolean; resourceName: boolean },
): Promise<{ count: number; data: BySubjectRow[] }> {
  const resource = await resolveResource(services, ctx, input);
  if (!resource) throw badRequest("resource_type and resource_id (or resource.tenant.org_id) are required.", "resource_id");
  await requireBindingAccess(services, ctx, resource, "view");
  const exclude = input.exclude_sources ?? "none";
  const subjectType = toStoreSubjectType(input.subject_type ?? "group");
  const all = await services.store.roleBindings.list(ctx.tenant.orgId, { resource, includeInherited: exclude !== "indirect", limit: -1 });
  const views = new BindingViews(services, ctx, details);
  const bySubject = new Map<string, { subject: BindingSubject; roleIds: Set<string>; sources: Map<string, BindingResource>; modified: Date }>();
  for (const item of all.data) {
    const direct = item.source.type === resource.type && item.source.id === resource.id;
    if (exclude === "direct" && direct) continue;
    for (const subject of item.subjects) {
      if (subject.type !== subjectType) continue;
      if (input.subject_id !== undefined && subject.id !== input.subject_id.toLowerCase() && subject.id !== input.subject_id) continue;
      const key = subject.id;
      const entry = bySubject.get(key) ?? { subject, roleIds: new Set(), sources: new Map(), modified: item.modified };
      entry.roleIds.add(item.roleId);
      entry.sources.set(`${item.source.type}:${item.source.id}`, item.source);
      if (item.modified > entry.modified) entry.modified = item.modified;
      bySubject.set(key, entry);
    }
  }
  const entries = [...bySubject.values()].sort((a, b) => b.modified.getTime() - a.modified.getTime() || a.subject.id.localeCompare(b.subject.id));
  const end = page.limit === -1 ? undefined : page.offset + page.limit;
  const data = await Promise.all(
    entries.slice(page.offset, end).map(async (entry) => ({
      subject: await views.subject(entry.subject),
      roles: await Promise.all([...entry.roleIds].map((id) => views.roleRef(id))),
      resource: await views.resource(resource),
      sources: await Promise.all([...entry.sources.values()].map((source) => views.resource(source))),
      last_modified: entry.modified.toISOString(),
    })),
  );
  return { count: entries.length, data };
}

export async function replaceBySubject(
  services: Services,
  ctx: RequestContext,
  input: ResourceQuery & { subject_type: "group" | "user"; subject_id: string },
  roleIds: string[],
): Promise<Written<{ subject: SubjectView; roles: RoleRef[]; resource: ResourceView }>> {
  const resource = await resolveResource(services, ctx, input);
  if (!resource) throw badRequest("resource_type and resource_id (or resource.tenant.org_id) are required.", "resource_id");
  await requireBindingAccess(services, ctx, resource, "grant");
  await requireBindingAccess(services, ctx, resource, "revoke");
  const subject = await requireSubject(services, ctx, { type: toStoreSubjectType(input.subject_type), id: input.subject_id }, "subject_id");
  const views = new BindingViews(services, ctx, { subject: false, resourceName: false });
  const unique = [...new Set(roleIds)];
  const missing: string[] = [];
  for (const id of unique) {
    const role = await views.role(id);
    if (!role || role.kind === "platform") missing.push(id);
  }
  if (missing.length > 0) throw badRequest(`The following roles do not exist: ${missing.join(", ")}`, "roles");
  const written = await services.store.roleBindings.replaceRolesOfSubject(ctx.tenant.orgId, resource, subject, unique).catch((error: unknown) => {
    if (isStoreError(error, "not-assignable") || isStoreError(error, "immutable")) throw badRequest(error.message, "roles");
    throw error;
  });
  await settled(services, written);
  return {
    ...written,
    value: {
      subject: await views.subject(subject),
      roles: await Promise.all(written.value.roleIds.map((id) => views.roleRef(id))),
      resource: await views.resource(resource),
    },
  };
}
