// Role bindings: one row per (role, resource) with a set of subjects (groups, principals), plus
// the tuples `<resource>#t_binding@rbac/role_binding:<b>`, `<b>#t_role@rbac/role:<r>` and
// `<b>#t_subject@<subject>`.
import { randomUUID } from "node:crypto";
import type { StoreContext } from "../context.js";
import type { Queryable } from "../db/db.js";
import { StoreError } from "../errors.js";
import { listPage } from "../list-page.js";
import { bindingRole, bindingSubject, resourceBinding } from "../relationships.js";
import type { BindingResource, BindingSubject, BoundSubject, Page, RoleBinding, RoleBindingGrant, RoleBindingListItem, RoleBindingListQuery, RoleBindingRepository, RoleScope } from "../types.js";
import { pageBounds, requireOrgId, requireUuid } from "../validate.js";
import { EXPIRES_MS, requireTenantRow, runWrite, type TenantRow, type WriteContext } from "../write.js";
import { loadRole, loadWorkspace } from "./loaders.js";
import { ensureV2WriteActivated } from "./org-mode.js";
import { dropGroupFromPartAt, partBindings, partRolesOfGroupAt } from "./v1-role-parts.js";

export interface BindingRow {
  id: string;
  org_id: string;
  role_id: string;
  resource_type: "workspace" | "tenant";
  resource_id: string;
  created_at: Date;
  modified_at: Date;
  [k: string]: unknown;
}

const levelName: Record<RoleScope, string> = { default: "Default Workspace", root: "Root Workspace", tenant: "Organization" };

/** Checks the resource exists in the tenant and returns the level a role bound there must have. */
export async function resolveResource(tx: Queryable, tenant: TenantRow, resource: BindingResource): Promise<{ resource: BindingResource; level: RoleScope }> {
  if (resource?.type === "tenant") {
    if (typeof resource.id !== "string" || resource.id.length === 0) throw new StoreError("invalid-argument", "The tenant resource id is required.", "resource.id");
    if (resource.id === tenant.tenant_id) return { resource: { type: "tenant", id: resource.id }, level: "tenant" };
    const [other] = await tx.query("SELECT 1 FROM gh_tenants WHERE tenant_id = $1", [resource.id]);
    if (other) throw new StoreError("cross-tenant", `Tenant '${resource.id}' does not exist.`, "resource.id");
    throw new StoreError("not-found", `Tenant '${resource.id}' does not exist.`, "resource.id");
  }
  if (resource?.type === "workspace") {
    const ws = await loadWorkspace(tx, tenant.org_id, requireUuid(resource.id, "resource.id"), "resource.id");
    return { resource: { type: "workspace", id: ws.id }, level: ws.type === "root" ? "root" : "default" };
  }
  throw new StoreError("invalid-argument", `Unknown resource type '${String(resource?.type)}'.`, "resource.type");
}

/** The organisation level a resource is (the tenant, the Root or the Default Workspace), if any. */
function levelOfResource(tenant: TenantRow, resource: BindingResource): RoleScope | undefined {
  if (resource.type === "tenant") return "tenant";
  if (resource.id === tenant.root_workspace_id) return "root";
  if (resource.id === tenant.default_workspace_id) return "default";
  return undefined;
}

export async function resolveSubject(tx: Queryable, orgId: string, subject: BindingSubject): Promise<BindingSubject> {
  if (subject?.type === "group") {
    const id = requireUuid(subject.id, "subject.id");
    const [row] = await tx.query<{ org_id: string }>("SELECT org_id FROM gh_groups WHERE id = $1", [id]);
    if (!row) throw new StoreError("not-found", `Group '${id}' does not exist.`, "subject.id");
    if (row.org_id !== orgId) throw new StoreError("cross-tenant", `Group '${id}' does not exist.`, "subject.id");
    return { type: "group", id };
  }
  if (subject?.type === "principal") {
    if (typeof subject.id !== "string") throw new StoreError("invalid-argument", "The principal id is required.", "subject.id");
    const [row] = await tx.query("SELECT 1 FROM gh_principals WHERE org_id = $1 AND user_id = $2", [orgId, subject.id]);
    if (!row) throw new StoreError("not-found", `Principal '${subject.id}' does not exist.`, "subject.id");
    return { type: "principal", id: subject.id };
  }
  throw new StoreError("invalid-argument", `Unknown subject type '${String(subject?.type)}'.`, "subject.type");
}

/** The role must be assignable (custom or seeded) and scoped for the resource's level. */
export async function resolveAssignableRole(tx: Queryable, orgId: string, roleId: string, level: RoleScope, field: string): Promise<string> {
  const role = await loadRole(tx, orgId, requireUuid(roleId, field), field);
  if (role.kind === "platform") throw new StoreError("not-assignable", `Role '${role.id}' is a default parent role and cannot be bound.`, field);
  if (role.scope !== level) {
    throw new StoreError("not-assignable", `Role '${role.name}' is not scoped for this resource (${levelName[level]}).`, field);
  }
  return role.id;
}

/** One grant: role R given to subject S on resource W, optionally until `expiresAt`. */
export interface RoleGrant {
  roleId: string;
  resource: BindingResource;
  subject: BindingSubject;
  expiresAt?: Date | undefined;
}

/**
 * The one rule of "grant role R to subject S on resource W", for every writer (v2 bindings, the v1
 * writes' dual write, the import, cross-account grants), inside the caller's transaction: the
 * (role, resource) binding is found or created (one row per pair, its `t_binding` and `t_role`
 * tuples), then the subjects are added in one statement. A subject already granted there is kept;
 * written again it takes the new expiry (none = never expires). Only rows that are new or whose
 * expiry changed imply a tuple write and touch the binding's modified time. Returns each grant's
 * binding id, in order, and how many subject rows were added or renewed.
 */
export async function grantRoles(ctx: StoreContext, w: WriteContext, orgId: string, grants: readonly RoleGrant[]): Promise<{ bindingIds: string[]; added: number }> {
  const bindingOf = new Map<string, string>();
  const bindingIds: string[] = [];
  for (const { roleId, resource } of grants) {
    const key = `${roleId}:${resource.type}:${resource.id}`;
    let id = bindingOf.get(key);
    if (id === undefined) {
      id = await findOrCreateBinding(ctx, w, orgId, roleId, resource);
      bindingOf.set(key, id);
    }
    bindingIds.push(id);
  }
  if (grants.length === 0) return { bindingIds, added: 0 };
  const inserted = await w.tx.query<{ binding_id: string; subject_type: BindingSubject["type"]; subject_id: string; expires_ms: string | null }>(
    `INSERT INTO gh_role_binding_subjects AS s (org_id, binding_id, subject_type, subject_id, expires_at)
     SELECT DISTINCT ON (b, t, x.s) $1, b, t, x.s, to_timestamp(ms::double precision / 1000)
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::bigint[]) AS x(b, t, s, ms)
     ON CONFLICT (binding_id, subject_type, subject_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
       WHERE s.expires_at IS DISTINCT FROM EXCLUDED.expires_at
     RETURNING binding_id, subject_type, subject_id, ${EXPIRES_MS}`,
    [orgId, bindingIds, grants.map((g) => g.subject.type), grants.map((g) => g.subject.id), grants.map((g) => (g.expiresAt ? String(g.expiresAt.getTime()) : null))],
  );
  await w.touch(
    inserted.map((r) => {
      const tuple = bindingSubject(r.binding_id, { type: r.subject_type, id: r.subject_id }, ctx.domain);
      return r.expires_ms == null ? tuple : { ...tuple, expiresAt: Number(r.expires_ms) };
    }),
  );
  const touched = [...new Set(inserted.map((r) => r.binding_id))];
  if (touched.length > 0) {
    await w.tx.query("UPDATE gh_role_bindings SET modified_at = clock_timestamp() WHERE id = ANY($1::uuid[])", [touched]);
  }
  return { bindingIds, added: inserted.length };
}

/** A grant's expiry must lie ahead of the write (a past one would grant nothing). */
export function requireFutureExpiry(expiresAt: unknown, field: string, now: number): Date | undefined {
  if (expiresAt === undefined) return undefined;
  if (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime())) throw new StoreError("invalid-argument", "The expiry must be a valid time.", field);
  if (expiresAt.getTime() <= now) throw new StoreError("invalid-argument", "The expiry must be in the future.", field);
  return expiresAt;
}

export async function findOrCreateBinding(ctx: StoreContext, w: WriteContext, orgId: string, roleId: string, resource: BindingResource): Promise<string> {
  const [found] = await w.tx.query<{ id: string }>("SELECT id FROM gh_role_bindings WHERE org_id = $1 AND role_id = $2 AND resource_type = $3 AND resource_id = $4", [
    orgId,
    roleId,
    resource.type,
    resource.id,
  ]);
  if (found) return found.id;
  const id = randomUUID();
  await w.tx.query("INSERT INTO gh_role_bindings (id, org_id, role_id, resource_type, resource_id) VALUES ($1, $2, $3, $4, $5)", [id, orgId, roleId, resource.type, resource.id]);
  await w.touch([resourceBinding(resource, id), bindingRole(id, roleId)]);
  return id;
}

/** Removes one subject from a binding; a binding left without subjects is deleted. */
export async function removeSubject(ctx: StoreContext, w: WriteContext, orgId: string, binding: BindingRow, subject: BindingSubject): Promise<void> {
  await w.tx.query("DELETE FROM gh_role_binding_subjects WHERE binding_id = $1 AND subject_type = $2 AND subject_id = $3", [binding.id, subject.type, subject.id]);
  await w.remove([bindingSubject(binding.id, subject, ctx.domain)]);
  const [left] = await w.tx.query<{ n: number }>("SELECT count(*)::int AS n FROM gh_role_binding_subjects WHERE binding_id = $1", [binding.id]);
  if ((left?.n ?? 0) === 0) await deleteBindingRow(w, binding, []);
  else await w.tx.query("UPDATE gh_role_bindings SET modified_at = clock_timestamp() WHERE id = $1", [binding.id]);
}

async function deleteBindingRow(w: WriteContext, b: BindingRow, subjectTuples: ReturnType<typeof bindingSubject>[]): Promise<void> {
  const resource: BindingResource = { type: b.resource_type, id: b.resource_id };
  await w.tx.query("DELETE FROM gh_role_binding_subjects WHERE binding_id = $1", [b.id]);
  await w.tx.query("DELETE FROM gh_role_bindings WHERE id = $1", [b.id]);
  await w.remove([resourceBinding(resource, b.id), bindingRole(b.id, b.role_id), ...subjectTuples]);
}

/** Deletes every binding of the tenant matching `condition` (over alias `b`, `$1` = org id). */
export async function deleteBindingsWhere(ctx: StoreContext, w: WriteContext, orgId: string, condition: string, params: unknown[]): Promise<void> {
  const rows = await w.tx.query<BindingRow>(`SELECT b.* FROM gh_role_bindings b WHERE b.org_id = $1 AND ${condition}`, [orgId, ...params]);
  for (const b of rows) {
    const subjects = await subjectsOf(w.tx, b.id);
    await deleteBindingRow(
      w,
      b,
      subjects.map((s) => bindingSubject(b.id, s, ctx.domain)),
    );
  }
}

export function deleteBindingsOfResource(ctx: StoreContext, w: WriteContext, orgId: string, resource: BindingResource): Promise<void> {
  return deleteBindingsWhere(ctx, w, orgId, "b.resource_type = $2 AND b.resource_id = $3", [resource.type, resource.id]);
}

/** Removes a subject (group or principal) from every binding of the tenant. */
export async function removeSubjectEverywhere(ctx: StoreContext, w: WriteContext, orgId: string, subject: BindingSubject): Promise<void> {
  const rows = await w.tx.query<BindingRow>(
    `SELECT b.* FROM gh_role_bindings b JOIN gh_role_binding_subjects s ON s.binding_id = b.id
     WHERE b.org_id = $1 AND s.subject_type = $2 AND s.subject_id = $3`,
    [orgId, subject.type, subject.id],
  );
  for (const b of rows) await removeSubject(ctx, w, orgId, b, subject);
}

async function subjectsOf(tx: Queryable, bindingId: string): Promise<BindingSubject[]> {
  const rows = await tx.query<{ subject_type: BindingSubject["type"]; subject_id: string }>(
    "SELECT subject_type, subject_id FROM gh_role_binding_subjects WHERE binding_id = $1 ORDER BY subject_type, subject_id",
    [bindingId],
  );
  return rows.map((r) => ({ type: r.subject_type, id: r.subject_id }));
}

async function toBindings(tx: Queryable, rows: BindingRow[]): Promise<RoleBinding[]> {
  if (rows.length === 0) return [];
  const subjects = await tx.query<{ binding_id: string; subject_type: BindingSubject["type"]; subject_id: string; expires_at: Date | string | null }>(
    "SELECT binding_id, subject_type, subject_id, expires_at FROM gh_role_binding_subjects WHERE binding_id = ANY($1::uuid[]) ORDER BY subject_type, subject_id",
    [rows.map((r) => r.id)],
  );
  const byBinding = new Map<string, BoundSubject[]>();
  for (const s of subjects) {
    const list = byBinding.get(s.binding_id) ?? [];
    list.push(s.expires_at == null ? { type: s.subject_type, id: s.subject_id } : { type: s.subject_type, id: s.subject_id, expiresAt: new Date(s.expires_at) });
    byBinding.set(s.binding_id, list);
  }
  return rows.map((r) => ({
    id: r.id,
    orgId: r.org_id,
    roleId: r.role_id,
    resource: { type: r.resource_type, id: r.resource_id },
    subjects: byBinding.get(r.id) ?? [],
    created: r.created_at,
    modified: r.modified_at,
  }));
}

/** Ids of the groups a principal belongs to: explicit memberships and the default groups. */
export async function groupIdsOf(tx: Queryable, orgId: string, userId: string): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `SELECT group_id AS id FROM gh_group_members WHERE org_id = $1 AND user_id = $2
     UNION SELECT g.id FROM gh_groups g JOIN gh_principals p ON p.org_id = g.org_id AND p.user_id = $2
       WHERE g.org_id = $1 AND (g.kind = 'platform-default' OR (g.kind = 'admin-default' AND p.is_org_admin))`,
    [orgId, userId],
  );
  return rows.map((r) => r.id);
}

export function roleBindingRepository(ctx: StoreContext): RoleBindingRepository {
  async function loadBindingsOn(tx: Queryable, orgId: string, resource: BindingResource, subject: BindingSubject): Promise<BindingRow[]> {
    return tx.query<BindingRow>(
      `SELECT b.* FROM gh_role_bindings b JOIN gh_role_binding_subjects s ON s.binding_id = b.id
       WHERE b.org_id = $1 AND b.resource_type = $2 AND b.resource_id = $3 AND s.subject_type = $4 AND s.subject_id = $5
       ORDER BY b.created_at, b.id`,
      [orgId, resource.type, resource.id, subject.type, subject.id],
    );
  }

  return {
    async batchCreate(orgId, grants: RoleBindingGrant[]) {
      requireOrgId(orgId);
      if (!Array.isArray(grants) || grants.length < 1 || grants.length > 100) {
        throw new StoreError("invalid-argument", "Between 1 and 100 role binding requests are required.", "requests");
      }
      return runWrite(ctx, orgId, "batch_create_role_binding", async (w) => {
        // A v2 role-binding write: the organisation's first one puts it in v2 mode (upstream's rule).
        await ensureV2WriteActivated(w, orgId);
        const tenant = await requireTenantRow(w.tx, orgId);
        // A batch usually repeats resources and roles: resolve each distinct one once.
        const memo = new Map<string, Promise<unknown>>();
        const once = <T>(key: string, f: () => Promise<T>): Promise<T> => {
          if (!memo.has(key)) memo.set(key, f());
          return memo.get(key) as Promise<T>;
        };
        const resolved: RoleGrant[] = [];
        for (const [i, g] of grants.entries()) {
          const expiresAt = requireFutureExpiry(g?.expiresAt, `requests[${i}].expires_at`, ctx.now());
          const { resource, level } = await once(`r:${g?.resource?.type}:${g?.resource?.id}`, () => resolveResource(w.tx, tenant, g?.resource));
          const subject = await once(`s:${g.subject?.type}:${g.subject?.id}`, () => resolveSubject(w.tx, orgId, g.subject));
          const roleId = await once(`role:${g.roleId}:${level}`, () => resolveAssignableRole(w.tx, orgId, g.roleId, level, `requests[${i}].role.id`));
          resolved.push({ roleId, resource, subject, expiresAt });
        }
        const { bindingIds } = await grantRoles(ctx, w, orgId, resolved);
        const rows = await w.tx.query<BindingRow>("SELECT * FROM gh_role_bindings WHERE id = ANY($1::uuid[])", [bindingIds]);
        const byId = new Map((await toBindings(w.tx, rows)).map((b) => [b.id, b]));
        return bindingIds.map((id) => byId.get(id)!);
      });
    },

    async list(orgId, query: RoleBindingListQuery = {}): Promise<Page<RoleBindingListItem>> {
      requireOrgId(orgId);
      const params: unknown[] = [orgId];
      const where = ["b.org_id = $1"];
      const add = (clause: (p: string) => string, value: unknown) => {
        params.push(value);
        where.push(clause(`$${params.length}`));
      };
      // The same filters over the v1 role parts, when asked for (they are not rows).
      const partFilters: ((item: RoleBindingListItem) => boolean)[] = [];
      if (query.resource) {
        const tenant = await ctx.db.query<TenantRow>("SELECT * FROM gh_tenants WHERE org_id = $1", [orgId]);
        if (!tenant[0]) return { data: [], count: 0 };
        const { resource } = await resolveResource(ctx.db, tenant[0], query.resource);
        const targets: BindingResource[] = [resource];
        if (query.includeInherited && resource.type === "workspace") {
          const ancestors = await ctx.db.query<{ id: string }>(
            `WITH RECURSIVE up(id, parent_id) AS (
               SELECT id, parent_id FROM gh_workspaces WHERE org_id = $1 AND id = $2
               UNION ALL SELECT w.id, w.parent_id FROM gh_workspaces w JOIN up ON w.id = up.parent_id AND w.org_id = $1
             ) SELECT id FROM up`,
            [orgId, resource.id],
          );
          targets.push(...ancestors.filter((a) => a.id !== resource.id).map((a) => ({ type: "workspace" as const, id: a.id })));
          targets.push({ type: "tenant", id: tenant[0].tenant_id });
        }
        const keys = targets.map((t) => `${t.type}:${t.id}`);
        add((p) => `(b.resource_type || ':' || b.resource_id) = ANY(${p}::text[])`, keys);
        partFilters.push((item) => keys.includes(`${item.resource.type}:${item.resource.id}`));
      }
      if (query.roleId !== undefined) {
        const roleId = requireUuid(query.roleId, "role_id");
        add((p) => `b.role_id = ${p}::uuid`, roleId);
        partFilters.push((item) => item.roleId === roleId);
      }
      if (query.subject) {
        if (query.subject.type !== "group" && query.subject.type !== "principal") throw new StoreError("invalid-argument", "Unknown subject type.", "subject_type");
        params.push(query.subject.type, query.subject.id);
        where.push(`EXISTS (SELECT 1 FROM gh_role_binding_subjects s WHERE s.binding_id = b.id AND s.subject_type = $${params.length - 1} AND s.subject_id = $${params.length})`);
        const { type, id } = query.subject;
        partFilters.push((item) => item.subjects.some((s) => s.type === type && s.id === id));
      }
      if (query.grantedToPrincipal !== undefined) {
        const groups = await groupIdsOf(ctx.db, orgId, query.grantedToPrincipal);
        partFilters.push((item) => item.subjects.some((s) => s.type === "group" && groups.includes(s.id)));
        params.push(query.grantedToPrincipal, groups);
        where.push(
          `EXISTS (SELECT 1 FROM gh_role_binding_subjects s WHERE s.binding_id = b.id AND
             ((s.subject_type = 'principal' AND s.subject_id = $${params.length - 1}) OR (s.subject_type = 'group' AND s.subject_id = ANY($${params.length}::text[]))))`,
        );
      }
      const { limit, offset } = pageBounds(query.limit, query.offset);
      const filter = where.join(" AND ");
      if (query.includeV1Parts) {
        // Parts are few (one per mixed role and level): the page is cut after adding them.
        const rows = await ctx.db.query<BindingRow>(`SELECT b.* FROM gh_role_bindings b WHERE ${filter} ORDER BY b.created_at, b.id`, params);
        const parts = (await partBindings(ctx.db, orgId)).filter((item) => partFilters.every((f) => f(item)));
        const all = [...(await toBindings(ctx.db, rows)).map((b) => ({ ...b, source: b.resource })), ...parts];
        return { data: all.slice(offset, limit === null ? undefined : offset + limit), count: all.length };
      }
      const { rows, count } = await listPage<BindingRow>(ctx.db, "gh_role_bindings b", filter, params, "b.created_at, b.id", { limit, offset }, "b.*");
      const data = (await toBindings(ctx.db, rows)).map((b) => ({ ...b, source: b.resource }));
      return { data, count };
    },

    async get(orgId, id) {
      requireOrgId(orgId);
      const bindingId = requireUuid(id, "id");
      const rows = await ctx.db.query<BindingRow>("SELECT * FROM gh_role_bindings WHERE org_id = $1 AND id = $2", [orgId, bindingId]);
      const [binding] = await toBindings(ctx.db, rows);
      if (!binding) throw new StoreError("not-found", "No role binding matches the given query.", "id");
      return binding;
    },

    async rolesOfSubject(orgId, resource, subject) {
      requireOrgId(orgId);
      const rows = await loadBindingsOn(ctx.db, orgId, resource, subject);
      return rows.map((r) => r.role_id);
    },

    async removeExpired(now = new Date(ctx.now())) {
      const orgs = await ctx.db.query<{ org_id: string }>("SELECT DISTINCT org_id FROM gh_role_binding_subjects WHERE expires_at <= $1 ORDER BY org_id", [now]);
      let removed = 0;
      const revisions: number[] = [];
      for (const { org_id: orgId } of orgs) {
        const written = await runWrite(ctx, orgId, "expire_role_bindings", async (w) => {
          // Selected again under the tenant's write lock: a grant renewed meanwhile is kept.
          const rows = await w.tx.query<BindingRow & { subject_type: BindingSubject["type"]; subject_id: string }>(
            `SELECT b.*, s.subject_type, s.subject_id FROM gh_role_bindings b JOIN gh_role_binding_subjects s ON s.binding_id = b.id
             WHERE s.org_id = $1 AND s.expires_at <= $2`,
            [orgId, now],
          );
          for (const row of rows) await removeSubject(ctx, w, orgId, row, { type: row.subject_type, id: row.subject_id });
          if (rows.length === 0) w.markUnchanged();
          return rows.length;
        });
        removed += written.value;
        if (written.value > 0) revisions.push(written.revision);
      }
      return { removed, revisions };
    },

    async replaceRolesOfSubject(orgId, resourceIn, subjectIn, roleIds, options = {}) {
      requireOrgId(orgId);
      if (!Array.isArray(roleIds)) throw new StoreError("invalid-argument", "roles must be an array.", "roles");
      const expiresAt = requireFutureExpiry(options.expiresAt, "expires_at", ctx.now());
      const wanted = [...new Set(roleIds.map((r) => requireUuid(r, "roles")))];
      return runWrite(ctx, orgId, "update_role_bindings_for_subject", async (w) => {
        // A v2 role-binding write: the organisation's first one puts it in v2 mode (upstream's rule).
        await ensureV2WriteActivated(w, orgId);
        const tenant = await requireTenantRow(w.tx, orgId);
        const { resource, level } = await resolveResource(w.tx, tenant, resourceIn);
        const subject = await resolveSubject(w.tx, orgId, subjectIn);
        if (subject.type === "group" && subject.id === tenant.admin_default_group_id) {
          throw new StoreError("immutable", "Role bindings for the admin default group cannot be modified.", "subject.id");
        }
        const current = await loadBindingsOn(w.tx, orgId, resource, subject);
        // A v1 role's organisation-level part bound here for the group (listed as the role bound
        // here): named again, it stays as it is (never widened to the whole role); left out, the
        // group leaves it at this level.
        const partLevel = levelOfResource(tenant, resource);
        const parts = subject.type === "group" && partLevel ? await partRolesOfGroupAt(w.tx, orgId, partLevel, subject.id) : [];
        const keptParts = new Set(parts.filter((r) => wanted.includes(r) && !current.some((b) => b.role_id === r)));
        for (const roleId of wanted) if (!keptParts.has(roleId)) await resolveAssignableRole(w.tx, orgId, roleId, level, "roles");
        for (const b of current) {
          if (!wanted.includes(b.role_id)) await removeSubject(ctx, w, orgId, b, subject);
        }
        for (const roleId of parts) if (!wanted.includes(roleId) && partLevel) await dropGroupFromPartAt(w, orgId, roleId, subject.id, partLevel);
        // Kept roles are written again too: they take the request's expiry (or lose theirs).
        await grantRoles(
          ctx,
          w,
          orgId,
          wanted.filter((roleId) => !keptParts.has(roleId)).map((roleId) => ({ roleId, resource, subject, expiresAt })),
        );
        return { roleIds: wanted };
      });
    },
  };
}
