// Roles: public seeded roles (from the role configuration), the six platform parent roles, and
// per-tenant custom roles. Permissions are v1 strings; each implies a `rbac/role:<id>#t_<perm>`
// tuple on `rbac/principal:*`.
import { randomUUID } from "node:crypto";
import type { StoreContext } from "../context.js";
import type { Queryable } from "../db/db.js";
import { StoreError } from "../errors.js";
import { listPage } from "../list-page.js";
import { PLATFORM_ROLES } from "../platform-roles.js";
import { owner, roleChild, rolePermission, tenantResourceId } from "../relationships.js";
import { ROLE_CONFIG_CHANGE } from "../types.js";
import type { Page, Role, RoleInput, RoleListQuery, RoleRepository, RoleScope, SeedOptions, SeedReport, SystemRoleDefinition } from "../types.js";
import { namePattern, pageBounds, requireOrgId, requireUuid } from "../validate.js";
import { requireTenantRow, runWrite, type WriteContext } from "../write.js";
import { loadRole, type RoleRow } from "./loaders.js";
import { ensureV2WriteActivated } from "./org-mode.js";
import { deleteBindingsWhere } from "./role-bindings.js";

export const toRole = (r: RoleRow): Role => ({
  id: r.id,
  orgId: r.org_id,
  kind: r.kind,
  name: r.name,
  displayName: r.display_name,
  description: r.description,
  permissions: r.permissions,
  scope: r.scope,
  platformDefault: r.platform_default,
  adminDefault: r.admin_default,
  created: r.created_at,
  modified: r.modified_at,
});

const SCOPES: readonly RoleScope[] = ["default", "root", "tenant"];
const partRe = /^[A-Za-z0-9_.\- ]+$/;

/** `app:resource:verb`, where resource and verb may be the whole-part wildcard `*`. */
export function requirePermission(p: unknown, field = "permissions"): string {
  const parts = typeof p === "string" ? p.split(":") : [];
  const ok = parts.length === 3 && partRe.test(parts[0]!) && parts.slice(1).every((x) => x === "*" || partRe.test(x));
  if (!ok) throw new StoreError("invalid-argument", `Invalid permission '${String(p)}': expected application:resource_type:verb.`, field);
  return p as string;
}

export function requireScope(s: unknown): RoleScope {
  if (s === undefined) return "default";
  if (!SCOPES.includes(s as RoleScope)) throw new StoreError("invalid-argument", `Invalid role scope '${String(s)}'.`, "scope");
  return s as RoleScope;
}

export function requireRoleName(name: unknown): string {
  if (typeof name !== "string" || name.trim().length === 0) throw new StoreError("invalid-argument", "The role name is required.", "name");
  if (name.length > 175) throw new StoreError("invalid-argument", "The role name must be at most 175 characters.", "name");
  if (name.includes("*")) throw new StoreError("invalid-argument", "The role name may not contain '*'.", "name");
  return name.trim();
}

export function requirePermissions(perms: unknown): string[] {
  if (!Array.isArray(perms) || perms.length === 0) throw new StoreError("invalid-argument", "At least one permission is required.", "permissions");
  return [...new Set(perms.map((p) => requirePermission(p)))];
}

export async function syncPermissionTuples(w: WriteContext, roleId: string, before: string[], after: string[]): Promise<void> {
  const removed = before.filter((p) => !after.includes(p));
  const added = after.filter((p) => !before.includes(p));
  await w.remove(removed.map((p) => rolePermission(roleId, p)));
  await w.touch(added.map((p) => rolePermission(roleId, p)));
}

/** The words of the one rule that a system (seeded or platform) role is never updated, v1 and v2 alike. */
export const SYSTEM_ROLE_NOT_UPDATABLE = "System roles may not be updated.";

/** A role of the organisation loaded for a write: a system role is refused (`immutable`, `message`). */
export async function customRoleForWrite(tx: Queryable, orgId: string, id: string, field: string, message: string, immutableField = field): Promise<RoleRow> {
  const role = await loadRole(tx, orgId, id, field);
  if (role.kind !== "custom") throw new StoreError("immutable", message, immutableField);
  return role;
}

export interface CustomRoleRow {
  id?: string;
  name: string;
  /** v1's display name; absent on an update: the role keeps its own. */
  displayName?: string | null;
  description: string | null;
  scope: RoleScope;
  permissions: string[];
  /** The v1 access list (resource definitions included) a v1 write or an import keeps beside the permissions; absent on an update: kept. */
  v1Access?: unknown[] | null;
}

/** A custom role's new values on an update: what is absent (display name, v1 access, scope) is kept. */
export type CustomRoleChange = Omit<CustomRoleRow, "id" | "scope"> & { scope?: RoleScope | undefined };

/** What a custom role's name collides with under the name rule (`assertRoleNameFree`). */
export type RoleNameClash = "system-name" | "system-display-name" | "tenant";

/** A custom role's name refused by the name rule; each API words `clash` its own way. */
export class RoleNameTaken extends StoreError {
  constructor(
    readonly clash: RoleNameClash,
    readonly roleName: string,
    readonly displayName: string,
  ) {
    super(
      "duplicate-name",
      clash === "system-name"
        ? `Role name '${roleName}' conflicts with an existing system role.`
        : clash === "system-display-name"
          ? `Display name '${displayName}' conflicts with an existing system role.`
          : `A role with the name '${roleName}' already exists.`,
      clash === "system-display-name" ? "display_name" : "name",
    );
  }
}

/**
 * The one name rule of custom roles, v1 and v2 alike (case-insensitive): neither the name nor the
 * display name (a role without one shows its name) may be a system role's name or display name,
 * and no other role of the organisation may have the same name or the same display name.
 */
export async function assertRoleNameFree(tx: Queryable, orgId: string, name: string, displayName: string, exceptId: string | null): Promise<void> {
  const rows = await tx.query<{ org_id: string | null; name: string; display_name: string | null }>(
    `SELECT org_id, name, display_name FROM gh_roles WHERE (org_id = $1 OR org_id IS NULL) AND ($4::uuid IS NULL OR id <> $4::uuid)
       AND (lower(name) IN (lower($2), lower($3)) OR lower(coalesce(display_name, name)) IN (lower($2), lower($3)))`,
    [orgId, name, displayName, exceptId],
  );
  const same = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase();
  const system = rows.filter((r) => r.org_id === null);
  if (system.some((r) => same(r.name, name) || same(r.display_name, name))) throw new RoleNameTaken("system-name", name, displayName);
  if (system.some((r) => same(r.name, displayName) || same(r.display_name, displayName))) throw new RoleNameTaken("system-display-name", name, displayName);
  if (rows.some((r) => r.org_id !== null && (same(r.name, name) || same(r.display_name ?? r.name, displayName)))) throw new RoleNameTaken("tenant", name, displayName);
}

/** The one INSERT of a custom role (v2 and v1 creation, the migration's import), with its owner and permission tuples. */
export async function insertCustomRole(w: WriteContext, domain: string, orgId: string, role: CustomRoleRow): Promise<RoleRow> {
  const [row] = await w.tx.query<RoleRow>(
    `INSERT INTO gh_roles (id, org_id, kind, name, display_name, description, scope, permissions, v1_access)
     VALUES ($1, $2, 'custom', $3, $4, $5, $6, $7::text[], $8::jsonb) RETURNING *`,
    [role.id ?? randomUUID(), orgId, role.name, role.displayName ?? null, role.description, role.scope, role.permissions, role.v1Access == null ? null : JSON.stringify(role.v1Access)],
  );
  await w.touch([owner("rbac/role", row!.id, tenantResourceId(domain, orgId)), ...role.permissions.map((p) => rolePermission(row!.id, p))]);
  return row!;
}

/** A new custom role of the organisation, v1 or v2: the name rule, then the one INSERT. */
export async function createCustomRole(w: WriteContext, domain: string, orgId: string, role: CustomRoleRow): Promise<RoleRow> {
  await assertRoleNameFree(w.tx, orgId, role.name, role.displayName || role.name, null);
  return insertCustomRole(w, domain, orgId, role);
}

/** The one UPDATE of a custom role's row (v2 and v1 updates, the migration's import), with its permission tuples. */
export async function writeCustomRole(w: WriteContext, old: RoleRow, role: CustomRoleChange): Promise<RoleRow> {
  const displayName = role.displayName === undefined ? old.display_name : role.displayName;
  const v1Access = role.v1Access === undefined ? old.v1_access : role.v1Access;
  const [row] = await w.tx.query<RoleRow>(
    `UPDATE gh_roles SET name = $2, display_name = $3, description = $4, scope = $5, permissions = $6::text[], v1_access = $7::jsonb,
       modified_at = clock_timestamp() WHERE id = $1 RETURNING *`,
    [old.id, role.name, displayName, role.description, role.scope ?? old.scope, role.permissions, v1Access == null ? null : JSON.stringify(v1Access)],
  );
  await syncPermissionTuples(w, old.id, old.permissions, role.permissions);
  return row!;
}

/**
 * An update of a custom role, v1 or v2: the role loaded under the write's lock (a system role
 * refused, `customRoleForWrite`), the name rule for its new name and display name (kept when not
 * given), then the one UPDATE. Returns the row before and after.
 */
export async function updateCustomRole(w: WriteContext, orgId: string, id: string, role: CustomRoleChange, fields: { id: string; immutable: string }): Promise<{ old: RoleRow; row: RoleRow }> {
  const old = await customRoleForWrite(w.tx, orgId, id, fields.id, SYSTEM_ROLE_NOT_UPDATABLE, fields.immutable);
  const displayName = role.displayName === undefined ? old.display_name : role.displayName;
  await assertRoleNameFree(w.tx, orgId, role.name, displayName || role.name, old.id);
  return { old, row: await writeCustomRole(w, old, role) };
}

export function roleRepository(ctx: StoreContext): RoleRepository {
  return {
    async seedSystemRoles(defs: SystemRoleDefinition[], options: SeedOptions = {}) {
      if (!Array.isArray(defs)) throw new StoreError("invalid-argument", "roles must be an array.");
      const seen = new Set<string>();
      const input = defs.map((d, i) => {
        const name = requireRoleName(d?.name);
        if (seen.has(name.toLowerCase())) throw new StoreError("invalid-argument", `Duplicate role name '${name}'.`, `roles[${i}].name`);
        seen.add(name.toLowerCase());
        if (!Array.isArray(d.access)) throw new StoreError("invalid-argument", `Role '${name}' has no access list.`, `roles[${i}].access`);
        const permissions = [...new Set(d.access.map((a) => requirePermission(a?.permission, `roles[${i}].access`)))];
        const version = d.version ?? 1;
        if (!Number.isInteger(version) || version < 1) throw new StoreError("invalid-argument", `Role '${name}' has an invalid version.`, `roles[${i}].version`);
        return {
          name,
          displayName: d.display_name ?? null,
          description: d.description ?? null,
          platformDefault: d.platform_default === true,
          adminDefault: d.admin_default === true,
          scope: requireScope(d.scope),
          permissions,
          version,
        };
      });
      return runWrite(ctx, null, options.activate ? ROLE_CONFIG_CHANGE : "seed_system_roles", async (w) => {
        const existing = await w.tx.query<RoleRow>("SELECT * FROM gh_roles WHERE kind = 'seeded'");
        const byName = new Map(existing.map((r) => [r.name.toLowerCase(), r]));
        const clash = await w.tx.query<{ name: string }>("SELECT name FROM gh_roles WHERE kind <> 'seeded' AND org_id IS NULL AND lower(name) = ANY($1::text[])", [[...seen]]);
        if (clash.length > 0) throw new StoreError("duplicate-name", `Role name '${clash[0]!.name}' is reserved.`, "name");
        const report: SeedReport = { roles: [], created: [], updated: [], unchanged: [], unconfigured: [], changed: false };
        for (const [i, d] of input.entries()) {
          const old = byName.get(d.name.toLowerCase());
          byName.delete(d.name.toLowerCase());
          let row: RoleRow;
          let action: "created" | "updated" | "unchanged";
          if (old && old.version >= d.version) {
            row = old;
            action = "unchanged";
            report.unchanged.push(d.name);
          } else if (old) {
            [row] = (await w.tx.query<RoleRow>(
              `UPDATE gh_roles SET name = $2, display_name = $3, description = $4, platform_default = $5, admin_default = $6, scope = $7,
                 permissions = $8::text[], version = $9, modified_at = clock_timestamp() WHERE id = $1 RETURNING *`,
              [old.id, d.name, d.displayName, d.description, d.platformDefault, d.adminDefault, d.scope, d.permissions, d.version],
            )) as [RoleRow];
            await syncPermissionTuples(w, row.id, old.permissions, d.permissions);
            action = "updated";
            report.updated.push({ name: d.name, from: old.version, to: d.version });
          } else {
            [row] = (await w.tx.query<RoleRow>(
              `INSERT INTO gh_roles (id, org_id, kind, name, display_name, description, platform_default, admin_default, scope, permissions, version)
               VALUES ($1, NULL, 'seeded', $2, $3, $4, $5, $6, $7, $8::text[], $9) RETURNING *`,
              [randomUUID(), d.name, d.displayName, d.description, d.platformDefault, d.adminDefault, d.scope, d.permissions, d.version],
            )) as [RoleRow];
            await syncPermissionTuples(w, row.id, [], d.permissions);
            action = "created";
            report.created.push(d.name);
          }
          report.roles.push(toRole(row));
          options.onProgress?.(i + 1, input.length, d.name, action);
        }
        report.unconfigured = [...byName.values()].map((r) => r.name);
        if (options.activate) {
          const a = options.activate;
          await w.tx.query(
            `INSERT INTO gh_role_config (id, hash, dir, loaded_at, schema_zed) VALUES (true, $1, $2, $3, $4)
             ON CONFLICT (id) DO UPDATE SET hash = $1, dir = $2, loaded_at = $3, schema_zed = $4`,
            [a.hash, a.dir, a.loadedAt, a.schemaZed],
          );
        }
        report.changed = report.created.length > 0 || report.updated.length > 0 || options.activate !== undefined;
        if (!report.changed) {
          // Nothing to write: no tuples touched, no revision taken.
          w.markUnchanged();
          return report;
        }
        // Children of the platform parent roles follow the flags and scopes of every seeded role.
        const seeded = await w.tx.query<RoleRow>("SELECT * FROM gh_roles WHERE kind = 'seeded'");
        for (const parent of PLATFORM_ROLES) {
          const want = seeded.filter((r) => r.scope === parent.scope && (parent.audience === "user" ? r.platform_default : r.admin_default)).map((r) => roleChild(parent.id, r.id));
          const have = await w.tx.query<{ subject_id: string }>("SELECT subject_id FROM gh_tuples WHERE org_id = '' AND resource_type = 'rbac/role' AND resource_id = $1 AND relation = 't_child'", [
            parent.id,
          ]);
          const wanted = new Set(want.map((t) => t.subjectId));
          await w.remove(have.filter((h) => !wanted.has(h.subject_id)).map((h) => roleChild(parent.id, h.subject_id)));
          await w.touch(want);
        }
        return report;
      });
    },

    async create(orgId, input: RoleInput) {
      requireOrgId(orgId);
      const name = requireRoleName(input?.name);
      const permissions = requirePermissions(input.permissions);
      const scope = requireScope(input.scope);
      const description = input.description ?? null;
      return runWrite(ctx, orgId, "create_custom_role", async (w) => {
        // A v2 role write: the organisation's first one puts it in v2 mode (upstream's rule).
        await ensureV2WriteActivated(w, orgId);
        await requireTenantRow(w.tx, orgId);
        return toRole(await createCustomRole(w, ctx.domain, orgId, { name, description, scope, permissions }));
      });
    },

    async update(orgId, id, input: RoleInput) {
      requireOrgId(orgId);
      const roleId = requireUuid(id, "id");
      const name = requireRoleName(input?.name);
      const permissions = requirePermissions(input.permissions);
      const description = input.description ?? null;
      return runWrite(ctx, orgId, "update_custom_role", async (w) => {
        await ensureV2WriteActivated(w, orgId);
        const scope = input.scope === undefined ? undefined : requireScope(input.scope);
        const { row } = await updateCustomRole(w, orgId, roleId, { name, description, scope, permissions }, { id: "id", immutable: "id" });
        return toRole(row);
      });
    },

    async deleteMany(orgId, ids) {
      requireOrgId(orgId);
      if (!Array.isArray(ids) || ids.length === 0) throw new StoreError("invalid-argument", "At least one role id is required.", "ids");
      const roleIds = [...new Set(ids.map((i) => requireUuid(i, "ids")))];
      return runWrite(ctx, orgId, "delete_custom_roles", async (w) => {
        await ensureV2WriteActivated(w, orgId);
        const rows: RoleRow[] = [];
        for (const id of roleIds) rows.push(await loadRole(w.tx, orgId, id, "ids"));
        if (rows.some((r) => r.kind !== "custom")) throw new StoreError("immutable", "System roles may not be deleted.", "ids");
        for (const r of rows) {
          await deleteBindingsWhere(ctx, w, orgId, "b.role_id = $2", [r.id]);
          await syncPermissionTuples(w, r.id, r.permissions, []);
          await w.remove([owner("rbac/role", r.id, tenantResourceId(ctx.domain, orgId))]);
          await w.tx.query("DELETE FROM gh_roles WHERE id = $1", [r.id]);
        }
        return { ids: roleIds };
      });
    },

    async get(orgId, id) {
      requireOrgId(orgId);
      const roleId = requireUuid(id, "id");
      const [row] = await ctx.db.query<RoleRow>("SELECT * FROM gh_roles WHERE id = $2 AND (org_id = $1 OR org_id IS NULL)", [orgId, roleId]);
      if (!row) throw new StoreError("not-found", "No Role matches the given query.", "id");
      return toRole(row);
    },

    async list(orgId, query: RoleListQuery = {}): Promise<Page<Role>> {
      requireOrgId(orgId);
      const params: unknown[] = [orgId];
      const where = ["(org_id = $1 OR org_id IS NULL)"];
      const add = (clause: (p: string) => string, value: unknown) => {
        params.push(value);
        where.push(clause(`$${params.length}`));
      };
      const kinds = query.kinds ?? ["custom", "seeded"];
      add((p) => `kind = ANY(${p}::text[])`, kinds);
      if (query.name !== undefined && query.name !== "" && query.name !== "*") add((p) => `name ILIKE ${p}`, namePattern(query.name));
      if (query.permissions?.length)
        add(
          (p) => `permissions && ${p}::text[]`,
          query.permissions.map((x) => requirePermission(x)),
        );
      if (query.scope !== undefined) add((p) => `scope = ${p}`, requireScope(query.scope));
      if (query.ids !== undefined)
        add(
          (p) => `id = ANY(${p}::uuid[])`,
          query.ids.map((i) => requireUuid(i, "ids")),
        );
      const orderBy = query.orderBy ?? "name";
      const desc = orderBy.startsWith("-");
      const column = { name: "lower(name)", modified: "modified_at", created: "created_at" }[desc ? orderBy.slice(1) : orderBy];
      if (!column) throw new StoreError("invalid-argument", `Unknown order_by '${orderBy}'.`, "order_by");
      const { limit, offset } = pageBounds(query.limit, query.offset);
      const filter = where.join(" AND ");
      const { rows, count } = await listPage<RoleRow>(ctx.db, "gh_roles", filter, params, `${column} ${desc ? "DESC" : "ASC"}, id`, { limit, offset });
      return { data: rows.map(toRole), count };
    },

    async platformRoles() {
      const rows = await ctx.db.query<RoleRow>("SELECT * FROM gh_roles WHERE kind = 'platform' ORDER BY name");
      return rows.map(toRole);
    },
  };
}
