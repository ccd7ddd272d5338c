import type { BindingResource, BindingSubject, Written } from "@gatehouse/store";
import { isStoreError } from "@gatehouse/store";
import type { RequestContext } from "../http/identity.js";
import { badRequest } from "../http/problem.js";
import { requireBindingAccess, requireSubject, resolveResource, type ResourceQuery } from "./binding-access.js";
import { BindingViews, toStoreSubjectType, type ResourceView, type RoleRef, type SubjectView } from "./binding-views.js";
import { settled, type Services } from "./services.js";

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
