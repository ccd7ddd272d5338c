// A group's members: upstream's `/groups/{uuid}/principals/` list and membership report, and the
// one path changing members (users by username or user id, service accounts by client id), used
// by the add and the remove alike: the same checks in upstream's order and words, the same
// principal lookup, one store write with its audit rows (store.groups.addMembers/removeMembers).
import type { Group, Principal, Written } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { invalid, notFound } from "../domain/errors.js";
import { echo, UUID_PATTERN } from "../schemas/common.js";
import type { GROUP_PRINCIPAL_TYPES, GroupPrincipalRef } from "../schemas/groups.js";
import { audit } from "./audit-log.js";
import { groupDetail, loadGroup, protectDefaultGroup, protectUserAccessAdminGroup, type GroupDetail } from "./groups.js";
import { clientIdOf, listPrincipalsByIds, principalsByIds, v1ServiceAccount, type PrincipalRecord, type V1ServiceAccount } from "./principals.js";
import { requireOnTenant, settled, type Services } from "./services.js";

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
  const members = await membersOf(services, ctx, group);
  const needle = query.principalUsername?.toLowerCase();
  let users = members.filter((p) => p.type === "user" && (!needle || p.username.toLowerCase().includes(needle)) && (!adminOnly || p.isOrgAdmin)).sort(usernameOrder);
  if (orderBy === "-username") users = users.reverse();
  // Service accounts, as upstream filters them: a `service-account-` prefixed name against the
  // username, anything else against the client id (both case-sensitive substrings).
  const saNeedle = query.principalUsername;
  const accounts = members
    .filter((p) => p.type === "service-account")
    .filter((p) => !saNeedle || (saNeedle.startsWith("service-account-") ? p.username.includes(saNeedle) : clientIdOf(p).includes(saNeedle)))
    .sort(usernameOrder);
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
  const members = await membersOf(services, ctx, group);
  const inGroup = new Set(members.filter((p) => p.type === "service-account").map(clientIdOf));
  return { count: named.length, data: Object.fromEntries(named.map((c) => [c, inGroup.has(c.toLowerCase())])) };
}

/** Bound of one membership report (the query string is bounded too). */
const MAX_CLIENT_IDS = 1000;

const usernameOrder = (a: { username: string }, b: { username: string }) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0);

/** The group's members as principals (for default groups: as implied by the principals). */
async function membersOf(services: Services, ctx: RequestContext, group: Group): Promise<Principal[]> {
  return principalsByIds(services, ctx, await services.store.groups.members(ctx.tenant.orgId, group.id));
}

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

/** A comma list of a query parameter, blanks dropped; undefined when the parameter is absent. */
const commaList = (value: string | undefined): string[] | undefined =>
  value
    ?.split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");

/**
 * The names a membership request may use for a principal: its user id, its username
 * (case-insensitive) and, for a service account, its client id (the user id it is keyed by, or
 * upstream's username form `service-account-<clientId>`).
 */
const nameKeys = (p: Principal): string[] => [`id:${p.userId}`, `name:${p.username.toLowerCase()}`];
const clientIdKeys = (p: Principal): string[] => (p.type === "service-account" ? [`client:${p.userId.toLowerCase()}`, `client:${clientIdOf(p)}`] : []);
const byClientId = (clientId: string) => `client:${clientId.toLowerCase()}`;
const byUsername = (username: string) => `name:${username.toLowerCase()}`;

/** The principals among `candidates` that `refs` name (in the order named), and the refs naming none. */
function lookUp<T>(candidates: readonly Principal[], refs: readonly T[], keyOf: (ref: T) => string): { found: Principal[]; missing: T[] } {
  const index = new Map<string, Principal>();
  for (const p of candidates) for (const key of [...nameKeys(p), ...clientIdKeys(p)]) index.set(key, p);
  const found: Principal[] = [];
  const missing: T[] = [];
  for (const ref of refs) {
    const p = index.get(keyOf(ref));
    if (p) found.push(p);
    else missing.push(ref);
  }
  return { found, missing };
}

/** What a membership change names: principals to add, or members to remove by username and/or client id (comma lists). */
export type MemberChange = { action: "add"; principals: readonly GroupPrincipalRef[] } | { action: "remove"; usernames?: string | undefined; serviceAccounts?: string | undefined };

/**
 * Principals to add, every one known to the organisation (nothing is written otherwise). Upstream
 * checks the service accounts first, then the users. Gatehouse has no service-account directory, so
 * (as for users, and as the v2 role bindings decide) a service account exists once the organisation
 * has it as a principal: recorded by its own authenticated request or imported. Users are any
 * principal of the organisation by username or user id (upstream's directory knows users only).
 */
async function principalsToAdd(services: Services, ctx: RequestContext, refs: readonly GroupPrincipalRef[]): Promise<{ named: Principal[]; audited: Principal[] }> {
  const clientIds = refs.flatMap((r) => (r.type === "service-account" ? [r.clientId] : []));
  const users = refs.flatMap((r) => (r.type === "user" ? [{ key: byUsername(r.username), shown: r.username }] : r.type === "user-id" ? [{ key: `id:${r.userId}`, shown: r.userId }] : []));
  const list = async (type?: "service-account") => (await services.store.principals.list(ctx.tenant.orgId, { ...(type ? { type } : {}), limit: -1 })).data;
  const accounts = clientIds.length === 0 ? { found: [], missing: [] } : lookUp(await list("service-account"), clientIds, byClientId);
  if (accounts.missing.length > 0) throw notFound(`Service account(s) ${pySet([...new Set(accounts.missing)])} not found.`, "groups");
  const named = users.length === 0 ? { found: [], missing: [] } : lookUp(await list(), users, (r) => r.key);
  if (named.missing.length > 0) throw notFound(`Unknown principals: ${named.missing.map((r) => r.shown).join(", ")}`, "principals");
  // As upstream, every principal the request names is logged (members already there included).
  const unique = [...new Map([...accounts.found, ...named.found].map((p) => [p.userId, p])).values()];
  return { named: unique, audited: unique };
}

/**
 * Members to remove, each a member of the group (404 otherwise, as upstream), at least one of the
 * two lists given (blank entries are dropped, so `?usernames=` names nobody); unlike upstream, a
 * refusal of either list removes nothing. A username names any member (members may be added by
 * username), a client id a member service account.
 */
async function membersToRemove(services: Services, ctx: RequestContext, group: Group, change: { usernames?: string | undefined; serviceAccounts?: string | undefined }) {
  const usernames = commaList(change.usernames);
  const clientIds = commaList(change.serviceAccounts)?.map((c) => c.toLowerCase());
  if (!usernames?.length && !clientIds?.length) throw invalid("Query parameter service-accounts or usernames is required.");
  const members = await membersOf(services, ctx, group);
  const named: Principal[] = [];
  if (clientIds !== undefined) {
    const accounts = lookUp(
      members.filter((m) => m.type === "service-account"),
      clientIds,
      byClientId,
    );
    if (accounts.missing.length > 0) throw notFound(`Service account(s) ${pySet([...new Set(accounts.missing)])} not found in the group '${group.name}'`);
    named.push(...accounts.found);
  }
  if (usernames !== undefined) {
    const users = lookUp(members, usernames, byUsername);
    if (users.missing.length > 0) throw notFound(`User(s) ${pySet([...new Set(users.missing)])} not found in the group '${group.name}'.`, "principals");
    named.push(...users.found);
  }
  const removing = new Set(named.map((p) => p.userId));
  return { named: [...new Map(named.map((p) => [p.userId, p])).values()], audited: members.filter((m) => removing.has(m.userId)) };
}

/**
 * The one path changing a group's members, for adds and removes alike: the caller's right, the
 * group, upstream's refusals for default groups and for groups granting more than read on user
 * access (to anyone but an org admin), the principals named, then one store write with its audit
 * rows. A refusal changes nothing.
 */
export async function changeGroupMembers(services: Services, ctx: RequestContext, id: string, change: MemberChange): Promise<Written<Group>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, id);
  await protectDefaultGroup(services, ctx, group, `${change.action} principals`);
  await protectUserAccessAdminGroup(services, ctx, group, change.action === "add" ? "add principals" : "remove_principals");
  const { named, audited } = change.action === "add" ? await principalsToAdd(services, ctx, change.principals) : await membersToRemove(services, ctx, group, change);
  const ids = named.map((p) => p.userId);
  const entries = audit.members(ctx, group, audited, change.action);
  const groups = services.store.groups;
  const written = change.action === "add" ? await groups.addMembers(ctx.tenant.orgId, group.id, ids, () => entries) : await groups.removeMembers(ctx.tenant.orgId, group.id, ids, () => entries);
  return settled(services, { ...written, value: group });
}

/** `POST /groups/{uuid}/principals/`: the change, answered with the group as `GET /groups/{uuid}/` shows it. */
export async function addGroupPrincipals(services: Services, ctx: RequestContext, id: string, principals: readonly GroupPrincipalRef[]): Promise<Written<GroupDetail>> {
  const written = await changeGroupMembers(services, ctx, id, { action: "add", principals });
  return { ...written, value: await groupDetail(services, ctx, written.value) };
}

/** `DELETE /groups/{uuid}/principals/?usernames=a,b&service-accounts=c`: the change, answered with nothing. */
export function removeGroupPrincipals(services: Services, ctx: RequestContext, id: string, named: { usernames?: string | undefined; serviceAccounts?: string | undefined }): Promise<Written<Group>> {
  return changeGroupMembers(services, ctx, id, { action: "remove", ...named });
}
