import { grantsUserAccessAboveRead } from "@gatehouse/rbac";
import { isStoreError, PLATFORM_ROLES, type Group, type Principal, type Written } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { invalid, missingAs, notFound } from "../domain/errors.js";
import { echo, UUID_PATTERN } from "../schemas/common.js";
import type { GROUP_PRINCIPAL_TYPES, GroupPrincipalRef } from "../schemas/groups.js";
import { listPrincipalsByIds, type PrincipalRecord } from "./principals.js";
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

/**
 * A service account as upstream's group answers list it (`ServiceAccount`). Gatehouse has no
 * service-account directory, so `name`, `description`, `owner` and `time_created` are left out.
 */
export interface V1ServiceAccount {
  clientId: string;
  username: string;
  type: "service-account";
}

/** Upstream names a service account's principal `service-account-<clientId>`. */
const SERVICE_ACCOUNT_USERNAME = /^service-account-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * The client id of a service-account principal. Gatehouse keys a service account by the user id
 * its identity carried, which is the client id when the identity has no `user_id`; otherwise the
 * client id is the one in upstream's username form.
 */
export function clientIdOf(principal: Principal): string {
  return SERVICE_ACCOUNT_USERNAME.exec(principal.username)?.[1] ?? principal.userId.toLowerCase();
}

export const v1ServiceAccount = (p: Principal): V1ServiceAccount => ({ clientId: clientIdOf(p), username: p.username, type: "service-account" });

/** The list options of `GET /groups/{uuid}/principals/` besides paging (upstream's query parameters, unparsed). */
export interface GroupPrincipalsQuery {
  principalType?: string | undefined;
  usernameOnly?: string | undefined;
  adminOnly?: string | undefined;
  principalUsername?: string | undefined;
  orderBy?: string | undefined;
}

/**
 * A group's members as upstream's `GET /groups/{uuid}/principals/` answers them: users unless
 * `principal_type` says `service-account` or `all` (service accounts first, then users, paged as one
 * list). Users: `principal_username` (a case-insensitive substring), `admin_only`, `order_by`
 * (username, -username) and `username_only` (each user as its username alone).
 */
export async function groupPrincipals(
  services: Services,
  ctx: RequestContext,
  id: string,
  query: GroupPrincipalsQuery,
  page: { limit: number; offset: number },
): Promise<{
  count: number;
  data:
    | (PrincipalRecord | { username: string })[]
    | (V1ServiceAccount | { username: string })[]
    | { serviceAccounts?: (V1ServiceAccount | { username: string })[]; users?: (PrincipalRecord | { username: string })[] };
}> {
  await requireOnTenant(services, ctx, "rbac_groups_read");
  // The values were checked at the edge (schemas/groups.ts); upstream compares them lower-cased.
  const orderBy = query.orderBy ? query.orderBy.toLowerCase() : undefined;
  const usernameOnly = query.usernameOnly?.toLowerCase() === "true";
  const wanted = (query.principalType?.toLowerCase() || "user") as (typeof GROUP_PRINCIPAL_TYPES)[number];
  const adminOnly = wanted !== "service-account" && query.adminOnly?.toLowerCase() === "true";
  const group = await loadGroup(services, ctx, id);
  const members = await principalsOf(services, ctx, await services.store.groups.members(ctx.tenant.orgId, group.id));
  const needle = query.principalUsername?.toLowerCase();
  let users = members.filter((p) => p.type === "user" && (!needle || p.username.toLowerCase().includes(needle)) && (!adminOnly || p.isOrgAdmin)).sort(byUsername);
  if (orderBy === "-username") users = users.reverse();
  // Service accounts, as upstream filters them: a `service-account-` prefixed name against the
  // username, anything else against the client id (both case-sensitive substrings).
  const saNeedle = query.principalUsername;
  const accounts = members
    .filter((p) => p.type === "service-account")
    .filter((p) => !saNeedle || (saNeedle.startsWith("service-account-") ? p.username.includes(saNeedle) : clientIdOf(p).includes(saNeedle)))
    .sort(byUsername);
  if (orderBy === "-username") accounts.reverse();
  const end = page.limit === -1 ? undefined : page.offset + page.limit;
  if (wanted === "service-account") return { count: accounts.length, data: accounts.slice(page.offset, end).map((p) => (usernameOnly ? { username: p.username } : v1ServiceAccount(p))) };
  // v1 lists a member's e-mail when its identity carried one (the v2 principal record has none).
  const emails = new Map(users.map((p) => [p.userId, p.email]));
  const withEmail = (r: PrincipalRecord): PrincipalRecord & { email?: string } => {
    const email = r.user_id === null ? null : emails.get(r.user_id);
    return email ? { ...r, email } : r;
  };
  const userRecords: (PrincipalRecord | { username: string })[] = usernameOnly
    ? users.map((p) => ({ username: p.username }))
    : (
        await listPrincipalsByIds(
          services,
          ctx,
          users.map((p) => p.userId),
        )
      ).map(withEmail);
  if (wanted === "user") return { count: userRecords.length, data: userRecords.slice(page.offset, end) };
  // One list, service accounts first: each kind shows its part of the page.
  const shownAccounts = accounts.slice(page.offset, end).map((p) => (usernameOnly ? { username: p.username } : v1ServiceAccount(p)));
  const before = accounts.length;
  const shownUsers = userRecords.slice(Math.max(page.offset - before, 0), end === undefined ? undefined : Math.max(end - before, 0));
  // As upstream, a kind with nothing on the page is left out.
  return {
    count: before + userRecords.length,
    data: { ...(shownAccounts.length > 0 ? { serviceAccounts: shownAccounts } : {}), ...(shownUsers.length > 0 ? { users: shownUsers } : {}) },
  };
}

/**
 * `GET /groups/{uuid}/principals/?service_account_client_ids=a,b`: for each client id named,
 * whether a service account of that id is a member (upstream's membership report). The
 * parameter stands alone (only `limit` and `offset` may come with it, and are ignored).
 */
export async function groupServiceAccountMembership(
  services: Services,
  ctx: RequestContext,
  id: string,
  raw: string,
  otherParams: string[],
): Promise<{ count: number; data: Record<string, boolean> }> {
  await requireOnTenant(services, ctx, "rbac_groups_read");
  const group = await loadGroup(services, ctx, id);
  if (otherParams.some((name) => name !== "limit" && name !== "offset"))
    throw invalid("The 'service_account_client_ids' parameter is incompatible with any other query parameter. Please, use it alone", "groups");
  const trimmed = raw.trim();
  if (trimmed === "") throw invalid("Not a single client ID was specified for the client IDs filter", "groups");
  const named = [...new Set(trimmed.split(","))];
  if (named.length > MAX_CLIENT_IDS) throw invalid(`At most ${MAX_CLIENT_IDS} client IDs may be checked at once.`, "groups");
  const malformed = named.find((c) => !UUID_PATTERN.test(c));
  if (malformed !== undefined) throw invalid(`The specified client ID '${echo(malformed)}' is not a valid UUID`, "groups");
  const members = await principalsOf(services, ctx, await services.store.groups.members(ctx.tenant.orgId, group.id));
  const inGroup = new Set(members.filter((p) => p.type === "service-account").map(clientIdOf));
  return { count: named.length, data: Object.fromEntries(named.map((c) => [c, inGroup.has(c.toLowerCase())])) };
}

/** Bound of one membership report (the query string is bounded too). */
const MAX_CLIENT_IDS = 1000;

const byUsername = (a: { username: string }, b: { username: string }) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0);

async function principalsOf(services: Services, ctx: RequestContext, userIds: string[]): Promise<Principal[]> {
  const found = await Promise.all(userIds.map((id) => services.store.principals.get(ctx.tenant.orgId, id).catch(() => null)));
  return found.filter((p): p is Principal => p !== null);
}

/** Python's repr of a set of strings, as upstream prints the ones it could not find. */
/** Names quoted in a not-found message: upstream's set notation, bounded (each name and how many). */
const SET_SHOWN = 10;
const pySet = (values: readonly string[]) => {
  const shown = values.slice(0, SET_SHOWN).map((value) => {
    const v = echo(value);
    return v.includes("'") ? JSON.stringify(v) : `'${v}'`;
  });
  const more = values.length > SET_SHOWN ? `, … (${values.length - SET_SHOWN} more)` : "";
  return `{${shown.join(", ")}${more}}`;
};

/**
 * Principals named by username (case-insensitive) or user id; every one must exist. Any principal
 * of the organisation, as before service accounts could be named by client id (upstream's
 * directory knows users only).
 */
async function resolveUserIds(services: Services, ctx: RequestContext, refs: { username?: string | undefined; userId?: string | undefined }[]): Promise<string[]> {
  if (refs.length === 0) return [];
  const all = await services.store.principals.list(ctx.tenant.orgId, { limit: -1 });
  const byName = new Map(all.data.map((p) => [p.username.toLowerCase(), p.userId]));
  const byId = new Set(all.data.map((p) => p.userId));
  const ids: string[] = [];
  const missing: string[] = [];
  for (const ref of refs) {
    const id = ref.userId !== undefined ? (byId.has(ref.userId) ? ref.userId : undefined) : byName.get((ref.username ?? "").toLowerCase());
    if (id === undefined) missing.push(ref.userId ?? ref.username ?? "");
    else ids.push(id);
  }
  if (missing.length > 0) throw notFound(`Unknown principals: ${missing.join(", ")}`, "principals");
  return ids;
}

/**
 * Service accounts named by client id. Upstream asks its service-account directory whether each
 * exists; Gatehouse has none, so (as for users, and as the v2 role bindings decide) a service
 * account exists once the organisation has it as a principal: recorded by its own authenticated
 * request or imported. Matched by the user id it is keyed by or upstream's username form.
 */
async function resolveServiceAccounts(services: Services, ctx: RequestContext, clientIds: string[]): Promise<string[]> {
  if (clientIds.length === 0) return [];
  const accounts = (await services.store.principals.list(ctx.tenant.orgId, { type: "service-account", limit: -1 })).data;
  const byClientId = new Map<string, string>();
  for (const p of accounts) {
    byClientId.set(p.userId.toLowerCase(), p.userId);
    byClientId.set(clientIdOf(p), p.userId);
  }
  const missing = [...new Set(clientIds.filter((c) => !byClientId.has(c)))];
  if (missing.length > 0) throw notFound(`Service account(s) ${pySet(missing)} not found.`, "groups");
  return clientIds.map((c) => byClientId.get(c)!);
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
  const roleIds = await services.store.v1.rolesOfGroup(ctx.tenant.orgId, group.id);
  const access = await services.store.v1.accessOf(roleIds);
  const escalating = [...access.values()].some((entries) => entries.some((e) => grantsUserAccessAboveRead(e.permission)));
  if (escalating) throw invalid("Non org admin users are not allowed to create, modify, or delete a group with higher than 'read' RBAC permission.", source);
}

export async function addGroupPrincipals(services: Services, ctx: RequestContext, id: string, refs: GroupPrincipalRef[]): Promise<Written<GroupDetail>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, id);
  await protectDefaultGroup(services, ctx, group, "add principals");
  await protectUserAccessAdminGroup(services, ctx, group, "add principals");
  // Upstream checks the service accounts first, then the users; nothing is written unless all exist.
  const accountIds = await resolveServiceAccounts(
    services,
    ctx,
    refs.flatMap((r) => (r.type === "service-account" ? [r.clientId] : [])),
  );
  const userIds = await resolveUserIds(
    services,
    ctx,
    refs.flatMap((r): { username?: string; userId?: string }[] => (r.type === "user" ? [{ username: r.username }] : r.type === "user-id" ? [{ userId: r.userId }] : [])),
  );
  const ids = [...new Set([...accountIds, ...userIds])];
  // As upstream, every principal the request names is logged.
  const entries = audit.members(ctx, group, await principalsOf(services, ctx, ids), "add");
  const written = await settled(services, await services.store.groups.addMembers(ctx.tenant.orgId, group.id, ids, () => entries));
  return { ...written, value: await groupDetail(services, ctx, group) };
}

/**
 * Removes members named by username and/or service-account client id. As upstream, each must be a
 * member of the group (404 otherwise), and at least one of the two lists must be given; unlike
 * upstream, a refusal of either list removes nothing.
 */
export async function removeGroupPrincipals(
  services: Services,
  ctx: RequestContext,
  id: string,
  named: { usernames?: string[] | undefined; clientIds?: string[] | undefined },
): Promise<Written<{ removed: string[] }>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, id);
  await protectDefaultGroup(services, ctx, group, "remove principals");
  await protectUserAccessAdminGroup(services, ctx, group, "remove_principals");
  // Blank entries are dropped, so `?usernames=` names nobody: refused like no parameter at all.
  if (!named.usernames?.length && !named.clientIds?.length) throw invalid("Query parameter service-accounts or usernames is required.");
  const members = await principalsOf(services, ctx, await services.store.groups.members(ctx.tenant.orgId, group.id));
  const remove: string[] = [];
  if (named.clientIds !== undefined) {
    const byClientId = new Map<string, string>();
    for (const p of members.filter((m) => m.type === "service-account")) {
      byClientId.set(p.userId.toLowerCase(), p.userId);
      byClientId.set(clientIdOf(p), p.userId);
    }
    const wanted = named.clientIds.map((c) => c.toLowerCase());
    const missing = [...new Set(wanted.filter((c) => !byClientId.has(c)))];
    if (missing.length > 0) throw notFound(`Service account(s) ${pySet(missing)} not found in the group '${group.name}'`);
    remove.push(...wanted.map((c) => byClientId.get(c)!));
  }
  if (named.usernames !== undefined) {
    // Any member by its username, as members may be added by username.
    const byName = new Map(members.map((p) => [p.username.toLowerCase(), p.userId]));
    const missing = [...new Set(named.usernames.filter((n) => !byName.has(n.toLowerCase())))];
    if (missing.length > 0) throw notFound(`User(s) ${pySet(missing)} not found in the group '${group.name}'.`, "principals");
    remove.push(...named.usernames.map((n) => byName.get(n.toLowerCase())!));
  }
  const removing = [...new Set(remove)];
  const entries = audit.members(
    ctx,
    group,
    members.filter((m) => removing.includes(m.userId)),
    "remove",
  );
  return settled(services, await services.store.groups.removeMembers(ctx.tenant.orgId, group.id, removing, () => entries));
}
