// GET /api/rbac/v1/principals/ as insights-rbac answers it (PrincipalView): users in the user
// directory's shape, service accounts in the service-account directory's, with upstream's filters.
// Gatehouse has no directories: principals are those the organisation has seen (their own
// authenticated requests, or an import), and a user carries what its identity told Gatehouse.
import type { Principal } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { clientIdOf, v1ServiceAccount, type V1ServiceAccount } from "./principals.js";
import type { V1PrincipalListQuery } from "../schemas/v1-queries.js";
import { requireOnTenant, type Services } from "./services.js";

/** A user as upstream's directory lists it, without the names only a directory knows; the e-mail is the identity's. */
export interface V1User {
  username: string;
  /** Absent when no identity of the user carried one (an imported principal): the document says string. */
  email?: string;
  is_active?: boolean;
  is_org_admin?: boolean;
  external_source_id?: string;
}

/** A listed service account: the directory's `time_created` is when Gatehouse first recorded it (epoch seconds). */
export type V1ListedServiceAccount = (V1ServiceAccount & { time_created: number }) | { username: string };

type Page = { limit: number; offset: number };
export type V1PrincipalList = {
  count: number;
  data: (V1User | V1ListedServiceAccount)[] | { serviceAccounts?: V1ListedServiceAccount[]; users?: V1User[] };
};

function v1User(p: Principal, usernameOnly: boolean): V1User {
  if (usernameOnly) return { username: p.username };
  return { username: p.username, ...(p.email ? { email: p.email } : {}), is_active: true, is_org_admin: p.isOrgAdmin, external_source_id: p.userId };
}

function v1ListedServiceAccount(p: Principal, usernameOnly: boolean): V1ListedServiceAccount {
  if (usernameOnly) return { username: p.username };
  return { ...v1ServiceAccount(p), time_created: Math.floor(p.created.getTime() / 1000) };
}

const slice = <T>(items: T[], page: Page): T[] => items.slice(page.offset, page.limit === -1 ? undefined : page.offset + page.limit);
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byUsername = (a: Principal, b: Principal) => compareText(a.username, b.username);

/** Users as upstream asks its user directory for them (PrincipalView.users_from_proxy). */
function users(all: Principal[], query: V1PrincipalListQuery): Principal[] {
  const { usernames, email, adminOnly, status, sortOrder } = query;
  const matchCriteria = query.matchCriteria ?? "exact";
  // Every recorded user is active; `disabled` lists none.
  let found = status === "disabled" ? [] : all.filter((p) => p.type === "user");
  if (usernames) {
    const names = usernames.toLowerCase().split(",");
    found = found.filter((p) => (matchCriteria === "partial" ? p.username.startsWith(names[0] ?? "") : names.includes(p.username)));
  }
  if (email) {
    found = found.filter((p) => {
      const own = (p.email ?? "").toLowerCase();
      return own !== "" && (matchCriteria === "partial" ? own.startsWith(email) : own === email);
    });
  }
  if (adminOnly) found = found.filter((p) => p.isOrgAdmin);
  return found.sort((a, b) => byUsername(a, b) * (sortOrder === "desc" ? -1 : 1));
}

/**
 * Service accounts as upstream lists them (ITService.get_service_accounts): `usernames` (with
 * `match_criteria` given, its first name only: a prefix or equal), then ordered by `order_by`.
 * Upstream answers in its directory's order (its own username order is lost when it merges the
 * directory's answer), so `sort_order` does not reorder them; Gatehouse is the directory here and
 * lists them in the order it recorded them. `email`, `status` and `admin_only` do not apply.
 * Gatehouse keeps no directory fields, so a `name`, `owner` or `description` filter matches no
 * service account and ordering by them keeps the listed order.
 */
function serviceAccounts(all: Principal[], query: V1PrincipalListQuery): Principal[] {
  const matchCriteria = query.matchCriteria;
  const usernames = query.usernames.toLowerCase();
  let found = all.filter((p) => p.type === "service-account");
  if (usernames) {
    const names = usernames.split(",");
    if (matchCriteria) found = found.filter((p) => (matchCriteria === "partial" ? p.username.startsWith(names[0]!) : p.username === names[0]));
    else found = found.filter((p) => names.includes(p.username));
  }
  if (query.name || query.owner || query.description) return [];
  found.sort((a, b) => a.created.getTime() - b.created.getTime() || byUsername(a, b));
  const orderBy = query.orderBy ?? "";
  const field = orderBy.replace(/^-/, "");
  const direction = orderBy.startsWith("-") ? -1 : 1;
  // A stable sort: service accounts with equal keys (every directory-only field) keep the listed order.
  if (field === "time_created") found.sort((a, b) => (a.created.getTime() - b.created.getTime()) * direction);
  if (field === "clientId") found.sort((a, b) => compareText(clientIdOf(a).toLowerCase(), clientIdOf(b).toLowerCase()) * direction);
  return found;
}

export async function listV1Principals(services: Services, ctx: RequestContext, query: V1PrincipalListQuery, page: Page): Promise<V1PrincipalList> {
  await requireOnTenant(services, ctx, "rbac_principal_read");
  const { type, usernameOnly } = query;
  const all = (await services.store.principals.list(ctx.tenant.orgId, { limit: -1 })).data;
  if (type === "service-account") {
    const accounts = serviceAccounts(all, query);
    return { count: accounts.length, data: slice(accounts, page).map((p) => v1ListedServiceAccount(p, usernameOnly)) };
  }
  const listedUsers = users(all, query);
  if (type === "user") return { count: listedUsers.length, data: slice(listedUsers, page).map((p) => v1User(p, usernameOnly)) };
  // `all`: service accounts first, then users, paged as one list.
  const accounts = serviceAccounts(all, query);
  const shown = slice([...accounts, ...listedUsers], page);
  const shownAccounts = shown.filter((p) => p.type === "service-account").map((p) => v1ListedServiceAccount(p, usernameOnly));
  const shownUsers = shown.filter((p) => p.type === "user").map((p) => v1User(p, usernameOnly));
  return {
    count: accounts.length + listedUsers.length,
    data: { ...(shownAccounts.length > 0 ? { serviceAccounts: shownAccounts } : {}), ...(shownUsers.length > 0 ? { users: shownUsers } : {}) },
  };
}
