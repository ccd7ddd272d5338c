import { isStoreError, type BindingResource, type BindingSubject, type RoleBindingGrant, type RoleBindingListItem, type RoleBindingListQuery, type Written } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { invalid, isDomainError, isMissing, notFound } from "../domain/errors.js";
import { UUID_PATTERN } from "../schemas/common.js";
import { requireBindingAccess, resolveResource, type ResourceQuery } from "./binding-access.js";
import { userIdOfPrincipalUuid, userIdOfUuidOrUserId } from "./principal-ids.js";
import { BindingViews, type ResourceView, type RoleRef, type SubjectView } from "./binding-views.js";
import { parseOrderKeys, type OrderKey } from "./by-subject-order.js";
import { settled, type Services } from "./services.js";

export interface BindingRow {
  role: RoleRef;
  subject: SubjectView;
  resource: ResourceView;
  sources: ResourceView[];
  /** Gatehouse extension: when the shown subject's grant expires (absent: never). */
  expires_at?: string;
  /**
   * Gatehouse extension: the binding grants only these permissions of the role (the
   * organisation-level part of a v1 role whose other permissions are limited to workspaces).
   */
  permissions?: string[];
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

type SubjectFilters = Pick<RoleBindingListQuery, "subject" | "grantedToPrincipal">;

/** Store filters for the subject parameters; null when they name a user that does not exist (no rows). */
async function subjectFilters(services: Services, ctx: RequestContext, input: BindingListInput): Promise<SubjectFilters | null> {
  const granted = input.granted_subject_type !== undefined || input.granted_subject_id !== undefined || input["granted_subject.principal.user_id"] !== undefined;
  const direct = input.subject_type !== undefined || input.subject_id !== undefined;
  if (granted && direct) throw invalid("granted_subject_type/granted_subject_id cannot be combined with subject_type/subject_id.", "non_field_errors");
  if (direct) {
    if (input.subject_type === undefined || input.subject_id === undefined) throw invalid("subject_type and subject_id must be given together.", "subject_id");
    if (!UUID_PATTERN.test(input.subject_id)) throw invalid("Enter a valid UUID.", "subject_id");
    if (input.subject_type === "group") return { subject: { type: "group", id: input.subject_id.toLowerCase() } };
    const userId = await userIdOfPrincipalUuid(services, ctx, input.subject_id);
    return userId === null ? null : { subject: { type: "principal", id: userId } };
  }
  if (!granted) return {};
  const principalUserId = input["granted_subject.principal.user_id"];
  if (principalUserId !== undefined && input.granted_subject_type !== "principal") {
    throw invalid("granted_subject_type must be 'principal' when granted_subject.principal.user_id is provided.", "non_field_errors");
  }
  if (input.granted_subject_type === undefined) throw invalid("Both granted_subject_type and granted_subject_id must be provided together.", "non_field_errors");
  if (input.granted_subject_type === "principal") {
    if (principalUserId === undefined) throw invalid("granted_subject.principal.user_id is required when granted_subject_type is 'principal'.", "non_field_errors");
    return { grantedToPrincipal: principalUserId };
  }
  const id = input.granted_subject_id;
  if (id === undefined) throw invalid("granted_subject_id is required when granted_subject_type is 'user' or 'group'.", "non_field_errors");
  if (input.granted_subject_type === "group") return { subject: { type: "group", id: id.toLowerCase() } };
  // A user: by principal UUID or by user id.
  const userId = await userIdOfUuidOrUserId(services, ctx, id);
  return userId === null ? null : { grantedToPrincipal: userId };
}

async function toRows(
  views: BindingViews,
  item: RoleBindingListItem,
  queried: BindingResource | undefined,
  childrenOf: Map<string, string[]>,
  filtered: BindingSubject | undefined,
): Promise<BindingRow[]> {
  // The subject a filter named; otherwise the binding's first group, then its first user.
  const named = filtered && item.subjects.find((s) => s.type === filtered.type && s.id === filtered.id);
  const first = named || (item.subjects.find((s) => s.type === "group") ?? item.subjects[0] ?? { type: "group" as const, id: "" });
  const role = await views.role(item.roleId);
  // A binding of a platform (aggregate) role is shown as one row per child role it carries.
  const roleIds = role?.kind === "platform" ? (childrenOf.get(item.roleId) ?? []) : [item.roleId];
  const subject = await views.subject(first);
  const resource = await views.resource(queried ?? item.resource);
  const sources = [await views.resource(item.source)];
  const expiry = "expiresAt" in first && first.expiresAt ? { expires_at: first.expiresAt.toISOString() } : {};
  const part = item.permissions ? { permissions: item.permissions } : {};
  return Promise.all(roleIds.map(async (id) => ({ role: await views.roleRef(id), subject, resource, sources, ...expiry, ...part })));
}

/** Platform role id → child role ids, from the `t_child` tuples. */
export async function platformChildren(services: Services, ctx: RequestContext): Promise<Map<string, string[]>> {
  const tuples = await services.store.relationships.read(ctx.tenant.orgId, { resourceType: "rbac/role", relation: "t_child", includePublic: true });
  const children = new Map<string, string[]>();
  for (const tuple of tuples) children.set(tuple.resourceId, [...(children.get(tuple.resourceId) ?? []), tuple.subjectId]);
  return children;
}

/** The list's `order_by` fields, as insights-rbac names them. */
const LIST_ORDER_FIELDS = ["role.id", "role.name", "role.created", "role.modified", "resource.id", "resource.type"];

function sortRows(rows: BindingRow[], keys: OrderKey[]): BindingRow[] {
  const value = (row: BindingRow, field: string) => {
    const [group, name] = field.split(".") as ["role" | "resource", string];
    return String((row[group] as unknown as Record<string, unknown>)[name] ?? "");
  };
  return [...rows].sort((a, b) => {
    for (const { field, desc } of keys) {
      const order = value(a, field).localeCompare(value(b, field));
      if (order !== 0) return desc ? -order : order;
    }
    return 0;
  });
}

export async function listRoleBindings(
  services: Services,
  ctx: RequestContext,
  input: BindingListInput,
  page: { limit: number; offset: number },
  details: { subject: boolean; resourceName: boolean },
): Promise<{ count: number; data: BindingRow[] }> {
  // insights-rbac's default order is the (effective) role's creation, oldest first.
  const order = parseOrderKeys(input.order_by, LIST_ORDER_FIELDS);
  // With exclude_sources=indirect a resource_id alone is a filter, as upstream allows: a UUID names a workspace, anything else the tenant.
  if (input.resource_id !== undefined && input.resource_type === undefined && input["resource.tenant.org_id"] === undefined && input.exclude_sources === "indirect") {
    input = { ...input, resource_type: UUID_PATTERN.test(input.resource_id) ? "workspace" : "tenant" };
  }
  let resource: BindingResource | undefined;
  try {
    resource = await resolveResource(services, ctx, input);
  } catch (error) {
    // A workspace filter that names no workspace of the caller's matches nothing (insights-rbac answers an empty list).
    if (isDomainError(error, "not-found") && input.resource_type === "workspace") return { count: 0, data: [] };
    throw error;
  }
  await requireBindingAccess(services, ctx, resource, "view");
  const exclude = input.exclude_sources ?? "none";
  const subjects = await subjectFilters(services, ctx, input);
  if (subjects === null) return { count: 0, data: [] };
  const query: RoleBindingListQuery = {
    ...subjects,
    ...(resource ? { resource, includeInherited: exclude !== "indirect" } : {}),
  };
  const views = new BindingViews(services, ctx, details);
  // Platform-role expansion, inherited-only filtering and ordering need the whole result, so the
  // page is cut here rather than in SQL.
  // A v1 role's organisation-level part is listed as a binding of the role carrying `permissions`.
  const all = await services.store.roleBindings.list(ctx.tenant.orgId, { ...query, includeV1Parts: true, limit: -1 });
  let items = all.data;
  if (resource && exclude === "direct") items = items.filter((item) => item.source.type !== resource.type || item.source.id !== resource.id);
  const childrenOf = await platformChildren(services, ctx);
  let rows = (await Promise.all(items.map((item) => toRows(views, item, resource, childrenOf, subjects.subject)))).flat();
  if (input.role_id) rows = rows.filter((row) => row.role.id === input.role_id);
  rows = sortRows(rows, order.length > 0 ? order : [{ field: "role.created", desc: false }]);
  const end = page.limit === -1 ? undefined : page.offset + page.limit;
  return { count: rows.length, data: rows.slice(page.offset, end) };
}

export interface GrantRequest {
  resource: { id: string; type: "workspace" | "tenant" };
  subject: { id: string; type: "group" | "user" };
  role: { id: string };
  /** Gatehouse extension: a time-bound grant. */
  expires_at?: Date | undefined;
}

/** insights-rbac's 404 text for a record a request names (`workspace with id 'x' not found`). */
export const missingRecord = (type: string, ids: string[]) => notFound(`${type} with id '${ids.join(", ")}' not found`);

/** insights-rbac's 400 for roles that do not exist or may not be granted (platform roles). */
export async function requireAssignableRoles(views: BindingViews, roleIds: string[]): Promise<void> {
  const missing: string[] = [];
  for (const id of new Set(roleIds)) {
    const role = await views.role(id);
    if (!role || role.kind === "platform") missing.push(id);
  }
  if (missing.length > 0) throw invalid(`Invalid field 'roles': The following roles do not exist: ${missing.join(", ")}`, "roles");
}

/** Store subjects for wire subjects: groups by UUID, users by principal UUID; 404 for unknown ones. */
async function resolveSubjects(services: Services, ctx: RequestContext, requests: GrantRequest[]): Promise<Map<string, BindingSubject>> {
  const resolved = new Map<string, BindingSubject>();
  const missing = { group: [] as string[], user: [] as string[] };
  for (const { subject } of requests) {
    const key = `${subject.type}:${subject.id}`;
    if (resolved.has(key) || missing[subject.type].includes(subject.id)) continue;
    if (subject.type === "group") {
      const found = await services.store.groups.get(ctx.tenant.orgId, subject.id).then(
        () => true,
        (error: unknown) => {
          if (isMissing(error)) return false;
          throw error;
        },
      );
      if (found) resolved.set(key, { type: "group", id: subject.id });
      else missing.group.push(subject.id);
    } else {
      const userId = await userIdOfPrincipalUuid(services, ctx, subject.id);
      if (userId !== null) resolved.set(key, { type: "principal", id: userId });
      else missing.user.push(subject.id);
    }
  }
  if (missing.group.length > 0) throw missingRecord("group", missing.group);
  if (missing.user.length > 0) throw missingRecord("user", missing.user);
  return resolved;
}

/**
 * In insights-rbac's order: permission on every resource (403), roles (400), subjects (404),
 * resources (404); then one all-or-nothing write.
 */
export async function batchCreateRoleBindings(
  services: Services,
  ctx: RequestContext,
  requests: GrantRequest[],
  details: { subject: boolean; resourceName: boolean },
): Promise<Written<{ role: RoleRef; subject: SubjectView; resource: ResourceView; expires_at?: string }[]>> {
  const views = new BindingViews(services, ctx, details);
  const named = new Map<string, BindingResource>();
  for (const { resource } of requests) {
    const id = resource.type === "workspace" ? resource.id.toLowerCase() : resource.id;
    named.set(`${resource.type}:${id}`, { type: resource.type, id });
  }
  for (const resource of named.values()) await requireBindingAccess(services, ctx, resource, "grant");
  await requireAssignableRoles(
    views,
    requests.map((request) => request.role.id),
  );
  const subjects = await resolveSubjects(services, ctx, requests);
  const resources = new Map<string, BindingResource>();
  for (const [key, resource] of named) {
    const exists = resource.type === "tenant" ? resource.id === ctx.tenant.tenantId : await workspaceExists(services, ctx, resource.id);
    if (!exists) throw missingRecord(resource.type, [resource.id]);
    resources.set(key, resource);
  }
  const grants: RoleBindingGrant[] = requests.map((request) => {
    const id = request.resource.type === "workspace" ? request.resource.id.toLowerCase() : request.resource.id;
    return {
      resource: resources.get(`${request.resource.type}:${id}`)!,
      subject: subjects.get(`${request.subject.type}:${request.subject.id}`)!,
      roleId: request.role.id,
      ...(request.expires_at ? { expiresAt: request.expires_at } : {}),
    };
  });
  const written = await services.store.roleBindings.batchCreate(ctx.tenant.orgId, grants).catch((error: unknown) => {
    if (isStoreError(error, "not-assignable")) throw invalid(`Invalid field 'roles': ${error.message}`, "roles");
    // A role that vanished (or is another tenant's) after the checks above: the same words as one that never existed.
    if (isMissing(error) && isStoreError(error) && error.field?.endsWith("role.id")) {
      throw invalid(`Invalid field 'roles': ${error.message}`, "roles");
    }
    throw error;
  });
  await settled(services, written);
  const value = await Promise.all(
    grants.map(async (grant) => ({
      role: await views.roleRef(grant.roleId),
      subject: await views.subject(grant.subject),
      resource: await views.resource(grant.resource),
      ...(grant.expiresAt ? { expires_at: grant.expiresAt.toISOString() } : {}),
    })),
  );
  return { ...written, value };
}

async function workspaceExists(services: Services, ctx: RequestContext, id: string): Promise<boolean> {
  if (!UUID_PATTERN.test(id)) return false;
  return services.store.workspaces.get(ctx.tenant.orgId, id).then(
    () => true,
    (error: unknown) => {
      if (isMissing(error)) return false;
      throw error;
    },
  );
}
