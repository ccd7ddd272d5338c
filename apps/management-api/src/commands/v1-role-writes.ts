// insights-rbac's v1 role and group writes (`/api/rbac/v1/roles/`, `/groups/{uuid}/` PUT,
// `/groups/{uuid}/roles/`), in upstream's statuses and words. Every write goes through one store
// transaction that also writes the v2 bindings the migration rule gives (dual write, placed by
// `planV1RolePlacement` of @gatehouse/rbac, the rule `gatehouse migrate` applies) and its audit row.
import { defaultAssetTypes, grantsUserAccessAboveRead, permissionLevelsFromCatalog, planV1RolePlacement, type V1RolePlacement } from "@gatehouse/rbac";
import { isStoreError, type Group, type Role, type V1AccessEntry, type V1RoleTargets, type V1RoleWrite, type Written } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { forbidden, invalid, isMissing, missingAs, notFound } from "../domain/errors.js";
import { echo, UUID_PATTERN } from "../schemas/common.js";
import { pyList } from "../schemas/drf.js";
import type { V1GroupUpdateBody, V1RoleBody, V1RolePatchBody } from "../schemas/v1-bodies.js";
import { audit } from "./audit-log.js";
import { grantUserAccessAboveRead, groupRecord, loadGroup, protectDefaultGroup, protectUserAccessAdminGroup, type GroupRecord } from "./groups.js";
import { isAdmin, requireOnTenant, settled, type Services } from "./services.js";
import { requireUpdatable, roleNameRefused } from "./roles.js";
import { rolesOfGroupV1, v1RoleRecord, type V1RoleRecord } from "./v1-roles.js";

/** upstream's texts for writes refused in v2 mode. */
export const V1_ROLE_WRITE_BLOCKED = "V1 write operations are not allowed for orgs using workspaces.";
export const V1_GROUP_ROLES_BLOCKED = "V1 role-to-group assignment operations are not allowed for orgs using workspaces. Use v2 role bindings instead.";

const levelOf = permissionLevelsFromCatalog(defaultAssetTypes());

const v1Blocked = (message: string) => (error: unknown) => {
  if (isStoreError(error, "v2-activated")) throw forbidden(message);
  throw error;
};

/**
 * The fast, non-locking check upstream's permission class makes before anything else; the write's
 * own transaction checks again under the tenant's lock (a v2 activation may land in between).
 */
async function refuseInV2Mode(services: Services, ctx: RequestContext, message: string): Promise<void> {
  if ((await services.store.orgMode.get(ctx.tenant.orgId)).mode === "v2") throw forbidden(message);
}

const roleNotFound = missingAs(() => notFound());

function requireUuidParam(id: string): string {
  if (!UUID_PATTERN.test(id)) throw invalid(`${echo(id)} is not a valid UUID.`, "uuid");
  return id.toLowerCase();
}

/**
 * The rules of a role's access list that need the permission catalogue, as upstream's
 * `validate_role` (the list's shape was checked at the edge).
 */
function requireGrantable(services: Services, ctx: RequestContext, entries: readonly V1AccessEntry[]): void {
  const sent = new Set(entries.map((e) => e.permission));
  for (const { permission } of entries) {
    if (!services.catalogue.names(permission)) throw invalid(`Permission does not exist: ${echo(permission)}`, "role");
    // A permission the catalogue says needs others (its `requires`) comes with them, as upstream's validate_role.
    const requires = services.catalogue.records.find((r) => r.permission === permission)?.requires ?? [];
    if (!requires.every((r) => sent.has(r))) throw invalid(`Permission '${permission}' requires: '${pyList(requires)}'`, "role");
    // Only org admins may give a custom role more than read on user access itself.
    if (!isAdmin(ctx) && grantsUserAccessAboveRead(permission)) throw invalid(`Custom roles cannot be created for ${echo(permission.split(":")[0])}`, "role");
  }
}

/** Where the role's groups are bound, by the migration rule. */
function placement(access: readonly V1AccessEntry[]): { placed: V1RolePlacement; targets: V1RoleTargets } {
  const placed = planV1RolePlacement(access, levelOf);
  return {
    placed,
    targets: {
      levels: [...placed.levels],
      workspaceIds: [...placed.workspaceIds],
      ungrouped: placed.ungrouped,
      ...(placed.unlimited ? { unlimited: { levels: [...placed.unlimited.levels], permissions: [...placed.unlimited.permissions] } } : {}),
    },
  };
}

/** The store's targets of a role already stored (system roles: their configured scope). */
async function targetsOf(services: Services, role: Role): Promise<V1RoleTargets> {
  if (role.kind !== "custom") return { levels: [role.scope], workspaceIds: [] };
  const access = (await services.store.v1.accessOf([role.id])).get(role.id) ?? [];
  return placement(access).targets;
}

/**
 * Workspaces named by `group.id` must be the organisation's (upstream's RHCLOUD-35481 check, in
 * validate_role): each resource definition of each permission, whatever its application.
 */
async function requireOwnWorkspaces(services: Services, ctx: RequestContext, access: readonly V1AccessEntry[]): Promise<void> {
  let own: Set<string> | undefined;
  for (const { permission, resourceDefinitions } of access) {
    for (const { attributeFilter } of resourceDefinitions) {
      if (attributeFilter.key !== "group.id") continue;
      const values = Array.isArray(attributeFilter.value) ? attributeFilter.value : [attributeFilter.value];
      const ids = [...new Set(values.filter((v): v is string => typeof v === "string").map((v) => v.toLowerCase()))];
      if (ids.length === 0) continue;
      own ??= new Set((await services.store.workspaces.list(ctx.tenant.orgId, { limit: -1 })).data.map((w) => w.id));
      const foreign = ids.filter((id) => !own!.has(id));
      if (foreign.length === 0) continue;
      throw invalid(
        `user from org '${ctx.tenant.orgId}' cannot add permission '${echo(permission)}' to workspace outside their org. Invalid workspace IDs: ${foreign.sort().slice(0, 10).join(", ")}`,
        "role",
      );
    }
  }
}

async function roleWrite(services: Services, ctx: RequestContext, body: V1RoleBody): Promise<V1RoleWrite> {
  const { name, displayName, description, access } = body;
  requireGrantable(services, ctx, access);
  const { placed, targets } = placement(access);
  await requireOwnWorkspaces(services, ctx, access);
  return { name, displayName: displayName || name, description: description ?? null, access, scope: placed.level, targets };
}

/** A v1 write's answer, with the organisation's lost-grant count after it (parity upkeep; undefined when not computed). */
export type V1Written<T> = Written<T> & { parityLost: number | undefined };

/** After a v1 write: applied to the graph, then its answer read and the lost grants counted, side by side. */
async function answered<T>(services: Services, ctx: RequestContext, written: Written<unknown>, answer: (at: RequestContext) => Promise<T>): Promise<V1Written<T>> {
  await settled(services, written);
  const [value, parityLost] = await Promise.all([answer({ ...ctx, minRevision: written.revision }), services.parity?.afterV1Write(ctx, written)]);
  return { ...written, value, parityLost };
}

/** A role write's answer: the role as the transaction wrote it (not read again). */
const afterWrite = (services: Services, ctx: RequestContext, written: Written<Role>) => answered(services, ctx, written, (at) => v1RoleRecord(services, at, written.value));

export async function createV1Role(services: Services, ctx: RequestContext, body: V1RoleBody): Promise<V1Written<V1RoleRecord>> {
  await requireOnTenant(services, ctx, "rbac_roles_write");
  await refuseInV2Mode(services, ctx, V1_ROLE_WRITE_BLOCKED);
  const input = await roleWrite(services, ctx, body);
  const written = await services.store.v1Writes
    .createRole(ctx.tenant.orgId, input, (r) => audit.created(ctx, "role", r))
    .catch(v1Blocked(V1_ROLE_WRITE_BLOCKED))
    .catch(roleNameRefused("v1"));
  return afterWrite(services, ctx, written);
}

async function loadRoleForWrite(services: Services, ctx: RequestContext, id: string): Promise<Role> {
  return services.store.roles.get(ctx.tenant.orgId, requireUuidParam(id)).catch(roleNotFound);
}

export async function updateV1Role(services: Services, ctx: RequestContext, id: string, body: V1RoleBody): Promise<V1Written<V1RoleRecord>> {
  await requireOnTenant(services, ctx, "rbac_roles_write");
  await refuseInV2Mode(services, ctx, V1_ROLE_WRITE_BLOCKED);
  requireUuidParam(id);
  // As upstream: the body is validated before the role is looked up.
  const input = await roleWrite(services, ctx, body);
  const before = await loadRoleForWrite(services, ctx, id);
  requireUpdatable(before, "role.update");
  const written = await services.store.v1Writes
    .updateRole(ctx.tenant.orgId, before.id, input, () => audit.edited(ctx, "role", before, { name: body.name, display_name: body.displayName, description: body.description, access: body.access }))
    .catch(v1Blocked(V1_ROLE_WRITE_BLOCKED))
    .catch(roleNameRefused("v1"))
    .catch(roleNotFound);
  return afterWrite(services, ctx, written);
}

/** PATCH: name, display name and description only; the access list stays. */
export async function patchV1Role(services: Services, ctx: RequestContext, id: string, body: V1RolePatchBody): Promise<V1Written<V1RoleRecord>> {
  await requireOnTenant(services, ctx, "rbac_roles_write");
  await refuseInV2Mode(services, ctx, V1_ROLE_WRITE_BLOCKED);
  const before = await loadRoleForWrite(services, ctx, id);
  requireUpdatable(before, "role.update");
  const access = (await services.store.v1.accessOf([before.id])).get(before.id) ?? [];
  const name = body.name ?? before.name;
  const displayName = body.displayName ?? before.displayName ?? before.name;
  const description = body.description;
  const { placed, targets } = placement(access);
  const input: V1RoleWrite = { name, displayName, description: description === undefined ? before.description : description, access, scope: placed.level, targets };
  const written = await services.store.v1Writes
    .updateRole(ctx.tenant.orgId, before.id, input, () => audit.edited(ctx, "role", before, { name, display_name: displayName, description: input.description }))
    .catch(v1Blocked(V1_ROLE_WRITE_BLOCKED))
    .catch(roleNameRefused("v1"))
    .catch(roleNotFound);
  return afterWrite(services, ctx, written);
}

export async function deleteV1Role(services: Services, ctx: RequestContext, id: string): Promise<V1Written<{ id: string }>> {
  await requireOnTenant(services, ctx, "rbac_roles_write");
  await refuseInV2Mode(services, ctx, V1_ROLE_WRITE_BLOCKED);
  const before = await loadRoleForWrite(services, ctx, id);
  if (before.kind !== "custom") throw invalid("System roles cannot be deleted.", "role");
  const written = await services.store.v1Writes
    .deleteRole(ctx.tenant.orgId, before.id, (r) => audit.deleted(ctx, "role", r))
    .catch(v1Blocked(V1_ROLE_WRITE_BLOCKED))
    .catch(roleNotFound);
  return answered(services, ctx, written, async () => ({ id: before.id }));
}

/** The admin-default group's roles are the platform's; upstream's words. */
function protectAdminDefault(group: Group): void {
  if (group.kind === "admin-default") throw invalid("Default admin access cannot be modified.", "group");
}

/**
 * Roles named for a group, as upstream's `_roles_by_query_or_ids`: every id must be a UUID (400);
 * ids the organisation cannot see (unknown, another tenant's, platform parents) are left out, and
 * when none is left the answer is 404.
 */
async function rolesNamed(services: Services, ctx: RequestContext, ids: readonly string[]): Promise<Role[]> {
  const roles: Role[] = [];
  for (const id of new Set(ids.map((i) => i.toLowerCase()))) {
    const role = await services.store.roles.get(ctx.tenant.orgId, id).catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
    if (role && role.kind !== "platform") roles.push(role);
  }
  if (roles.length === 0) throw notFound();
  return roles;
}

/** Only org admins may put a role granting more than read on user access into a group (upstream's add_roles). */
async function protectEscalatingRoles(services: Services, ctx: RequestContext, roles: Role[]): Promise<void> {
  if (isAdmin(ctx)) return;
  if (
    await grantUserAccessAboveRead(
      services,
      roles.map((r) => r.id),
    )
  ) {
    throw invalid("Non org admin users are not allowed to add RBAC role with higher than 'read' permission into groups.", "add-roles");
  }
}

export async function addGroupRoles(services: Services, ctx: RequestContext, groupId: string, roleIds: readonly string[]): Promise<V1Written<{ data: V1RoleRecord[] }>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, groupId);
  await refuseInV2Mode(services, ctx, V1_GROUP_ROLES_BLOCKED);
  protectAdminDefault(group);
  await protectUserAccessAdminGroup(services, ctx, group, "add_role");
  const roles = await rolesNamed(services, ctx, roleIds);
  await protectEscalatingRoles(services, ctx, roles);
  const items = await Promise.all(roles.map(async (r) => ({ roleId: r.id, targets: await targetsOf(services, r) })));
  const written = await services.store.v1Writes
    .addGroupRoles(ctx.tenant.orgId, group.id, items, (added) =>
      audit.assigned(
        ctx,
        group,
        "role",
        added.map((r) => ({ id: r.id, name: r.name })),
        "add",
      ),
    )
    .catch(v1Blocked(V1_GROUP_ROLES_BLOCKED));
  return answered(services, ctx, written, async (at) => ({ data: await rolesOfGroupV1(services, at, group.id) }));
}

export async function removeGroupRoles(services: Services, ctx: RequestContext, groupId: string, roleIds: readonly string[]): Promise<V1Written<{ removed: number }>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, groupId);
  await refuseInV2Mode(services, ctx, V1_GROUP_ROLES_BLOCKED);
  protectAdminDefault(group);
  await protectUserAccessAdminGroup(services, ctx, group, "remove_role");
  const roles = await rolesNamed(services, ctx, roleIds);
  const written = await services.store.v1Writes
    .removeGroupRoles(
      ctx.tenant.orgId,
      group.id,
      roles.map((r) => r.id),
      (removed) =>
        audit.assigned(
          ctx,
          group,
          "role",
          removed.map((r) => ({ id: r.id, name: r.name })),
          "remove",
        ),
    )
    .catch(v1Blocked(V1_GROUP_ROLES_BLOCKED));
  return answered(services, ctx, written, async () => ({ removed: written.value.length }));
}

/** PUT /groups/{uuid}/: name and description of a standard group. */
export async function updateGroup(services: Services, ctx: RequestContext, groupId: string, body: V1GroupUpdateBody): Promise<Written<GroupRecord>> {
  await requireOnTenant(services, ctx, "rbac_groups_write");
  const group = await loadGroup(services, ctx, groupId);
  await protectDefaultGroup(services, ctx, group, "update");
  await protectUserAccessAdminGroup(services, ctx, group, "update_group");
  const { name, description } = body;
  const written = await services.store.v1Writes
    .updateGroup(ctx.tenant.orgId, group.id, { name, description: description === undefined ? group.description : description }, () =>
      audit.edited(ctx, "group", group, { name, description: description === undefined ? group.description : description }),
    )
    .catch((error: unknown) => {
      if (isStoreError(error, "duplicate-name")) throw invalid(`A group with the name '${echo(name)}' already exists.`, "name");
      throw error;
    });
  return { ...written, value: await groupRecord(services, ctx, written.value) };
}

export const forbiddenUnlessAdmin = (ctx: RequestContext) => {
  if (!isAdmin(ctx)) throw forbidden();
};
