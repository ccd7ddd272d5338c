import { isStoreError, PLATFORM_ROLES, type Group, type Principal, type Written } from "@gatehouse/store";
import type { RequestContext } from "../http/identity.js";
import { ApiError, badRequest, notFound } from "../http/problem.js";
import { UUID_PATTERN } from "../schemas/common.js";
import { listPrincipalsByIds, type PrincipalRecord } from "./principals.js";
import { requireOnTenant, settled, type Services } from "./services.js";
import { rolesOfGroupV1, type V1RoleRecord } from "./v1-roles.js";

export interface GroupRecord {
  uuid: string;
  name: string;
  description: string | null;
  principalCount: number;
  platform_default: boolean;
  admin_default: boolean;
  system: boolean;
  created: string;
  modified: string;
}

/**
 * A member as a group's v1 answer lists it. Upstream fills these from its user directory and,
 * when the directory does not answer, lists the username alone; Gatehouse has no directory, so
 * it lists what a principal's own requests told it: no e-mail, names or active flag.
 */
export interface V1GroupPrincipal {
  username: string;
  is_org_admin?: boolean;
  external_source_id?: string;
}

/** The group with its members and roles: upstream's answer to GET /groups/{uuid}/ and POST .../principals/. */
export interface GroupDetail extends GroupRecord {
  principals: V1GroupPrincipal[];
  roles: V1RoleRecord[];
  roleCount: number;
}

function v1GroupPrincipal(principal: Principal): V1GroupPrincipal {
  // A service account is not in a user directory: upstream has only its username too.
  if (principal.type !== "user") return { username: principal.username };
  return { username: principal.username, is_org_admin: principal.isOrgAdmin, external_source_id: principal.userId };
}

async function groupDetail(services: Services, ctx: RequestContext, group: Group): Promise<GroupDetail> {
  const memberIds = await services.store.groups.members(ctx.tenant.orgId, group.id);
  const [record, roles] = await Promise.all([groupRecord(services, ctx, group, memberIds), rolesOfGroupV1(services, ctx, group.id)]);
  const members = await Promise.all(memberIds.map((id) => services.store.principals.get(ctx.tenant.orgId, id).catch(() => null)));
  const principals = members
    .filter((p): p is Principal => p !== null)
    .map(v1GroupPrincipal)
    .sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  return { ...record, principals, roles, roleCount: roles.length };
}

async function groupRecord(services: Services, ctx: RequestContext, group: Group, memberIds?: string[]): Promise<GroupRecord> {
  const members = memberIds ?? (await services.store.groups.members(ctx.tenant.orgId, group.id));
  return {
    uuid: group.id,
    name: group.name,
    description: group.description,
    principalCount: members.length,
    platform_default: group.kind === "platform-default",
    admin_default: group.kind === "admin-default",
    // As upstream: a customised default group is no longer a system group.
    system: group.kind === "platform-default" ? !(await isCustomisedDefaultGroup(services, ctx, group)) : group.kind !== "standard",
    created: group.created.toISOString(),
    modified: group.modified.toISOString(),
  };
}

/** The platform-default group is customised once its roles are other than the three "Default access" parent roles. */
async function isCustomisedDefaultGroup(services: Services, ctx: RequestContext, group: Group): Promise<boolean> {
  const bindings = await services.store.roleBindings.list(ctx.tenant.orgId, { subject: { type: "group", id: group.id }, limit: -1 });
  const held = new Set(bindings.data.map((b) => b.roleId));
  const parents = PLATFORM_ROLES.filter((r) => r.audience === "user").map((r) => r.id);
  return held.size !== parents.length || parents.some((id) => !held.has(id));
}

async function loadGroup(services: Services, ctx: RequestContext, id: string): Promise<Group> {
  if (!UUID_PATTERN.test(id)) throw badRequest(`'${id}' is not a valid UUID.`, "uuid");
  return services.store.groups.get(ctx.tenant.orgId, id.toLowerCase()).catch((error: unknown) => {
    if (isStoreError(error, "not-found") || isStoreError(error, "cross-tenant")) throw notFound();
    throw error;
  });
}

export async function listGroups(services: Services, ctx: RequestContext, name: string | undefined, page: { limit: number; offset: number }) {
  await requireOnTenant(services, ctx, "rbac_groups_read");
  const result = await services.store.groups.list(ctx.tenant.orgId, { ...(name ? { name } : {}), limit: page.limit, offset: page.offset });
  return { count: result.count, data: await Promise.all(result.data.map((g) => groupRecord(services, ctx, g))) };
}

export async function getGroup(services: Services, ctx: RequestContext, id: string): Promise<GroupDetail> {
  await requireOnTenant(services, ctx, "rbac_groups_read");
  return groupDetail(services, ctx, await loadGroup(services, ctx, id));
}

export async function createGroup(services: Services, ctx: RequestContext, input: { name: string; description?: string | null | undefined }): Promise<Written<GroupRecord>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const written = await services.store.groups.create(ctx.tenant.orgId, { name: input.name, description: input.description ?? null }).catch((error: unknown) => {
    if (isStoreError(error, "duplicate-name")) throw badRequest(`A group with the name '${input.name}' already exists.`, "name");
    throw error;
  });
  await settled(services, written);
  return { ...written, value: await groupRecord(services, ctx, written.value) };
}

export async function deleteGroup(services: Services, ctx: RequestContext, id: string): Promise<Written<{ id: string }>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, id);
  if (group.kind !== "standard") throw badRequest("Default groups may not be deleted.");
  return settled(services, await services.store.groups.delete(ctx.tenant.orgId, group.id));
}

export async function groupPrincipals(services: Services, ctx: RequestContext, id: string): Promise<PrincipalRecord[]> {
  await requireOnTenant(services, ctx, "rbac_groups_read");
  const group = await loadGroup(services, ctx, id);
  return listPrincipalsByIds(services, ctx, await services.store.groups.members(ctx.tenant.orgId, group.id));
}

/** Principals named by username (case-insensitive) or user id; every one must exist. */
async function resolveUserIds(services: Services, ctx: RequestContext, refs: { username?: string | undefined; user_id?: string | undefined }[]): Promise<string[]> {
  const all = await services.store.principals.list(ctx.tenant.orgId, { limit: -1 });
  const byName = new Map(all.data.map((p) => [p.username.toLowerCase(), p.userId]));
  const byId = new Set(all.data.map((p) => p.userId));
  const ids: string[] = [];
  const missing: string[] = [];
  for (const ref of refs) {
    const id = ref.user_id !== undefined ? (byId.has(ref.user_id) ? ref.user_id : undefined) : byName.get((ref.username ?? "").toLowerCase());
    if (id === undefined) missing.push(ref.user_id ?? ref.username ?? "");
    else ids.push(id);
  }
  if (refs.some((r) => r.user_id === undefined && r.username === undefined)) throw badRequest("Each principal needs a username or user_id.", "principals");
  if (missing.length > 0) throw new ApiError(404, [{ message: `Unknown principals: ${missing.join(", ")}`, field: "principals" }]);
  return [...new Set(ids)];
}

/** Members of default groups follow the principals; refused in upstream's words (a customised default group is no longer a system group). */
async function protectDefaultGroup(services: Services, ctx: RequestContext, group: Group, action: string): Promise<void> {
  if (group.kind === "standard") return;
  const system = group.kind !== "platform-default" || !(await isCustomisedDefaultGroup(services, ctx, group));
  throw badRequest(`${action.toUpperCase()} cannot be performed on ${system ? "system" : "platform_default"} groups.`, "group");
}

export async function addGroupPrincipals(services: Services, ctx: RequestContext, id: string, refs: { username?: string | undefined; user_id?: string | undefined }[]): Promise<Written<GroupDetail>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, id);
  await protectDefaultGroup(services, ctx, group, "add principals");
  const userIds = await resolveUserIds(services, ctx, refs);
  const written = await settled(services, await services.store.groups.addMembers(ctx.tenant.orgId, group.id, userIds));
  return { ...written, value: await groupDetail(services, ctx, group) };
}

export async function removeGroupPrincipals(services: Services, ctx: RequestContext, id: string, usernames: string[]): Promise<Written<{ removed: string[] }>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, id);
  await protectDefaultGroup(services, ctx, group, "remove principals");
  const userIds = await resolveUserIds(
    services,
    ctx,
    usernames.map((username) => ({ username })),
  );
  return settled(services, await services.store.groups.removeMembers(ctx.tenant.orgId, group.id, userIds));
}
