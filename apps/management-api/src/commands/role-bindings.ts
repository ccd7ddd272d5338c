import {
  isStoreError,
  type BindingResource,
  type RoleBindingGrant,
  type RoleBindingListItem,
  type RoleBindingListQuery,
  type Written,
} from "@gatehouse/store";
import type { RequestContext } from "../http/identity.js";
import { ApiError, badRequest } from "../http/problem.js";
import { UUID_PATTERN } from "../schemas/common.js";
import { checkResource, requireBindingAccess, resolveResource, type ResourceQuery } from "./binding-access.js";
import { BindingViews, toStoreSubjectType, type ResourceView, type RoleRef, type SubjectView } from "./binding-views.js";
import { settled, type Services } from "./services.js";

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
