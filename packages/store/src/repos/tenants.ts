// Tenant bootstrap: one transaction creates the tenant row, root and default workspaces, the two
// default groups, the six default bindings, and every tuple they imply.
import { randomUUID } from "node:crypto";
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import { platformRoleFor, type DefaultAudience } from "../platform-roles.js";
import { bindingTuples, owner, tenantPlatform, tenantResourceId, workspaceParent } from "../relationships.js";
import type { BindingResource, RoleScope, Tenant, TenantRepository } from "../types.js";
import { requireOrgId } from "../validate.js";
import { runWrite, type TenantRow, type WriteContext } from "../write.js";

export const ROOT_WORKSPACE = { name: "Root Workspace", description: "The top-level workspace containing all other workspaces" };
export const DEFAULT_WORKSPACE = { name: "Default Workspace", description: "The default workspace for your organization" };
export const PLATFORM_DEFAULT_GROUP = { name: "Default access", description: "Every principal of the organization" };
export const ADMIN_DEFAULT_GROUP = { name: "Default admin access", description: "The organization administrators" };

export function tenantFromRow(r: TenantRow): Tenant {
  return {
    orgId: r.org_id,
    tenantId: r.tenant_id,
    rootWorkspaceId: r.root_workspace_id,
    defaultWorkspaceId: r.default_workspace_id,
    platformDefaultGroupId: r.platform_default_group_id,
    adminDefaultGroupId: r.admin_default_group_id,
    created: r.created_at,
  };
}

/**
 * Inside a write transaction of `orgId`: creates the tenant (root and default workspaces, the two
 * default groups, the six default bindings and their tuples) unless it exists.
 */
export async function bootstrapTenantRows(ctx: StoreContext, w: WriteContext, orgId: string): Promise<{ row: TenantRow; created: boolean }> {
  // Under the tenant lock: a concurrent bootstrap of the same org waits here and then
  // finds the finished tenant.
  const [existing] = await w.tx.query<TenantRow>("SELECT * FROM gh_tenants WHERE org_id = $1", [orgId]);
  if (existing) return { row: existing, created: false };
  const tenantId = tenantResourceId(ctx.domain, orgId);
  const ids = { root: randomUUID(), default: randomUUID(), users: randomUUID(), admins: randomUUID() };
  const [row] = await w.tx.query<TenantRow>(
    `INSERT INTO gh_tenants (org_id, tenant_id, root_workspace_id, default_workspace_id, platform_default_group_id, admin_default_group_id)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [orgId, tenantId, ids.root, ids.default, ids.users, ids.admins],
  );
  await w.tx.query(
    `INSERT INTO gh_workspaces (id, org_id, type, parent_id, name, description) VALUES
     ($1, $3, 'root', NULL, $4, $5), ($2, $3, 'default', $1, $6, $7)`,
    [ids.root, ids.default, orgId, ROOT_WORKSPACE.name, ROOT_WORKSPACE.description, DEFAULT_WORKSPACE.name, DEFAULT_WORKSPACE.description],
  );
  await w.tx.query(
    `INSERT INTO gh_groups (id, org_id, kind, name, description) VALUES
     ($1, $3, 'platform-default', $4, $5), ($2, $3, 'admin-default', $6, $7)`,
    [ids.users, ids.admins, orgId, PLATFORM_DEFAULT_GROUP.name, PLATFORM_DEFAULT_GROUP.description, ADMIN_DEFAULT_GROUP.name, ADMIN_DEFAULT_GROUP.description],
  );
  const tuples = [
    workspaceParent(ids.root, { type: "tenant", id: tenantId }),
    workspaceParent(ids.default, { type: "workspace", id: ids.root }),
    tenantPlatform(tenantId, ctx.platformId),
    owner("rbac/group", ids.users, tenantId),
    owner("rbac/group", ids.admins, tenantId),
  ];
  // Default access: each audience's platform parent role bound at each level, so a default
  // role reaches exactly the level its scope needs (spec: "default roles are bound at
  // several levels ... placed by the same highest-level rule").
  const levels: [RoleScope, BindingResource][] = [
    ["tenant", { type: "tenant", id: tenantId }],
    ["root", { type: "workspace", id: ids.root }],
    ["default", { type: "workspace", id: ids.default }],
  ];
  const audiences: [DefaultAudience, string][] = [
    ["user", ids.users],
    ["admin", ids.admins],
  ];
  for (const [audience, groupId] of audiences) {
    for (const [scope, resource] of levels) {
      const bindingId = randomUUID();
      const roleId = platformRoleFor(audience, scope).id;
      await w.tx.query("INSERT INTO gh_role_bindings (id, org_id, role_id, resource_type, resource_id) VALUES ($1, $2, $3, $4, $5)", [bindingId, orgId, roleId, resource.type, resource.id]);
      await w.tx.query("INSERT INTO gh_role_binding_subjects (org_id, binding_id, subject_type, subject_id) VALUES ($1, $2, 'group', $3)", [orgId, bindingId, groupId]);
      tuples.push(...bindingTuples(bindingId, roleId, resource, [{ type: "group", id: groupId }], ctx.domain));
    }
  }
  await w.touch(tuples);
  return { row: row!, created: true };
}

export function tenantRepository(ctx: StoreContext): TenantRepository {
  async function find(orgId: string): Promise<Tenant | undefined> {
    requireOrgId(orgId);
    const [row] = await ctx.db.query<TenantRow>("SELECT * FROM gh_tenants WHERE org_id = $1", [orgId]);
    return row ? tenantFromRow(row) : undefined;
  }

  return {
    find,
    async get(orgId) {
      const t = await find(orgId);
      if (!t) throw new StoreError("not-found", `Tenant for org '${orgId}' does not exist.`);
      return t;
    },
    async bootstrap(orgId) {
      requireOrgId(orgId);
      let created = false;
      const written = await runWrite(ctx, orgId, "bootstrap_tenant", async (w) => {
        const { row, created: isNew } = await bootstrapTenantRows(ctx, w, orgId);
        created = isNew;
        if (!isNew) w.markUnchanged();
        return tenantFromRow(row);
      });
      return { ...written, created };
    },
  };
}
