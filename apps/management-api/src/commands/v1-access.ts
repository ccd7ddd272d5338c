// GET /api/rbac/v1/access/: a principal's permissions with insights-rbac's v1 semantics (groups →
// roles → access, default groups, wildcards left for the caller to interpret), from the same
// store the v2 API writes.
import { isStoreError, type BindingResource, type Principal, type V1AccessEntry, type Workspace } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { forbidden, invalid } from "../domain/errors.js";
import { echo } from "../schemas/common.js";
import type { V1AccessQuery } from "../schemas/v1-queries.js";
import { graphReady, isAdmin, type Services } from "./services.js";

/** The principal whose access is asked: the caller, or `username` for callers allowed to read principals. */
async function targetPrincipal(services: Services, ctx: RequestContext, username: string | undefined): Promise<{ userId: string; isOrgAdmin: boolean; isUser: boolean }> {
  if (!username) return { userId: ctx.caller.userId, isOrgAdmin: ctx.caller.isOrgAdmin, isUser: !ctx.caller.isServiceAccount };
  if (!isAdmin(ctx)) {
    await graphReady(services, ctx);
    const allowed = services.authz.check(ctx.principalId, { resourceType: "rbac/tenant", resourceId: ctx.tenant.tenantId, permission: "rbac_principal_read" });
    if (!allowed) throw forbidden();
  }
  const found = await findPrincipalByUsername(services, ctx.tenant.orgId, username);
  if (!found) throw invalid(`No data found for principal with username '${echo(username)}'.`);
  return { userId: found.userId, isOrgAdmin: found.isOrgAdmin, isUser: found.type === "user" };
}

export async function findPrincipalByUsername(services: Services, orgId: string, username: string): Promise<Principal | undefined> {
  const page = await services.store.principals.list(orgId, { username, limit: -1 }).catch((error: unknown) => {
    if (isStoreError(error, "invalid-argument")) return { data: [] as Principal[], count: 0 };
    throw error;
  });
  return page.data.find((p) => p.username.toLowerCase() === username.toLowerCase());
}

/** Each workspace id with the ids of everything below it. */
function descendantsOf(workspaces: Workspace[]): (id: string) => string[] {
  const children = new Map<string, string[]>();
  for (const w of workspaces) {
    if (!w.parentId) continue;
    const list = children.get(w.parentId) ?? [];
    list.push(w.id);
    children.set(w.parentId, list);
  }
  return (id) => {
    const out: string[] = [];
    const stack = [id];
    while (stack.length > 0) {
      const next = stack.pop()!;
      out.push(next);
      stack.push(...(children.get(next) ?? []));
    }
    return out;
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An inventory `group.id` filter on groups or hosts: its values are workspaces. */
function isWorkspaceFilter(entry: V1AccessEntry): boolean {
  const [app, resource] = entry.permission.split(":");
  return app === "inventory" && ["groups", "hosts", "*"].includes(resource ?? "") && entry.resourceDefinitions.some((d) => d.attributeFilter.key === "group.id");
}

/**
 * Workspaces nest and grants inherit downward, so a workspace filter also names every workspace
 * below the ones it lists (insights-rbac does the same with its workspace hierarchy enabled).
 */
async function withDescendants(entry: V1AccessEntry, below: (id: string) => Promise<string[]>): Promise<V1AccessEntry> {
  const resourceDefinitions = await Promise.all(
    entry.resourceDefinitions.map(async (d) => {
      if (d.attributeFilter.key !== "group.id") return d;
      const raw = d.attributeFilter.value;
      const values: unknown[] = Array.isArray(raw) ? raw : [raw];
      const out: unknown[] = values.filter((v) => typeof v !== "string" || !UUID.test(v));
      for (const v of values) if (typeof v === "string" && UUID.test(v)) out.push(...(await below(v.toLowerCase())));
      return { attributeFilter: { key: "group.id", operation: "in", value: [...new Set(out)] } };
    }),
  );
  return { permission: entry.permission, resourceDefinitions };
}

/** Both workspace-limited inventory entries and entries without such a limit. */
const isMixed = (entries: readonly V1AccessEntry[]) => entries.some(isWorkspaceFilter) && entries.some((e) => !isWorkspaceFilter(e));

/** Some workspace filter of the role names the workspace. */
function namesWorkspace(entries: readonly V1AccessEntry[], workspaceId: string): boolean {
  return entries.some(
    (e) =>
      isWorkspaceFilter(e) &&
      e.resourceDefinitions.some((d) => {
        const raw = d.attributeFilter.value;
        return d.attributeFilter.key === "group.id" && (Array.isArray(raw) ? raw : [raw]).some((v) => typeof v === "string" && v.toLowerCase() === workspaceId);
      }),
  );
}

const canonical = (entry: V1AccessEntry) => JSON.stringify([entry.permission, entry.resourceDefinitions]);
const appOf = (permission: string) => permission.split(":")[0] ?? "";

/**
 * The v1 access list of a principal. A role bound at the organisation, Root or Default Workspace
 * contributes its access list as is; a role bound on another workspace contributes its inventory
 * permissions restricted to that workspace and its descendants (`group.id in [...]`), as v1
 * expresses workspace grants; other applications have no v1 form for a sub-workspace grant.
 */
export async function principalAccess(services: Services, ctx: RequestContext, query: V1AccessQuery): Promise<V1AccessEntry[]> {
  const orderBy = query.order_by;
  const principal = await targetPrincipal(services, ctx, query.username);

  const orgId = ctx.tenant.orgId;
  // An associate acting through cross-account requests holds exactly the roles its approved
  // requests grant now, organisation-wide (upstream's roles_for_cross_account_principal), nothing else.
  const grants =
    ctx.caller.crossAccess && !query.username
      ? (await services.store.crossAccount.activeRoleIds(orgId, ctx.caller.userId)).map((roleId) => ({ roleId, resource: { type: "tenant" as const, id: ctx.tenant.tenantId } }))
      : await services.store.v1.grantsOf(orgId, principal.userId, { isOrgAdmin: principal.isOrgAdmin, defaultGroups: principal.isUser });
  const access = await services.store.v1.accessOf([...new Set(grants.map((g) => g.roleId))]);
  const levelIds = new Set([ctx.tenant.tenantId, ctx.tenant.rootWorkspaceId, ctx.tenant.defaultWorkspaceId]);
  const isLevel = (r: BindingResource) => levelIds.has(r.id);
  let belowOf: ((id: string) => string[]) | undefined;
  const below = async (id: string) => {
    belowOf ??= descendantsOf((await services.store.workspaces.list(orgId, { limit: -1 })).data);
    return belowOf(id);
  };

  const apps = query.application === "" ? null : new Set(query.application.split(","));
  const seen = new Set<string>();
  const out: V1AccessEntry[] = [];
  const add = (entry: V1AccessEntry) => {
    if (apps && !apps.has(appOf(entry.permission))) return;
    const key = canonical(entry);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(entry);
  };
  for (const grant of grants) {
    const entries = access.get(grant.roleId) ?? [];
    if (isLevel(grant.resource)) {
      for (const e of entries) add(isWorkspaceFilter(e) ? await withDescendants(e, below) : e);
      continue;
    }
    // A role mixing workspace-limited and unlimited entries is bound on its workspaces only (its
    // unlimited permissions are a part bound at the organisation level in relationships): bound on
    // a workspace its own filters name, it contributes its access list as at a level.
    if (isMixed(entries) && namesWorkspace(entries, grant.resource.id)) {
      for (const e of entries) add(isWorkspaceFilter(e) ? await withDescendants(e, below) : e);
    }
    const ids = await below(grant.resource.id);
    for (const e of entries) {
      if (appOf(e.permission) !== "inventory") continue;
      add({ permission: e.permission, resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "in", value: ids } }] });
    }
  }
  if (orderBy) {
    const desc = orderBy.startsWith("-");
    const part = ["application", "resource_type", "verb"].indexOf(desc ? orderBy.slice(1) : orderBy);
    const keyOf = (e: V1AccessEntry) => e.permission.split(":")[part] ?? "";
    out.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0) * (desc ? -1 : 1));
  }
  return out;
}

/**
 * insights-rbac's access paging: without `limit` the page is the whole list (meta.limit = count);
 * a `limit` that is not a positive integer falls back to 10; a bad offset to 0. No upper bound.
 */
export function accessPage(query: { limit?: string | undefined; offset?: string | undefined }, count: number): { limit: number; offset: number } {
  const positive = (raw: string | undefined, strict: boolean): number | undefined => {
    if (raw === undefined || !/^\s*[+-]?\d+\s*$/.test(raw)) return undefined;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 0 || (strict && n === 0)) return undefined;
    return n;
  };
  const limit = query.limit === undefined ? count : (positive(query.limit, true) ?? 10);
  return { limit, offset: positive(query.offset, false) ?? 0 };
}
