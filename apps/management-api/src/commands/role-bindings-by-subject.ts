import type { BindingResource, BindingSubject, Written } from "@gatehouse/store";
import { isStoreError } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { invalid, missingAs } from "../domain/errors.js";
import { UUID_PATTERN } from "../schemas/common.js";
import { requireBindingAccess, resolveResource, type ResourceQuery } from "./binding-access.js";
import { userIdOfPrincipalUuid } from "./principal-ids.js";
import { missingRecord, platformChildren, requireAssignableRoles } from "./role-bindings.js";
import { parseBySubjectOrder, sortBySubject } from "./by-subject-order.js";
import { BindingViews, toStoreSubjectType, type ResourceView, type RoleRef, type SubjectView } from "./binding-views.js";
import { settled, type Services } from "./services.js";

export interface BySubjectRow {
  subject: SubjectView;
  roles: RoleRef[];
  resource: ResourceView;
  sources: ResourceView[];
  last_modified: string;
  /** Gatehouse extension: set when every grant listed for the subject expires; the latest of them. */
  expires_at?: string;
}

interface SubjectEntry {
  subject: BindingSubject;
  roleIds: Set<string>;
  sources: Map<string, BindingResource>;
  modified: Date;
  /** Whether any of the subject's grants here never expires; otherwise the latest expiry. */
  permanent: boolean;
  expiresAt?: Date;
}

export async function listBySubject(
  services: Services,
  ctx: RequestContext,
  input: ResourceQuery & { subject_type?: "group" | "user" | undefined; subject_id?: string | undefined; exclude_sources?: "none" | "indirect" | "direct" | undefined; order_by?: string | undefined },
  page: { limit: number; offset: number },
  details: { subject: boolean; resourceName: boolean },
): Promise<{ count: number; data: BySubjectRow[] }> {
  const resource = await resolveResource(services, ctx, input);
  if (!resource) throw invalid("resource_id is required (or use resource.tenant.org_id).", "resource_id");
  await requireBindingAccess(services, ctx, resource, "view");
  const order = parseBySubjectOrder(input.order_by, input.subject_type ?? "group");
  const exclude = input.exclude_sources ?? "none";
  const subjectType = toStoreSubjectType(input.subject_type ?? "group");
  // Users are named by principal UUID; an unknown one has no bindings.
  let subjectId = input.subject_id;
  if (subjectId !== undefined && subjectType === "principal") {
    const userId = await userIdOfPrincipalUuid(services, ctx, subjectId);
    if (userId === null) return { count: 0, data: [] };
    subjectId = userId;
  }
  // A v1 role's organisation-level part counts as the role bound there (the list shows which permissions).
  const all = await services.store.roleBindings.list(ctx.tenant.orgId, { resource, includeInherited: exclude !== "indirect", includeV1Parts: true, limit: -1 });
  const views = new BindingViews(services, ctx, details);
  const childrenOf = await platformChildren(services, ctx);
  const bySubject = new Map<string, SubjectEntry>();
  for (const item of all.data) {
    const direct = item.source.type === resource.type && item.source.id === resource.id;
    if (exclude === "direct" && direct) continue;
    // A platform (default parent) role is shown as its child roles, as insights-rbac does.
    const roleIds = (await views.role(item.roleId))?.kind === "platform" ? (childrenOf.get(item.roleId) ?? []) : [item.roleId];
    for (const subject of item.subjects) {
      if (subject.type !== subjectType) continue;
      if (subjectId !== undefined && subject.id !== subjectId.toLowerCase() && subject.id !== subjectId) continue;
      const key = subject.id;
      const entry: SubjectEntry = bySubject.get(key) ?? { subject, roleIds: new Set(), sources: new Map(), modified: item.modified, permanent: false };
      for (const id of roleIds) entry.roleIds.add(id);
      entry.sources.set(`${item.source.type}:${item.source.id}`, item.source);
      if (item.modified > entry.modified) entry.modified = item.modified;
      if (!subject.expiresAt) entry.permanent = true;
      else if (!entry.expiresAt || subject.expiresAt > entry.expiresAt) entry.expiresAt = subject.expiresAt;
      bySubject.set(key, entry);
    }
  }
  const byModified = [...bySubject.values()].sort((a, b) => b.modified.getTime() - a.modified.getTime() || a.subject.id.localeCompare(b.subject.id));
  const entries = await sortBySubject(services, ctx, byModified, order);
  const end = page.limit === -1 ? undefined : page.offset + page.limit;
  const data = await Promise.all(
    entries.slice(page.offset, end).map(async (entry) => ({
      subject: await views.subject(entry.subject),
      roles: await Promise.all([...entry.roleIds].map((id) => views.roleRef(id))),
      resource: await views.resource(resource),
      sources: await Promise.all([...entry.sources.values()].map((source) => views.resource(source))),
      last_modified: entry.modified.toISOString(),
      ...(!entry.permanent && entry.expiresAt ? { expires_at: entry.expiresAt.toISOString() } : {}),
    })),
  );
  return { count: entries.length, data };
}

export async function replaceBySubject(
  services: Services,
  ctx: RequestContext,
  input: ResourceQuery & { subject_type: "group" | "user"; subject_id: string },
  roleIds: string[],
  expiresAt?: Date,
): Promise<Written<{ subject: SubjectView; roles: RoleRef[]; resource: ResourceView; expires_at?: string }>> {
  const resource = await resolveResource(services, ctx, input);
  if (!resource) throw invalid("resource_id is required (or use resource.tenant.org_id).", "resource_id");
  await requireBindingAccess(services, ctx, resource, "grant");
  await requireBindingAccess(services, ctx, resource, "revoke");
  const views = new BindingViews(services, ctx, { subject: false, resourceName: false });
  const unique = [...new Set(roleIds)];
  await requireAssignableRoles(views, unique);
  const subject = await subjectOf(services, ctx, input.subject_type, input.subject_id);
  const written = await services.store.roleBindings.replaceRolesOfSubject(ctx.tenant.orgId, resource, subject, unique, expiresAt ? { expiresAt } : {}).catch((error: unknown) => {
    if (isStoreError(error, "not-assignable") || isStoreError(error, "immutable")) throw invalid(`Invalid field 'roles': ${error.message}`, "roles");
    throw error;
  });
  await settled(services, written);
  return {
    ...written,
    value: {
      subject: await views.subject(subject),
      roles: await Promise.all(written.value.roleIds.map((id) => views.roleRef(id))),
      resource: await views.resource(resource),
      ...(expiresAt && unique.length > 0 ? { expires_at: expiresAt.toISOString() } : {}),
    },
  };
}

/** The store subject a by-subject PUT names: a group UUID or a principal UUID; 404 otherwise. */
async function subjectOf(services: Services, ctx: RequestContext, type: "group" | "user", id: string): Promise<BindingSubject> {
  if (type === "user") {
    const userId = await userIdOfPrincipalUuid(services, ctx, id);
    if (userId === null) throw missingRecord("user", [id]);
    return { type: "principal", id: userId };
  }
  if (!UUID_PATTERN.test(id)) throw missingRecord("group", [id]);
  const groupId = id.toLowerCase();
  await services.store.groups.get(ctx.tenant.orgId, groupId).catch(missingAs(() => missingRecord("group", [id])));
  return { type: "group", id: groupId };
}
