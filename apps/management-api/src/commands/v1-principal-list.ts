// GET /api/rbac/v1/principals/ as insights-rbac answers it (PrincipalView): users in the user
// directory's shape, service accounts in the service-account directory's, with upstream's filters.
// Gatehouse has no directories: principals are those the organisation has seen (their own
// authenticated requests, or an import), and a user carries what its identity told Gatehouse.
import type { Principal } from "@gatehouse/store";
import type { RequestContext } from "../http/identity.js";
import { v1ServiceAccount, type V1ServiceAccount } from "./groups.js";
import { requireOnTenant, type Services } from "./services.js";
import { validKey } from "./v1-access.js";

export interface V1PrincipalListQuery {
  usernames?: string | undefined;
  /** The e-mail its identity carried: `match_criteria=partial` a prefix, else equal (case-insensitive). */
  email?: string | undefined;
  matchCriteria?: string | undefined;
  sortOrder?: string | undefined;
  status?: string | undefined;
  adminOnly?: string | undefined;
  usernameOnly?: string | undefined;
  type?: string | undefined;
}

/** A user as upstream's directory lists it, without the names only a directory knows; the e-mail is the identity's. */
export interface V1User {
  username: string;
  /** Null when no identity of the user carried one (an imported principal). */
  email?: string | null;
  is_active?: boolean;
  is_org_admin?: boolean;
  external_source_id?: string;
}

type Page = { limit: number; offset: number };
export type V1PrincipalList = { count: number; data: (V1User | V1ServiceAccount)[] | { serviceAccounts?: V1ServiceAccount[]; users?: V1User[] } };

const BOOLEAN_VALUES = ["true", "false"];

function v1User(p: Principal, usernameOnly: boolean): V1User {
  if (usernameOnly) return { username: p.username };
  return { username: p.username, email: p.email, is_active: true, is_org_admin: p.isOrgAdmin, external_source_id: p.userId };
}

const slice = <T>(items: T[], page: Page): T[] => items.slice(page.offset, page.limit === -1 ? undefined : page.offset + page.limit);

export async function listV1Principals(services: Services, ctx: RequestContext, query: V1PrincipalListQuery, page: Page): Promise<V1PrincipalList> {
  await requireOnTenant(services, ctx, "rbac_principal_read");
  const sortOrder = validKey("sort_order", query.sortOrder ?? "asc", ["asc", "desc"], true);
  const status = validKey("status", query.status ?? "enabled", ["enabled", "disabled", "all"], true);
  const type = validKey("type", query.type, ["service-account", "user", "all"], false) ?? "user";
  const matchCriteria = validKey("match_criteria", query.matchCriteria ?? "exact", ["partial", "exact"], true);
  const usernameOnly = validKey("username_only", query.usernameOnly ?? "false", BOOLEAN_VALUES, true) === "true";
  const usernames = (query.usernames ?? "").replace(/ /g, "");
  const email = (query.email ?? "").trim().toLowerCase();
  // admin_only applies to a listing without `usernames` or `email`, as upstream.
  const adminOnly = !usernames && !email && validKey("admin_only", query.adminOnly ?? "false", BOOLEAN_VALUES, true) === "true";

  let principals = (await services.store.principals.list(ctx.tenant.orgId, { limit: -1 })).data;
  // Every recorded principal is active; `disabled` lists none.
  if (status === "disabled") principals = [];
  if (usernames) {
    const names = usernames.toLowerCase().split(",");
    principals = principals.filter((p) => (matchCriteria === "partial" ? p.username.startsWith(names[0] ?? "") : names.includes(p.username)));
  }
  if (email) {
    principals = principals.filter((p) => {
      const own = (p.email ?? "").toLowerCase();
      return own !== "" && (matchCriteria === "partial" ? own.startsWith(email) : own === email);
    });
  }
  if (adminOnly) principals = principals.filter((p) => p.isOrgAdmin);
  principals.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0) * (sortOrder === "desc" ? -1 : 1));
  const users = principals.filter((p) => p.type === "user");
  const accounts = principals.filter((p) => p.type === "service-account");
  if (type === "user") return { count: users.length, data: slice(users, page).map((p) => v1User(p, usernameOnly)) };
  if (type === "service-account") return { count: accounts.length, data: slice(accounts, page).map(v1ServiceAccount) };
  // `all`: service accounts first, then users, paged as one list.
  const both = [...accounts, ...users];
  const shown = slice(both, page);
  const shownAccounts = shown.filter((p) => p.type === "service-account").map(v1ServiceAccount);
  const shownUsers = shown.filter((p) => p.type === "user").map((p) => v1User(p, usernameOnly));
  return {
    count: both.length,
    data: { ...(shownAccounts.length > 0 ? { serviceAccounts: shownAccounts } : {}), ...(shownUsers.length > 0 ? { users: shownUsers } : {}) },
  };
}
