// The unlimited part of a v1 role that mixes workspace-limited and unlimited access. Bound whole
// at an organisation level, such a role would grant its workspace-only permissions everywhere
// (an over-grant). So the role itself is bound on its workspaces only (ordinary bindings), and its
// unlimited permissions alone form a part `rbac/role:<role>_u`, bound for each group holding the
// role at the levels the migration rule gives (`rbac/role_binding:<role>_u_<level>`). The part lives
// in relationships only: v1 reads see the role and its groups through the ordinary bindings, v2
// checks see exactly what v1 grants. Every v1 write that changes the role or its groups rewrites
// the part in the same transaction.
import type { Queryable } from "../db/db.js";
import type { BindingResource, BindingSubject, Relationship, RoleBindingListItem, RoleScope } from "../types.js";
import { bindingTuples, permissionRelation, rolePermission, tupleKey } from "../relationships.js";
import { rowToRelationship, type TenantRow, type WriteContext } from "../write.js";

const ROLE_SCOPES: readonly RoleScope[] = ["tenant", "root", "default"];

export const partRoleId = (roleId: string): string => `${roleId}_u`;
const partBindingId = (roleId: string, level: RoleScope): string => `${partRoleId(roleId)}_${level}`;

const levelResource = (tenant: TenantRow, level: RoleScope): BindingResource =>
  level === "tenant" ? { type: "tenant", id: tenant.tenant_id } : { type: "workspace", id: level === "root" ? tenant.root_workspace_id : tenant.default_workspace_id };

/** Every stored tuple of the role's part: its permissions, its bindings and their subjects. */
async function storedPart(w: WriteContext, orgId: string, roleId: string): Promise<Relationship[]> {
  const part = partRoleId(roleId);
  const bindings = ROLE_SCOPES.map((l) => partBindingId(roleId, l));
  const rows = await w.tx.query<Parameters<typeof rowToRelationship>[0]>(
    `SELECT resource_type, resource_id, relation, subject_type, subject_id, subject_relation FROM gh_tuples
     WHERE org_id = $1 AND ((resource_type = 'rbac/role' AND resource_id = $2)
       OR (resource_type = 'rbac/role_binding' AND resource_id = ANY($3::text[]))
       OR (relation = 't_binding' AND subject_type = 'rbac/role_binding' AND subject_id = ANY($3::text[])))`,
    [orgId, part, bindings],
  );
  return rows.map(rowToRelationship);
}

/** Writes the difference between the stored part and `wanted`. */
async function rewrite(w: WriteContext, stored: Relationship[], wanted: Relationship[]): Promise<void> {
  const want = new Set(wanted.map(tupleKey));
  const have = new Set(stored.map(tupleKey));
  await w.remove(stored.filter((t) => !want.has(tupleKey(t))));
  await w.touch(wanted.filter((t) => !have.has(tupleKey(t))));
}

/**
 * Makes the role's part what `unlimited` says for `groups` (the groups holding the role); none
 * (the role is not mixed, or no group holds it) removes it.
 */
export async function syncRolePart(
  w: WriteContext,
  tenant: TenantRow,
  domain: string,
  roleId: string,
  unlimited: { levels: RoleScope[]; permissions: string[] } | undefined,
  groups: readonly string[],
): Promise<void> {
  const subjects: BindingSubject[] = [...new Set(groups)].sort().map((id) => ({ type: "group", id }));
  const wanted: Relationship[] =
    unlimited && subjects.length > 0
      ? [
          ...unlimited.permissions.map((p) => rolePermission(partRoleId(roleId), p)),
          ...[...new Set(unlimited.levels)].flatMap((l) => bindingTuples(partBindingId(roleId, l), partRoleId(roleId), levelResource(tenant, l), subjects, domain)),
        ]
      : [];
  await rewrite(w, await storedPart(w, tenant.org_id, roleId), wanted);
}

/** Takes a group out of the role's part (the group lost the role or is deleted); the last group out removes the part. */
export async function dropGroupFromPart(w: WriteContext, orgId: string, roleId: string, groupId: string): Promise<void> {
  const stored = await storedPart(w, orgId, roleId);
  const isSubject = (t: Relationship) => t.resourceType === "rbac/role_binding" && t.relation === "t_subject";
  const left = stored.filter((t) => isSubject(t) && t.subjectId !== groupId);
  await rewrite(w, stored, left.length === 0 ? [] : stored.filter((t) => !isSubject(t) || t.subjectId !== groupId));
}

/** Roles whose part is bound at the level with the group as a subject. */
export async function partRolesOfGroupAt(tx: Queryable, orgId: string, level: RoleScope, groupId: string): Promise<string[]> {
  const rows = await tx.query<{ resource_id: string }>(
    `SELECT resource_id FROM gh_tuples WHERE org_id = $1 AND resource_type = 'rbac/role_binding' AND relation = 't_subject'
       AND subject_type = 'rbac/group' AND subject_id = $2 AND resource_id ~ $3`,
    [orgId, groupId, `_u_${level}$`],
  );
  return rows.map((r) => r.resource_id.slice(0, -`_u_${level}`.length));
}

/**
 * Takes a group out of the role's part at one level (a v2 write replacing the group's roles
 * there): a part binding left without groups goes, and the part's permissions with the last one.
 */
export async function dropGroupFromPartAt(w: WriteContext, orgId: string, roleId: string, groupId: string, level: RoleScope): Promise<void> {
  const stored = await storedPart(w, orgId, roleId);
  const binding = partBindingId(roleId, level);
  const isSubjectOf = (t: Relationship, b: string) => t.resourceType === "rbac/role_binding" && t.resourceId === b && t.relation === "t_subject";
  let kept = stored.filter((t) => !(isSubjectOf(t, binding) && t.subjectType === "rbac/group" && t.subjectId === groupId));
  if (!kept.some((t) => isSubjectOf(t, binding))) {
    kept = kept.filter((t) => !(t.resourceType === "rbac/role_binding" && t.resourceId === binding) && !(t.relation === "t_binding" && t.subjectId === binding));
  }
  if (!kept.some((t) => t.resourceType === "rbac/role_binding" && t.relation === "t_subject")) kept = [];
  await rewrite(w, stored, kept);
}

/** Takes a deleted group out of every role part it is in. */
export async function dropGroupFromAllParts(w: WriteContext, orgId: string, groupId: string): Promise<void> {
  const rows = await w.tx.query<{ resource_id: string }>(
    `SELECT DISTINCT resource_id FROM gh_tuples WHERE org_id = $1 AND resource_type = 'rbac/role_binding' AND relation = 't_subject'
       AND subject_type = 'rbac/group' AND subject_id = $2 AND resource_id ~ '_u_(tenant|root|default)$'`,
    [orgId, groupId],
  );
  const roles = new Set(rows.map((r) => r.resource_id.replace(/_u_(tenant|root|default)$/, "")));
  for (const roleId of roles) await dropGroupFromPart(w, orgId, roleId, groupId);
}

const PART_BINDING = /^(.+)_u_(tenant|root|default)$/;

/**
 * The organisation's role parts as bindings of their roles: one item per part binding, its resource
 * the level, its subjects the groups, `permissions` the role's permissions the part carries (read
 * back through their relations), created and modified at the role's modified time.
 */
export async function partBindings(db: Queryable, orgId: string): Promise<RoleBindingListItem[]> {
  const tuples = (
    await db.query<Parameters<typeof rowToRelationship>[0]>(
      `SELECT resource_type, resource_id, relation, subject_type, subject_id, subject_relation FROM gh_tuples
       WHERE org_id = $1 AND ((resource_type = 'rbac/role_binding' AND resource_id ~ '_u_(tenant|root|default)$')
         OR (relation = 't_binding' AND subject_type = 'rbac/role_binding' AND subject_id ~ '_u_(tenant|root|default)$')
         OR (resource_type = 'rbac/role' AND resource_id ~ '_u$'))`,
      [orgId],
    )
  ).map(rowToRelationship);
  if (tuples.length === 0) return [];
  const bindings = new Map<string, { roleId: string; resource?: BindingResource; groups: string[] }>();
  const partRelations = new Map<string, Set<string>>();
  for (const t of tuples) {
    if (t.resourceType === "rbac/role") partRelations.set(t.resourceId, (partRelations.get(t.resourceId) ?? new Set()).add(t.relation));
    const id = t.resourceType === "rbac/role_binding" ? t.resourceId : t.relation === "t_binding" ? t.subjectId : undefined;
    const roleId = id?.match(PART_BINDING)?.[1];
    if (!id || !roleId) continue;
    const b = bindings.get(id) ?? { roleId, groups: [] };
    if (t.relation === "t_binding") b.resource = { type: t.resourceType === "rbac/tenant" ? "tenant" : "workspace", id: t.resourceId };
    if (t.relation === "t_subject" && t.subjectType === "rbac/group") b.groups.push(t.subjectId);
    bindings.set(id, b);
  }
  const roleIds = [...new Set([...bindings.values()].map((b) => b.roleId))];
  const roles = await db.query<{ id: string; permissions: string[]; modified_at: Date }>(
    "SELECT id::text AS id, permissions, modified_at FROM gh_roles WHERE org_id = $1 AND id::text = ANY($2::text[])",
    [orgId, roleIds],
  );
  const roleById = new Map(roles.map((r) => [r.id, r]));
  const items: RoleBindingListItem[] = [];
  for (const [id, b] of [...bindings].sort(([a], [c]) => a.localeCompare(c))) {
    const role = roleById.get(b.roleId);
    if (!role || !b.resource || b.groups.length === 0) continue;
    const relations = partRelations.get(partRoleId(b.roleId)) ?? new Set<string>();
    const permissions = role.permissions.filter((p) => relations.has(permissionRelation(p)));
    const subjects = [...new Set(b.groups)].sort().map((g) => ({ type: "group" as const, id: g }));
    items.push({ id, orgId, roleId: b.roleId, resource: b.resource, source: b.resource, subjects, created: role.modified_at, modified: role.modified_at, permissions });
  }
  return items;
}
