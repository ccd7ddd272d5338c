// GET /api/rbac/v1/groups/ with insights-rbac's filters (GroupFilter, get_group_queryset) and
// ordering. An organisation's groups are few, so they are filtered and ordered in memory.
import type { Group } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { forbidden, invalid } from "../domain/errors.js";
import { echo } from "../schemas/common.js";
import { parseAfterPermission } from "../schemas/drf.js";
import { v1GroupScope, type V1GroupListQuery } from "../schemas/v1-queries.js";
import { groupRecord, serviceAccountIds, type GroupRecord } from "./groups.js";
import { hasOnTenant, isAdmin, type Services } from "./services.js";
import { findPrincipalByUsername } from "./v1-access.js";

/** Orderings upstream's OrderingFilter accepts; any other `order_by` is ignored (default: name). */
const ORDER_FIELDS = ["name", "modified", "principalCount", "policyCount"] as const;
type OrderField = (typeof ORDER_FIELDS)[number];

/** `policyCount` orders the list only (upstream's annotation); it is not part of the answer. */
type Listed = GroupRecord & { policyCount: number };

function compareBy(field: OrderField, desc: boolean): (a: Listed, b: Listed) => number {
  const sign = desc ? -1 : 1;
  const byName = (a: Listed, b: Listed) => a.name.localeCompare(b.name, "en", { sensitivity: "base" }) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return (a, b) => {
    const x = a[field];
    const y = b[field];
    const primary = field === "name" ? byName(a, b) : x < y ? -1 : x > y ? 1 : 0;
    return sign * primary || byName(a, b);
  };
}

export async function listV1Groups(services: Services, ctx: RequestContext, query: V1GroupListQuery, page: { limit: number; offset: number }): Promise<{ count: number; data: GroupRecord[] }> {
  // Upstream's GroupAccessPermission: without group read, a caller may still list its own groups,
  // by `username=<its own username>` or by `scope=principal`.
  const { nameMatch, uuids, roleDiscriminator: discriminator, system, platformDefault, adminDefault } = query;
  const principalScope = !query.username && query.scope?.toLowerCase() === "principal";
  if (!(await hasOnTenant(services, ctx, "rbac_groups_read")) && !principalScope && query.username !== ctx.caller.username) throw forbidden();
  const org = ctx.tenant.orgId;
  // `scope` is ignored with `username` (upstream checks it only without, after the permission check).
  const scope = query.username ? "org_id" : parseAfterPermission(v1GroupScope, query.scope);

  let groups = (await services.store.groups.list(org, { limit: -1 })).data;
  if (scope === "principal") {
    // The caller's own groups (upstream's groups_for_principal): a user's also take the
    // platform-default group, an org admin's the admin-default group too.
    const own = new Set(await services.store.groups.groupsOf(org, ctx.caller.userId));
    const isUser = !ctx.caller.isServiceAccount;
    // (the default groups by upstream's rule, never for a service account)
    groups = groups.filter((g) => (g.kind === "standard" && own.has(g.id)) || (isUser && g.kind === "platform-default") || (isUser && isAdmin(ctx) && g.kind === "admin-default"));
  } else if (query.username) {
    // The principal's own groups, the platform-default group unless it is a service account,
    // and the admin-default group when it is an org admin.
    const principal = await findPrincipalByUsername(services, org, query.username);
    if (!principal) throw invalid(`No data found for principal with username '${echo(query.username)}'.`);
    const own = new Set(await services.store.groups.groupsOf(org, principal.userId));
    const isUser = principal.type === "user";
    groups = groups.filter((g) => (g.kind === "standard" && own.has(g.id)) || (isUser && g.kind === "platform-default") || (isUser && principal.isOrgAdmin && g.kind === "admin-default"));
  } else if (query.excludeUsername) {
    const principal = await findPrincipalByUsername(services, org, query.excludeUsername);
    const own = new Set(principal ? await services.store.groups.groupsOf(org, principal.userId) : []);
    groups = groups.filter((g) => g.kind === "standard" && !own.has(g.id));
  } else if (!isAdmin(ctx)) {
    // As upstream: the admin-default group is listed to org admins only.
    groups = groups.filter((g) => g.kind !== "admin-default");
  }
  if (query.name) {
    const wanted = query.name.toLowerCase();
    groups = groups.filter((g) => (nameMatch === "exact" ? g.name.toLowerCase() === wanted : g.name.toLowerCase().includes(wanted)));
  }
  if (uuids) {
    const wanted = new Set(uuids);
    groups = groups.filter((g) => wanted.has(g.id));
  }
  if (query.principals) {
    const members = await principalsOf(services, org, groups);
    const wanted = query.principals;
    groups = groups.filter((g) => wanted.every((name) => members.get(g.id)?.has(name)));
  }
  const roleNames = await roleNamesOf(services, org, groups);
  if (query.roleNames) {
    const wanted = query.roleNames;
    groups = groups.filter((g) => {
      const held = roleNames.get(g.id) ?? [];
      const holds = (name: string) => held.some((r) => r.includes(name));
      return discriminator === "all" ? wanted.every(holds) : wanted.some(holds);
    });
  }
  const accounts = await serviceAccountIds(services, ctx);
  // Upstream counts a group's v1 policies: the default groups hold one from seeding, another group
  // one from its first role on, kept when its last role is removed.
  const policies = await services.store.v1.groupsWithV1Policy(org);
  const records: Listed[] = await Promise.all(
    groups.map(async (g) => ({
      ...(await groupRecord(services, ctx, g, undefined, accounts)),
      policyCount: g.kind !== "standard" || policies.has(g.id) || (roleNames.get(g.id)?.length ?? 0) > 0 ? 1 : 0,
    })),
  );
  const filtered = records.filter(
    (r) =>
      (system === undefined || r.system === system) && (platformDefault === undefined || r.platform_default === platformDefault) && (adminDefault === undefined || r.admin_default === adminDefault),
  );
  const order = query.orderBy ?? "name";
  const field = order.replace(/^-/, "");
  const known = (ORDER_FIELDS as readonly string[]).includes(field);
  const sorted = filtered.sort(compareBy(known ? (field as OrderField) : "name", known && order.startsWith("-")));
  const end = page.limit === -1 ? undefined : page.offset + page.limit;
  return { count: sorted.length, data: sorted.slice(page.offset, end).map(({ policyCount: _ordered, ...record }) => record) };
}

/** Lower-cased role names bound to each group (through its v1 policy). */
async function roleNamesOf(services: Services, org: string, groups: Group[]): Promise<Map<string, string[]>> {
  const roles = new Map((await services.store.roles.list(org, { kinds: ["custom", "seeded"], limit: -1 })).data.map((r) => [r.id, r.name.toLowerCase()]));
  const out = new Map<string, string[]>();
  for (const g of groups) {
    const ids = await services.store.v1.rolesOfGroup(org, g.id);
    out.set(
      g.id,
      ids.map((id) => roles.get(id)).filter((n): n is string => n !== undefined),
    );
  }
  return out;
}

/** Lower-cased usernames of each group's members. */
async function principalsOf(services: Services, org: string, groups: Group[]): Promise<Map<string, Set<string>>> {
  const all = (await services.store.principals.list(org, { limit: -1 })).data;
  const names = new Map(all.map((p) => [p.userId, p.username.toLowerCase()]));
  const out = new Map<string, Set<string>>();
  for (const g of groups) out.set(g.id, new Set((await services.store.groups.members(org, g.id)).map((id) => names.get(id) ?? "")));
  return out;
}
