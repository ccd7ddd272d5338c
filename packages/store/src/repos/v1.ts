// Reads with insights-rbac's v1 semantics over the same rows the v2 API writes: a principal's
// groups (default groups as v1 has them) → the roles bound to them → each role's access list. A
// role a group holds without a binding (gh_v1_held_roles: it grants nothing in v2) is listed too,
// as held at the organisation: its v1 access list is shown as stored, as v1 shows it.
import type { StoreContext } from "../context.js";
import type { GroupRow } from "./groups.js";
import type { BindingResourceType, Group, V1AccessEntry, V1Grant, V1Repository } from "../types.js";
import { isUuid, requireOrgId } from "../validate.js";

/** A binding's role, or — for a platform parent role — each of its children (the default system roles). */
const EFFECTIVE_ROLE = `
  JOIN gh_roles r ON r.id = b.role_id
  LEFT JOIN gh_roles c ON r.kind = 'platform' AND c.kind = 'seeded' AND c.scope = r.scope
    AND ((r.platform_default AND c.platform_default) OR (r.admin_default AND c.admin_default))`;
const EFFECTIVE_ONLY = `(r.kind <> 'platform' OR c.id IS NOT NULL)`;

/** A group row with the role it is bound to. */
interface GroupRoleRow extends GroupRow {
  role_id: string;
}

const uuidList = (ids: string[]) => ids.filter((id) => isUuid(id)).map((id) => id.toLowerCase());

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((p) => y.has(p));
}

/** jsonb keeps no key order: entries come back in insights-rbac's field order. */
const ordered = (entry: V1AccessEntry): V1AccessEntry => ({
  permission: entry.permission,
  resourceDefinitions: (entry.resourceDefinitions ?? []).map((d) => ({
    attributeFilter: { key: d.attributeFilter.key, operation: d.attributeFilter.operation, value: d.attributeFilter.value },
  })),
});

export function v1Repository(ctx: StoreContext): V1Repository {
  return {
    async grantsOf(orgId, userId, query) {
      requireOrgId(orgId);
      const rows = await ctx.db.query<{ role_id: string; resource_type: BindingResourceType; resource_id: string }>(
        `WITH subj AS (
           SELECT 'group'::text AS t, g.id::text AS id FROM gh_groups g
           WHERE g.org_id = $1 AND (
             g.id IN (SELECT m.group_id FROM gh_group_members m WHERE m.org_id = $1 AND m.user_id = $2)
             OR (g.kind = 'platform-default' AND $3::boolean)
             OR (g.kind = 'admin-default' AND $3::boolean AND $4::boolean))
           UNION ALL SELECT 'principal', $2
         )
         SELECT DISTINCT coalesce(c.id, r.id)::text AS role_id, b.resource_type, b.resource_id
         FROM gh_role_bindings b
         JOIN gh_role_binding_subjects s ON s.binding_id = b.id
         JOIN subj ON subj.t = s.subject_type AND subj.id = s.subject_id
         ${EFFECTIVE_ROLE}
         WHERE b.org_id = $1 AND ${EFFECTIVE_ONLY}
         UNION
         SELECT h.role_id::text, 'tenant', t.tenant_id
         FROM gh_v1_held_roles h JOIN subj ON subj.t = 'group' AND subj.id = h.group_id::text
         JOIN gh_tenants t ON t.org_id = h.org_id
         WHERE h.org_id = $1
         ORDER BY 1, 2, 3`,
        [orgId, userId, query.defaultGroups, query.isOrgAdmin],
      );
      return rows.map((r): V1Grant => ({ roleId: r.role_id, resource: { type: r.resource_type, id: r.resource_id } }));
    },

    async accessOf(roleIds) {
      const ids = uuidList(roleIds);
      const out = new Map<string, V1AccessEntry[]>();
      if (ids.length === 0) return out;
      const rows = await ctx.db.query<{ id: string; permissions: string[]; v1_access: V1AccessEntry[] | null }>(
        "SELECT id::text AS id, permissions, v1_access FROM gh_roles WHERE id = ANY($1::uuid[])",
        [ids],
      );
      for (const row of rows) {
        const stored = Array.isArray(row.v1_access) ? row.v1_access : null;
        const usable =
          stored !== null &&
          sameSet(
            stored.map((a) => a.permission),
            row.permissions,
          );
        out.set(row.id, usable ? stored.map(ordered) : row.permissions.map((permission) => ({ permission, resourceDefinitions: [] })));
      }
      return out;
    },

    async groupsOfRoles(orgId, roleIds) {
      requireOrgId(orgId);
      const ids = uuidList(roleIds);
      const out = new Map<string, Group[]>();
      if (ids.length === 0) return out;
      const rows = await ctx.db.query<GroupRoleRow>(
        `SELECT DISTINCT coalesce(c.id, r.id)::text AS role_id, g.id::text AS id, g.org_id, g.kind, g.name, g.description, g.created_at, g.modified_at
         FROM gh_role_bindings b
         JOIN gh_role_binding_subjects s ON s.binding_id = b.id AND s.subject_type = 'group'
         JOIN gh_groups g ON g.org_id = b.org_id AND g.id::text = s.subject_id
         ${EFFECTIVE_ROLE}
         WHERE b.org_id = $1 AND ${EFFECTIVE_ONLY} AND coalesce(c.id, r.id) = ANY($2::uuid[])
         UNION
         SELECT h.role_id::text, g.id::text, g.org_id, g.kind, g.name, g.description, g.created_at, g.modified_at
         FROM gh_v1_held_roles h JOIN gh_groups g ON g.org_id = h.org_id AND g.id = h.group_id
         WHERE h.org_id = $1 AND h.role_id = ANY($2::uuid[])
         ORDER BY name`,
        [orgId, ids],
      );
      for (const r of rows) {
        const list = out.get(r.role_id) ?? [];
        list.push({ id: r.id, orgId: r.org_id, kind: r.kind, name: r.name, description: r.description, created: r.created_at, modified: r.modified_at });
        out.set(r.role_id, list);
      }
      return out;
    },

    async rolesOfGroup(orgId, groupId) {
      requireOrgId(orgId);
      if (!isUuid(groupId)) return [];
      const rows = await ctx.db.query<{ role_id: string }>(
        `SELECT DISTINCT coalesce(c.id, r.id)::text AS role_id
         FROM gh_role_bindings b
         JOIN gh_role_binding_subjects s ON s.binding_id = b.id AND s.subject_type = 'group' AND s.subject_id = $2
         ${EFFECTIVE_ROLE}
         WHERE b.org_id = $1 AND ${EFFECTIVE_ONLY}
         UNION SELECT role_id::text FROM gh_v1_held_roles WHERE org_id = $1 AND group_id = $2::uuid
         ORDER BY 1`,
        [orgId, groupId.toLowerCase()],
      );
      return rows.map((r) => r.role_id);
    },

    async groupsWithV1Policy(orgId) {
      requireOrgId(orgId);
      const rows = await ctx.db.query<{ id: string }>("SELECT id::text AS id FROM gh_groups WHERE org_id = $1 AND v1_policy", [orgId]);
      return new Set(rows.map((r) => r.id));
    },
  };
}
