// v1 role and group writes (insights-rbac's /api/rbac/v1) with their dual write: the role row
// keeps the v1 access list, and in the SAME transaction every group holding the role is bound at
// the role's targets (organisation levels and inventory workspaces), so v2 checks grant what v1
// grants at every revision. Role writes are refused once the organisation is in v2 mode.
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import { owner, tenantResourceId } from "../relationships.js";
import type { AuditOf, BindingResource, BindingSubject, Group, Role, RoleScope, V1RoleTargets, V1RoleWrite, V1WriteRepository } from "../types.js";
import { optionalDescription, requireOrgId, requireUuid } from "../validate.js";
import { requireTenantRow, runWrite, type TenantRow, type WriteContext } from "../write.js";
import { recordAudit } from "./audit-log.js";
import { loadGroup, requireGroupName, toGroup } from "./groups.js";
import { loadRole, loadWorkspace, type RoleRow } from "./loaders.js";
import { platformRoleFor } from "../platform-roles.js";
import { assertV1WriteAllowed } from "./org-mode.js";
import { deleteBindingsWhere, grantRoles, removeSubject, type BindingRow } from "./role-bindings.js";
import { createCustomRole, customRoleForWrite, requirePermission, requireRoleName, requireScope, syncPermissionTuples, toRole, updateCustomRole } from "./roles.js";
import { dropGroupFromPart, syncRolePart } from "./v1-role-parts.js";

/** The groups holding the role: through any of its ordinary bindings, or held without one. */
export async function groupsHolding(w: WriteContext, orgId: string, roleId: string): Promise<string[]> {
  return [...new Set([...(await groupBindingsOf(w, orgId, roleId)).map((b) => b.subject_id), ...(await heldWithoutBinding(w, orgId, roleId))])];
}

/** Groups holding the role in v1 where it binds nowhere (gh_v1_held_roles). */
async function heldWithoutBinding(w: WriteContext, orgId: string, roleId: string, groupId?: string): Promise<string[]> {
  const rows = await w.tx.query<{ group_id: string }>("SELECT group_id::text FROM gh_v1_held_roles WHERE org_id = $1 AND role_id = $2 AND ($3::uuid IS NULL OR group_id = $3::uuid)", [
    orgId,
    roleId,
    groupId ?? null,
  ]);
  return rows.map((r) => r.group_id);
}

/**
 * Records whether the groups hold the role without a binding: a role whose targets resolve to no
 * resource (every group.id definition names a workspace the organisation does not have) grants
 * nothing in v2, yet v1 still lists it among the groups' roles; bound anywhere, the record goes.
 */
async function recordHeldWithoutBinding(w: WriteContext, orgId: string, roleId: string, groups: readonly string[], unbound: boolean): Promise<void> {
  if (groups.length === 0) return;
  if (unbound) {
    await w.tx.query("INSERT INTO gh_v1_held_roles (org_id, group_id, role_id) SELECT $1, g, $2 FROM unnest($3::uuid[]) AS g ON CONFLICT DO NOTHING", [orgId, roleId, [...groups]]);
  } else {
    await w.tx.query("DELETE FROM gh_v1_held_roles WHERE org_id = $1 AND role_id = $2 AND group_id = ANY($3::uuid[])", [orgId, roleId, [...groups]]);
  }
}

const levelResource = (tenant: TenantRow, level: RoleScope): BindingResource =>
  level === "tenant" ? { type: "tenant", id: tenant.tenant_id } : { type: "workspace", id: level === "root" ? tenant.root_workspace_id : tenant.default_workspace_id };

const resourceKey = (r: BindingResource) => `${r.type}:${r.id}`;

/**
 * The binding resources of a role's targets, every workspace checked to be the tenant's. With
 * `onUnknown` (the import), a workspace the tenant does not have is skipped and reported there
 * instead of failing the write: v1 grants nothing on a group that does not exist.
 */
export async function resolveTargets(w: WriteContext, tenant: TenantRow, targets: V1RoleTargets, onUnknown?: (id: string) => void): Promise<BindingResource[]> {
  const out = new Map<string, BindingResource>();
  for (const level of targets.levels) {
    const r = levelResource(tenant, requireScope(level));
    out.set(resourceKey(r), r);
  }
  for (const id of targets.workspaceIds) {
    const ws = await loadWorkspace(w.tx, tenant.org_id, requireUuid(id, "access"), "access").catch((e: unknown) => {
      if (onUnknown && e instanceof StoreError && (e.code === "not-found" || e.code === "cross-tenant")) return undefined;
      throw e;
    });
    if (!ws) onUnknown?.(id);
    else out.set(`workspace:${ws.id}`, { type: "workspace", id: ws.id });
  }
  if (targets.ungrouped) {
    const [ws] = await w.tx.query<{ id: string }>("SELECT id FROM gh_workspaces WHERE org_id = $1 AND type = 'ungrouped-hosts'", [tenant.org_id]);
    if (ws) out.set(`workspace:${ws.id}`, { type: "workspace", id: ws.id });
  }
  return [...out.values()];
}

/** Group subjects of every binding of the role, with the binding rows. */
async function groupBindingsOf(w: WriteContext, orgId: string, roleId: string, groupId?: string): Promise<(BindingRow & { subject_id: string })[]> {
  return w.tx.query<BindingRow & { subject_id: string }>(
    `SELECT b.*, s.subject_id FROM gh_role_bindings b JOIN gh_role_binding_subjects s ON s.binding_id = b.id AND s.subject_type = 'group'
     WHERE b.org_id = $1 AND b.role_id = $2 AND ($3::text IS NULL OR s.subject_id = $3)`,
    [orgId, roleId, groupId ?? null],
  );
}

/**
 * Binds the role to each group exactly at `resources`: bindings elsewhere are removed (a role whose
 * permissions changed its level moves), missing ones added; what is already in place is read once
 * and left alone. No resource: the groups keep the role in v1 only (recordHeldWithoutBinding).
 * Returns the groups holding the role (with `onlyGroup`: that group).
 */
export async function placeRole(ctx: StoreContext, w: WriteContext, orgId: string, roleId: string, resources: BindingResource[], onlyGroup?: string): Promise<string[]> {
  const current = await groupBindingsOf(w, orgId, roleId, onlyGroup);
  const held = await heldWithoutBinding(w, orgId, roleId, onlyGroup);
  const groups = new Set([...current.map((b) => b.subject_id), ...held]);
  if (onlyGroup) groups.add(onlyGroup);
  // Bound somewhere: only the groups recorded as holding it without a binding lose their record.
  await recordHeldWithoutBinding(w, orgId, roleId, resources.length === 0 ? [...groups] : held, resources.length === 0);
  const wanted = new Set(resources.map(resourceKey));
  const bound = new Set<string>();
  for (const b of current) {
    const key = resourceKey({ type: b.resource_type, id: b.resource_id });
    if (!wanted.has(key)) {
      await removeSubject(ctx, w, orgId, b, { type: "group", id: b.subject_id });
      continue;
    }
    bound.add(`${key} ${b.subject_id}`);
  }
  // The grants not yet in place, through the one grant path every writer takes.
  await grantRoles(
    ctx,
    w,
    orgId,
    resources.flatMap((resource) =>
      [...groups].filter((g) => !bound.has(`${resourceKey(resource)} ${g}`)).map((g) => ({ roleId, resource, subject: { type: "group", id: g } satisfies BindingSubject })),
    ),
  );
  return [...groups];
}

function validateRoleWrite(input: V1RoleWrite): V1RoleWrite & { permissions: string[] } {
  const name = requireRoleName(input?.name);
  if (!Array.isArray(input.access)) throw new StoreError("invalid-argument", "access must be an array.", "access");
  const permissions = [...new Set(input.access.map((a) => requirePermission(a?.permission, "access")))];
  const displayName = typeof input.displayName === "string" && input.displayName.length > 0 ? input.displayName : name;
  return { ...input, name, displayName, description: optionalDescription(input.description), scope: requireScope(input.scope), permissions };
}

/**
 * Removes one default role from the platform-default group (upstream: customising the default
 * group by removing a role). The group holds its default roles through the platform parent role of
 * their scope; that binding is replaced by one binding of each other default role of the scope, so
 * the group keeps exactly the rest. False when the group does not hold the role.
 */
async function unbindDefaultRole(ctx: StoreContext, w: WriteContext, orgId: string, groupId: string, role: RoleRow): Promise<boolean> {
  const tenant = await requireTenantRow(w.tx, orgId);
  const resource = levelResource(tenant, role.scope);
  const subject: BindingSubject = { type: "group", id: groupId };
  const parentId = platformRoleFor("user", role.scope).id;
  const [parent] = await w.tx.query<BindingRow>(
    `SELECT b.* FROM gh_role_bindings b JOIN gh_role_binding_subjects s ON s.binding_id = b.id AND s.subject_type = 'group' AND s.subject_id = $4
     WHERE b.org_id = $1 AND b.role_id = $2 AND b.resource_type = $3 AND b.resource_id = $5`,
    [orgId, parentId, resource.type, groupId, resource.id],
  );
  if (!parent) return false;
  await removeSubject(ctx, w, orgId, parent, subject);
  const others = await w.tx.query<{ id: string }>("SELECT id FROM gh_roles WHERE kind = 'seeded' AND platform_default AND scope = $1 AND id <> $2 ORDER BY id", [role.scope, role.id]);
  await grantRoles(
    ctx,
    w,
    orgId,
    others.map((other) => ({ roleId: other.id, resource, subject })),
  );
  return true;
}

export function v1WriteRepository(ctx: StoreContext): V1WriteRepository {
  return {
    async createRole(orgId, input, audit?: AuditOf<Role>) {
      requireOrgId(orgId);
      const role = validateRoleWrite(input);
      return runWrite(ctx, orgId, "v1_create_role", async (w) => {
        const tenant = await assertV1WriteAllowed(w, orgId);
        const row = await createCustomRole(w, ctx.domain, orgId, { ...role, v1Access: role.access });
        // Every workspace the role names is the organisation's (checked again under the lock).
        await resolveTargets(w, tenant, role.targets);
        const created = toRole(row);
        if (audit) await recordAudit(w, orgId, audit(created));
        return created;
      });
    },

    async updateRole(orgId, id, input, audit?: AuditOf<Role>) {
      requireOrgId(orgId);
      const role = validateRoleWrite(input);
      return runWrite(ctx, orgId, "v1_update_role", async (w) => {
        const tenant = await assertV1WriteAllowed(w, orgId);
        const { old, row } = await updateCustomRole(w, orgId, requireUuid(id, "uuid"), { ...role, v1Access: role.access }, { id: "uuid", immutable: "role" });
        // The role's groups follow its targets: a level change moves their bindings; a mixed role's
        // unlimited part follows them too.
        const holders = await placeRole(ctx, w, orgId, old.id, await resolveTargets(w, tenant, role.targets));
        await syncRolePart(w, tenant, ctx.domain, old.id, role.targets.unlimited, holders);
        const updated = toRole(row);
        if (audit) await recordAudit(w, orgId, audit(updated));
        return updated;
      });
    },

    async deleteRole(orgId, id, audit?: AuditOf<Role>) {
      requireOrgId(orgId);
      return runWrite(ctx, orgId, "v1_delete_role", async (w) => {
        const tenant = await assertV1WriteAllowed(w, orgId);
        const old = await customRoleForWrite(w.tx, orgId, requireUuid(id, "uuid"), "uuid", "System roles cannot be deleted.", "role");
        await syncRolePart(w, tenant, ctx.domain, old.id, undefined, []);
        await deleteBindingsWhere(ctx, w, orgId, "b.role_id = $2", [old.id]);
        await syncPermissionTuples(w, old.id, old.permissions, []);
        await w.remove([owner("rbac/role", old.id, tenantResourceId(ctx.domain, orgId))]);
        await w.tx.query("DELETE FROM gh_roles WHERE id = $1", [old.id]);
        const deleted = toRole(old);
        if (audit) await recordAudit(w, orgId, audit(deleted));
        return deleted;
      });
    },

    async addGroupRoles(orgId, groupId, roles, audit?: AuditOf<Role[]>) {
      requireOrgId(orgId);
      const gid = requireUuid(groupId, "uuid");
      return runWrite(ctx, orgId, "v1_add_group_roles", async (w) => {
        const tenant = await assertV1WriteAllowed(w, orgId);
        await loadGroup(w.tx, orgId, gid);
        const added: Role[] = [];
        for (const { roleId, targets } of roles) {
          const role = await loadRole(w.tx, orgId, requireUuid(roleId, "roles"), "roles");
          if (role.kind === "platform") throw new StoreError("not-assignable", `Role '${role.id}' is a default parent role and cannot be bound.`, "roles");
          // Adding keeps the group's other bindings of the role; its targets are added.
          const resources = await resolveTargets(w, tenant, targets);
          await grantRoles(
            ctx,
            w,
            orgId,
            resources.map((resource) => ({ roleId: role.id, resource, subject: { type: "group", id: gid } })),
          );
          // A group already bound elsewhere keeps those bindings; only a group bound nowhere holds the role without one.
          const boundElsewhere = resources.length === 0 && (await groupBindingsOf(w, orgId, role.id, gid)).length > 0;
          await recordHeldWithoutBinding(w, orgId, role.id, [gid], resources.length === 0 && !boundElsewhere);
          if (targets.unlimited) await syncRolePart(w, tenant, ctx.domain, role.id, targets.unlimited, await groupsHolding(w, orgId, role.id));
          added.push(toRole(role));
        }
        // The group's v1 policy exists from its first role on (upstream keeps it when the roles are removed).
        if (added.length > 0) await w.tx.query("UPDATE gh_groups SET modified_at = clock_timestamp(), v1_policy = true WHERE id = $1", [gid]);
        if (audit) await recordAudit(w, orgId, audit(added));
        return added;
      });
    },

    async removeGroupRoles(orgId, groupId, roleIds, audit?: AuditOf<Role[]>) {
      requireOrgId(orgId);
      const gid = requireUuid(groupId, "uuid");
      return runWrite(ctx, orgId, "v1_remove_group_roles", async (w) => {
        await assertV1WriteAllowed(w, orgId);
        const group = await loadGroup(w.tx, orgId, gid);
        const removed: Role[] = [];
        for (const roleId of roleIds) {
          const role = await loadRole(w.tx, orgId, requireUuid(roleId, "roles"), "roles");
          if (group.kind === "platform-default" && role.kind === "seeded" && role.platform_default) {
            if (await unbindDefaultRole(ctx, w, orgId, group.id, role)) removed.push(toRole(role));
            continue;
          }
          const bound = await groupBindingsOf(w, orgId, role.id, gid);
          for (const b of bound) await removeSubject(ctx, w, orgId, b, { type: "group", id: gid });
          await dropGroupFromPart(w, orgId, role.id, gid);
          const held = await w.tx.query("DELETE FROM gh_v1_held_roles WHERE org_id = $1 AND role_id = $2 AND group_id = $3 RETURNING 1", [orgId, role.id, gid]);
          if (bound.length > 0 || held.length > 0) removed.push(toRole(role));
        }
        if (removed.length > 0) await w.tx.query("UPDATE gh_groups SET modified_at = clock_timestamp() WHERE id = $1", [gid]);
        if (audit) await recordAudit(w, orgId, audit(removed));
        return removed;
      });
    },

    async restoreDefaultGroup(orgId, audit?: AuditOf<Group>) {
      requireOrgId(orgId);
      return runWrite(ctx, orgId, "v1_restore_default_group", async (w) => {
        const tenant = await assertV1WriteAllowed(w, orgId);
        const group = await loadGroup(w.tx, orgId, tenant.platform_default_group_id);
        const subject: BindingSubject = { type: "group", id: group.id };
        const wanted = new Map<string, string>((["tenant", "root", "default"] as const).map((level) => [`${resourceKey(levelResource(tenant, level))}|${platformRoleFor("user", level).id}`, level]));
        const current = await w.tx.query<BindingRow>(
          `SELECT b.* FROM gh_role_bindings b JOIN gh_role_binding_subjects s ON s.binding_id = b.id
           WHERE b.org_id = $1 AND s.subject_type = 'group' AND s.subject_id = $2`,
          [orgId, group.id],
        );
        const kept = new Set<string>();
        for (const b of current) {
          const key = `${b.resource_type}:${b.resource_id}|${b.role_id}`;
          if (wanted.has(key)) {
            kept.add(key);
            continue;
          }
          await removeSubject(ctx, w, orgId, b, subject);
          await dropGroupFromPart(w, orgId, b.role_id, group.id);
        }
        const missing = [...wanted].filter(([key]) => !kept.has(key)).map(([, level]) => level as RoleScope);
        await grantRoles(
          ctx,
          w,
          orgId,
          missing.map((level) => ({ roleId: platformRoleFor("user", level).id, resource: levelResource(tenant, level), subject })),
        );
        const [row] = await w.tx.query<Parameters<typeof toGroup>[0]>("UPDATE gh_groups SET modified_at = clock_timestamp() WHERE id = $1 RETURNING *", [group.id]);
        const restored = toGroup(row!);
        if (audit) await recordAudit(w, orgId, audit(restored));
        return restored;
      });
    },

    async updateGroup(orgId, groupId, input, audit?: AuditOf<Group>) {
      requireOrgId(orgId);
      const gid = requireUuid(groupId, "uuid");
      const name = requireGroupName(input?.name);
      const description = optionalDescription(input.description);
      // Groups are shared by v1 and v2 (upstream keeps the v1 group API in v2 mode): no mode check.
      return runWrite(ctx, orgId, "v1_update_group", async (w) => {
        const group = await loadGroup(w.tx, orgId, gid);
        if (group.kind !== "standard") throw new StoreError("immutable", "Default groups may not be updated.", "group");
        const clash = await w.tx.query("SELECT 1 FROM gh_groups WHERE org_id = $1 AND lower(name) = lower($2) AND id <> $3", [orgId, name, gid]);
        if (clash.length > 0) throw new StoreError("duplicate-name", `A group with the name '${name}' already exists.`, "name");
        const [row] = await w.tx.query<Parameters<typeof toGroup>[0]>("UPDATE gh_groups SET name = $2, description = $3, modified_at = clock_timestamp() WHERE id = $1 RETURNING *", [
          gid,
          name,
          description,
        ]);
        w.markUnchanged();
        const updated = toGroup(row!);
        if (audit) await recordAudit(w, orgId, audit(updated));
        return updated;
      });
    },
  };
}
