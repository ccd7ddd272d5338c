import { grantsUserAccessAboveRead } from "@gatehouse/rbac";
import { isStoreError, PLATFORM_ROLES, type Group, type Principal, type Written } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { invalid, missingAs, notFound } from "../domain/errors.js";
import { echo, UUID_PATTERN } from "../schemas/common.js";
import { principalsByIds } from "./principals.js";
import { isAdmin, requireOnTenant, settled, type Services } from "./services.js";
import { rolesOfGroupV1, type V1RoleRecord } from "./v1-roles.js";
import { audit } from "./audit-log.js";

export interface GroupRecord {
  uuid: string;
  name: string;
  description: string | null;
  /** Users only, as upstream's annotation (`Count("principals", filter=type USER)`): service accounts are not counted. */
  principalCount: number;
  roleCount: number;
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
  /** The e-mail the user's identity carried; absent when Gatehouse never saw one (the document says string). */
  email?: string;
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
  return { username: principal.username, ...(principal.email ? { email: principal.email } : {}), is_org_admin: principal.isOrgAdmin, external_source_id: principal.userId };
}

export async function groupDetail(services: Services, ctx: RequestContext, group: Group): Promise<GroupDetail> {
  const memberIds = await services.store.groups.members(ctx.tenant.orgId, group.id);
  const [record, roles] = await Promise.all([groupRecord(services, ctx, group, memberIds), rolesOfGroupV1(services, ctx, group.id)]);
  const principals = (await principalsByIds(services, ctx, memberIds)).map(v1GroupPrincipal).sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  return { ...record, principals, roles, roleCount: roles.length };
}

/** User ids of the organisation's service accounts: members a group's principalCount leaves out. */
export async function serviceAccountIds(services: Services, ctx: RequestContext): Promise<Set<string>> {
  return new Set((await services.store.principals.list(ctx.tenant.orgId, { type: "service-account", limit: -1 })).data.map((p) => p.userId));
}

export async function groupRecord(services: Services, ctx: RequestContext, group: Group, memberIds?: string[], accounts?: Set<string>): Promise<GroupRecord> {
  const [members, serviceAccounts, roleIds] = await Promise.all([
    memberIds ?? services.store.groups.members(ctx.tenant.orgId, group.id),
    accounts ?? serviceAccountIds(services, ctx),
    services.store.v1.rolesOfGroup(ctx.tenant.orgId, group.id),
  ]);
  return {
    uuid: group.id,
    name: group.name,
    description: group.description,
    principalCount: members.filter((id) => !serviceAccounts.has(id)).length,
    roleCount: roleIds.length,
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

export async function loadGroup(services: Services, ctx: RequestContext, id: string): Promise<Group> {
  // Upstream's validate_uuid(uuid, "group uuid validation"): the value as given, unquoted.
  if (!UUID_PATTERN.test(id)) throw invalid(`${echo(id)} is not a valid UUID.`, "group uuid validation");
  return services.store.groups.get(ctx.tenant.orgId, id.toLowerCase()).catch(missingAs(() => notFound()));
}

export async function getGroup(services: Services, ctx: RequestContext, id: string): Promise<GroupDetail> {
  await requireOnTenant(services, ctx, "rbac_groups_read");
  return groupDetail(services, ctx, await loadGroup(services, ctx, id));
}

/** Names upstream keeps for the default groups (`validate_group_name`), compared case-insensitively. */
const RESERVED_GROUP_NAMES = ["custom default access", "default access"];

export async function createGroup(services: Services, ctx: RequestContext, input: { name: string; description?: string | null | undefined }): Promise<Written<GroupRecord>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  if (RESERVED_GROUP_NAMES.includes(input.name.toLowerCase())) throw invalid(`${echo(input.name)} is reserved, please use another name.`, "Group name Validation");
  const written = await services.store.groups
    .create(ctx.tenant.orgId, { name: input.name, description: input.description ?? null }, (g) => audit.created(ctx, "group", g))
    .catch((error: unknown) => {
      if (isStoreError(error, "duplicate-name")) throw invalid(`A group with the name '${echo(input.name)}' exists for this tenant`, "group");
      throw error;
    });
  await settled(services, written);
  return { ...written, value: await groupRecord(services, ctx, written.value) };
}

export async function deleteGroup(services: Services, ctx: RequestContext, id: string): Promise<Written<{ id: string }>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, id);
  // As upstream: a system group is refused; a customised default access ("Custom default access",
  // no longer a system group) is deleted, which gives the organisation its default access back.
  if (group.kind === "admin-default" || (group.kind === "platform-default" && !(await isCustomisedDefaultGroup(services, ctx, group))))
    throw invalid("DELETE cannot be performed on system groups.", "group");
  await protectUserAccessAdminGroup(services, ctx, group, "remove_group");
  if (group.kind === "platform-default") return settled(services, await services.store.v1Writes.restoreDefaultGroup(ctx.tenant.orgId, (g) => audit.deleted(ctx, "group", g)));
  return settled(services, await services.store.groups.delete(ctx.tenant.orgId, group.id, (g) => audit.deleted(ctx, "group", g)));
}

/** Members of default groups follow the principals; refused in upstream's words (a customised default group is no longer a system group). */
export async function protectDefaultGroup(services: Services, ctx: RequestContext, group: Group, action: string): Promise<void> {
  if (group.kind === "standard") return;
  const system = group.kind !== "platform-default" || !(await isCustomisedDefaultGroup(services, ctx, group));
  throw invalid(`${action.toUpperCase()} cannot be performed on ${system ? "system" : "platform_default"} groups.`, "group");
}

/**
 * Only an org admin may change the members of a group whose roles grant more than read on user
 * access itself (e.g. User Access administrator, `rbac:*:*`): anyone else holding
 * `rbac_groups_write` could otherwise make themselves or others administrators. Refused in
 * upstream's words, with its source key.
 */
export async function protectUserAccessAdminGroup(services: Services, ctx: RequestContext, group: Group, source: string): Promise<void> {
  if (isAdmin(ctx)) return;
  if (await grantUserAccessAboveRead(services, await services.store.v1.rolesOfGroup(ctx.tenant.orgId, group.id)))
    throw invalid("Non org admin users are not allowed to create, modify, or delete a group with higher than 'read' RBAC permission.", source);
}

/** Whether any of the roles grants more than read on user access itself (an `rbac` permission whose verb is not `read`). */
export async function grantUserAccessAboveRead(services: Services, roleIds: readonly string[]): Promise<boolean> {
  const access = await services.store.v1.accessOf([...roleIds]);
  return [...access.values()].some((entries) => entries.some((e) => grantsUserAccessAboveRead(e.permission)));
}
