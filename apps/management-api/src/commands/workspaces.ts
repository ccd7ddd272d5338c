import { isStoreError, type Workspace, type WorkspaceListQuery, type WorkspaceType, type Written } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { busy, forbidden, invalid, isMissing, missingAs, workspaceNotFound } from "../domain/errors.js";
import { UUID_PATTERN } from "../schemas/common.js";
import { canOnWorkspace, graphReady, isAdmin, settled, type Services } from "./services.js";

export interface WorkspaceRecord {
  id: string;
  parent_id: string | null;
  type: WorkspaceType;
  name: string;
  description: string | null;
  created: string;
  modified: string;
}

export function workspaceRecord(ws: Workspace): WorkspaceRecord {
  return {
    id: ws.id,
    parent_id: ws.parentId,
    type: ws.type,
    name: ws.name,
    description: ws.description,
    created: ws.created.toISOString(),
    modified: ws.modified.toISOString(),
  };
}

/** insights-rbac answers lost races of workspace create/move with 503 + Retry-After. */
function retryLater(error: unknown): never {
  if (isStoreError(error, "conflict")) throw busy();
  throw error;
}

/** Built-ins every member of the org may see (insights-rbac always allows `view` on them). */
const ALWAYS_VISIBLE: readonly WorkspaceType[] = ["root", "default", "ungrouped-hosts"];

export interface WorkspaceFilters {
  types?: WorkspaceType[];
  name?: string;
  parentId?: string;
  ids?: string[];
  orderBy?: WorkspaceListQuery["orderBy"];
  withAncestry?: boolean;
}

/**
 * The workspaces a non-admin may list: granted `view`, plus ancestors/fallbacks with ancestry.
 * Grants outside the tenant count as none, as upstream treats ids its lookup returns for another
 * tenant (a user id is global, so one principal can hold grants in several organisations).
 */
async function visibleIds(services: Services, ctx: RequestContext, withAncestry: boolean): Promise<Set<string>> {
  await graphReady(services, ctx);
  const granted = services.authz.workspacesWith(ctx.principalId, "view");
  if (!withAncestry) {
    const inTenant = granted.size === 0 ? 0 : (await services.store.workspaces.list(ctx.tenant.orgId, { ids: [...granted], limit: 1 })).count;
    if (inTenant === 0) throw forbidden();
    return granted;
  }
  const all = await services.store.workspaces.list(ctx.tenant.orgId, { limit: -1 });
  const parentOf = new Map(all.data.map((ws) => [ws.id, ws.parentId]));
  const visible = new Set<string>();
  for (const id of granted) {
    if (!parentOf.has(id)) continue;
    for (let at: string | null | undefined = id; at && !visible.has(at); at = parentOf.get(at)) visible.add(at);
  }
  if (visible.size === 0) for (const ws of all.data) if (ALWAYS_VISIBLE.includes(ws.type)) visible.add(ws.id);
  return visible;
}

export async function listWorkspaces(services: Services, ctx: RequestContext, filters: WorkspaceFilters, page: { limit: number; offset: number }): Promise<{ count: number; data: WorkspaceRecord[] }> {
  let ids = filters.ids;
  if (!isAdmin(ctx)) {
    const visible = await visibleIds(services, ctx, filters.withAncestry ?? false);
    ids = ids ? ids.filter((id) => visible.has(id)) : [...visible];
  }
  if (ids && ids.length === 0) return { count: 0, data: [] };
  const name = filters.name?.trim();
  const query: WorkspaceListQuery = {
    limit: page.limit,
    offset: page.offset,
    ...(filters.types && filters.types.length > 0 ? { types: filters.types } : {}),
    ...(name && name !== "*" ? { name } : {}),
    ...(filters.parentId ? { parentId: filters.parentId } : {}),
    ...(ids ? { ids } : {}),
    ...(filters.orderBy ? { orderBy: filters.orderBy } : {}),
  };
  const result = await services.store.workspaces.list(ctx.tenant.orgId, query);
  return { count: result.count, data: result.data.map(workspaceRecord) };
}

/**
 * Loads a workspace the caller holds `permission` on. Missing or hidden (not viewable) answers 404
 * alike; visible but not permitted is insights-rbac's 403.
 */
async function loadAuthorized(services: Services, ctx: RequestContext, id: string, permission: string): Promise<Workspace> {
  const ws = await services.store.workspaces.get(ctx.tenant.orgId, id).catch(missingAs(() => workspaceNotFound()));
  const exempt = permission === "view" && ALWAYS_VISIBLE.includes(ws.type);
  if (!exempt && !(await canOnWorkspace(services, ctx, ws.id, permission))) {
    const visible = permission !== "view" && (ALWAYS_VISIBLE.includes(ws.type) || (await canOnWorkspace(services, ctx, ws.id, "view")));
    throw visible ? forbidden() : workspaceNotFound();
  }
  return ws;
}

export async function getWorkspace(
  services: Services,
  ctx: RequestContext,
  id: string,
  includeAncestry: boolean,
): Promise<WorkspaceRecord & { ancestry?: { id: string; name: string; parent_id: string | null }[] }> {
  const ws = await loadAuthorized(services, ctx, id, "view");
  if (!includeAncestry) return workspaceRecord(ws);
  const ancestry = await services.store.workspaces.ancestry(ctx.tenant.orgId, ws.id);
  return { ...workspaceRecord(ws), ancestry: ancestry.map((a) => ({ id: a.id, name: a.name, parent_id: a.parentId })) };
}

/** insights-rbac words the rule alike for create and move. */
function rootPeerRule(services: Services, parent: Workspace): void {
  if (parent.type === "root" && !services.config.allowChildrenUnderRoot) {
    throw invalid("Sub-workspaces may only be created under the default workspace.", "parent_id");
  }
}

/**
 * The create check as insights-rbac runs it, before the body is validated: `create` on the
 * parent the body names (when it is one of the tenant's workspaces) or on the Default Workspace.
 * An unknown or malformed parent is left to validation, which reports it.
 */
export async function authorizeWorkspaceCreate(services: Services, ctx: RequestContext, body: unknown): Promise<void> {
  const named = typeof body === "object" && body !== null ? (body as { parent_id?: unknown }).parent_id : undefined;
  const parentId = typeof named === "string" && UUID_PATTERN.test(named) ? named.toLowerCase() : named == null ? ctx.tenant.defaultWorkspaceId : null;
  if (parentId === null) return;
  const parent = await services.store.workspaces.get(ctx.tenant.orgId, parentId).catch((error: unknown) => {
    if (isMissing(error)) return null;
    throw error;
  });
  if (parent && !(await canOnWorkspace(services, ctx, parent.id, "create"))) throw forbidden();
}

export async function createWorkspace(
  services: Services,
  ctx: RequestContext,
  input: { name: string; description?: string | null | undefined; parentId?: string | undefined },
): Promise<Written<WorkspaceRecord>> {
  const parentId = input.parentId ?? ctx.tenant.defaultWorkspaceId;
  const parent = await services.store.workspaces.get(ctx.tenant.orgId, parentId).catch(missingAs(() => invalid(`Parent workspace '${parentId}' doesn't exist in tenant`, "parent_id")));
  if (!(await canOnWorkspace(services, ctx, parent.id, "create"))) throw forbidden();
  rootPeerRule(services, parent);
  const limit = services.config.workspaceOrgLimit;
  const { count } = await services.store.workspaces.list(ctx.tenant.orgId, { types: ["standard"], limit: 1 });
  if (count >= limit) {
    throw invalid(`Workspace limit reached (${count}/${limit}); please free up capacity by deleting empty workspaces or consolidating those with similar users and role bindings.`);
  }
  const written = await services.store.workspaces.create(ctx.tenant.orgId, { name: input.name, description: input.description ?? null, parentId: parent.id }).catch((error: unknown) => {
    if (isStoreError(error, "duplicate-name")) throw invalid("Can't create workspace with same name within same parent workspace", "name");
    return retryLater(error);
  });
  await settled(services, written);
  return { ...written, value: workspaceRecord(written.value) };
}

export interface WorkspaceChange {
  name?: string | undefined;
  description?: string | null | undefined;
  /** `undefined` = not sent; the parent can only be repeated, never changed here. */
  parentId?: string | null | undefined;
}

/** The workspace a PUT or PATCH changes, once the caller may edit it (checked before the body, as upstream). */
export const workspaceToEdit = (services: Services, ctx: RequestContext, id: string): Promise<Workspace> => loadAuthorized(services, ctx, id, "edit");

/** PUT (`replace`: name required, parent_id required for standard/default) and PATCH of a workspace from `workspaceToEdit`. */
export async function updateWorkspace(
  services: Services,
  ctx: RequestContext,
  ws: Workspace,
  change: WorkspaceChange,
  replace: boolean,
): Promise<Written<WorkspaceRecord> | { value: WorkspaceRecord; revision: null }> {
  if (ws.type === "root") throw invalid("The root workspace cannot be updated.");
  if (ws.type === "ungrouped-hosts") throw invalid("The ungrouped-hosts workspace cannot be updated.");
  if (replace && change.parentId === undefined) throw invalid("This field is required.", "parent_id");
  if (change.parentId !== undefined && change.parentId !== ws.parentId) {
    throw invalid("Can't update the 'parent_id' on a workspace directly", "parent_id");
  }
  const patch: { name?: string; description?: string | null } = {};
  if (change.name !== undefined && change.name !== ws.name) patch.name = change.name;
  if (change.description !== undefined && change.description !== ws.description) patch.description = change.description;
  if (Object.keys(patch).length === 0) return { value: workspaceRecord(ws), revision: null };
  const written = await services.store.workspaces.update(ctx.tenant.orgId, ws.id, patch).catch((error: unknown) => {
    if (isStoreError(error, "duplicate-name")) {
      throw invalid(`A workspace with the name '${change.name ?? ws.name}' already exists under same parent.`, "name");
    }
    throw error;
  });
  await settled(services, written);
  return { ...written, value: workspaceRecord(written.value) };
}

export async function deleteWorkspace(services: Services, ctx: RequestContext, id: string): Promise<Written<{ id: string }>> {
  const ws = await loadAuthorized(services, ctx, id, "delete");
  if (ws.type !== "standard") throw invalid(`Unable to delete ${ws.type} workspace`);
  const written = await services.store.workspaces.delete(ctx.tenant.orgId, ws.id).catch((error: unknown) => {
    if (isStoreError(error, "not-empty")) throw invalid("Unable to delete due to workspace dependencies");
    throw error;
  });
  return settled(services, written);
}

export async function moveWorkspace(services: Services, ctx: RequestContext, id: string, targetId: string | undefined): Promise<Written<{ id: string; parent_id: string }>> {
  if (targetId === undefined) throw invalid("The 'parent_id' field is required.", "parent_id");
  const ws = await loadAuthorized(services, ctx, id, "move");
  if (ws.type !== "standard") throw invalid("Cannot move non-standard workspace.");
  if (targetId === ws.id) throw invalid("The parent_id and id values must not be the same.", "parent_id");
  const noTarget = () => forbidden("You do not have permission to access the target workspace.");
  const target = await services.store.workspaces.get(ctx.tenant.orgId, targetId).catch(missingAs(() => noTarget()));
  if (!(await canOnWorkspace(services, ctx, target.id, "create"))) throw noTarget();
  rootPeerRule(services, target);
  const written = await services.store.workspaces.move(ctx.tenant.orgId, ws.id, target.id).catch((error: unknown) => {
    if (isStoreError(error, "move-into-descendant")) throw invalid("Cannot move workspace under one of its own descendants.", "parent_id");
    if (isStoreError(error, "duplicate-name")) throw invalid("A workspace with the same name already exists under the target parent.", "parent_id");
    return retryLater(error);
  });
  await settled(services, written);
  return { ...written, value: { id: written.value.id, parent_id: target.id } };
}
