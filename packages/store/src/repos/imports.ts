// Whole-tenant import: principals, custom roles, groups with members and role bindings of one
// tenant's plan in ONE write transaction (domain rows, implied tuples, one change-feed entry),
// all or nothing, idempotent (existing rows are found by id or name; a re-run writes nothing and
// takes no revision).
import { randomUUID } from "node:crypto";
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import { groupMember, owner, tenantResourceId, tupleKey } from "../relationships.js";
import type { BindingResource, BindingSubject, ImportOptions, ImportRepository, ImportRoleRef, RoleScope, TenantImportPlan, TenantImportResult, V1AccessEntry, V1RoleTargets } from "../types.js";
import { isUuid, optionalDescription, requireOrgId, requireUuid } from "../validate.js";
import { runWrite, type TenantRow } from "../write.js";
import { insertMembers, requireGroupName } from "./groups.js";
import { requirePrincipal } from "./principals.js";
import { grantRoles, removeSubject, resolveAssignableRole, type BindingRow, type RoleGrant } from "./role-bindings.js";
import type { RoleRow } from "./loaders.js";
import { insertCustomRole, requirePermissions, requireRoleName, requireScope, writeCustomRole } from "./roles.js";
import { bootstrapTenantRows, tenantFromRow } from "./tenants.js";
import { syncRolePart } from "./v1-role-parts.js";
import { groupsHolding, placeRole, resolveTargets } from "./v1-writes.js";

const LEVELS: readonly RoleScope[] = ["tenant", "root", "default"];

interface GroupRow {
  id: string;
  org_id: string;
  kind: string;
  name: string;
  description: string | null;
  [k: string]: unknown;
}

interface PrincipalRow {
  user_id: string;
  username: string;
  type: string;
  is_org_admin: boolean;
  email: string | null;
  [k: string]: unknown;
}

function requireKey(key: unknown, field: string): string {
  if (typeof key !== "string" || key.length === 0) throw new StoreError("invalid-argument", "Every role and group of an import needs a key.", field);
  return key;
}

function optionalId(id: unknown, field: string): string | undefined {
  if (id === undefined) return undefined;
  if (!isUuid(id)) throw new StoreError("invalid-argument", `${String(id)} is not a valid UUID.`, field);
  return id.toLowerCase();
}

function requireArray<T>(list: T[] | undefined, field: string): T[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new StoreError("invalid-argument", `${field} must be an array.`, field);
  return list;
}

/** JSON with object keys sorted (jsonb does not keep key order). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A v1 access list: entries `{ permission, resourceDefinitions[] }` naming exactly the role's permissions. */
function optionalAccess(access: unknown, permissions: readonly string[], field: string): V1AccessEntry[] | null {
  if (access === undefined) return null;
  if (!Array.isArray(access)) throw new StoreError("invalid-argument", `${field} must be an array.`, field);
  const entries = access.map((a: unknown) => {
    const entry = a as { permission?: unknown; resourceDefinitions?: unknown };
    const defs = entry?.resourceDefinitions ?? [];
    if (typeof entry?.permission !== "string" || !Array.isArray(defs)) {
      throw new StoreError("invalid-argument", "Each access entry needs a permission and a resourceDefinitions list.", field);
    }
    for (const d of defs as unknown[]) {
      const f = (d as { attributeFilter?: { key?: unknown; operation?: unknown } } | null)?.attributeFilter;
      if (typeof f?.key !== "string" || typeof f.operation !== "string") {
        throw new StoreError("invalid-argument", "Each resource definition needs an attributeFilter with key and operation.", field);
      }
    }
    return { permission: entry.permission, resourceDefinitions: defs as V1AccessEntry["resourceDefinitions"] };
  });
  const named = new Set(entries.map((e) => e.permission));
  if (named.size !== new Set(permissions).size || ![...named].every((p) => permissions.includes(p))) {
    throw new StoreError("invalid-argument", "The access list must name exactly the role's permissions.", field);
  }
  return entries;
}

/** A role's targets: organisation levels, workspace ids (UUIDs), ungrouped hosts, and the unlimited part. */
function optionalTargets(targets: unknown, field: string): V1RoleTargets | null {
  if (targets === undefined) return null;
  const t = targets as Partial<V1RoleTargets> | null;
  if (typeof t !== "object" || t === null || !Array.isArray(t.levels) || !Array.isArray(t.workspaceIds)) {
    throw new StoreError("invalid-argument", "targets needs a levels and a workspaceIds list.", field);
  }
  if (t.ungrouped !== undefined && typeof t.ungrouped !== "boolean") throw new StoreError("invalid-argument", "targets.ungrouped must be a boolean.", field);
  const u = t.unlimited;
  if (u !== undefined && (typeof u !== "object" || u === null || !Array.isArray(u.levels) || !Array.isArray(u.permissions))) {
    throw new StoreError("invalid-argument", "targets.unlimited needs a levels and a permissions list.", field);
  }
  return {
    levels: t.levels.map((l) => requireScope(l)),
    workspaceIds: [...new Set(t.workspaceIds.map((id) => requireUuid(id, field).toLowerCase()))],
    ungrouped: t.ungrouped === true,
    ...(u ? { unlimited: { levels: u.levels.map((l) => requireScope(l)), permissions: requirePermissions(u.permissions) } } : {}),
  };
}

/** Checks everything that needs no database: shapes, names, permissions, keys and references. */
function validatePlan(plan: TenantImportPlan) {
  if (typeof plan !== "object" || plan === null) throw new StoreError("invalid-argument", "The import plan must be an object.");
  // An unset isOrgAdmin (the source did not say) keeps an existing principal's flag.
  const principals = requireArray(plan.principals, "principals").map((p, i) => ({ ...requirePrincipal(p, i), adminKnown: p?.isOrgAdmin !== undefined }));
  const userIds = new Set<string>();
  for (const p of principals) {
    if (userIds.has(p.userId)) throw new StoreError("invalid-argument", `Duplicate user id '${p.userId}' in the import.`, "principals");
    userIds.add(p.userId);
  }

  const roleKeys = new Set<string>();
  const roleNames = new Set<string>();
  const roles = requireArray(plan.roles, "roles").map((r, i) => {
    const key = requireKey(r?.key, `roles[${i}].key`);
    if (roleKeys.has(key)) throw new StoreError("invalid-argument", `Duplicate role key '${key}' in the import.`, `roles[${i}].key`);
    roleKeys.add(key);
    const name = requireRoleName(r.name);
    if (roleNames.has(name.toLowerCase())) throw new StoreError("duplicate-name", `The import names two roles '${name}'.`, `roles[${i}].name`);
    roleNames.add(name.toLowerCase());
    return {
      key,
      id: optionalId(r.id, `roles[${i}].id`),
      name,
      description: optionalDescription(r.description),
      permissions: requirePermissions(r.permissions),
      scope: requireScope(r.scope),
      access: optionalAccess(r.access, r.permissions, `roles[${i}].access`),
      targets: optionalTargets(r.targets, `roles[${i}].targets`),
    };
  });

  const groupKeys = new Set<string>();
  const groupNames = new Set<string>();
  const groups = requireArray(plan.groups, "groups").map((g, i) => {
    const key = requireKey(g?.key, `groups[${i}].key`);
    if (groupKeys.has(key)) throw new StoreError("invalid-argument", `Duplicate group key '${key}' in the import.`, `groups[${i}].key`);
    groupKeys.add(key);
    const name = requireGroupName(g.name);
    if (groupNames.has(name.toLowerCase())) throw new StoreError("duplicate-name", `The import names two groups '${name}'.`, `groups[${i}].name`);
    groupNames.add(name.toLowerCase());
    const members = requireArray(g.members, `groups[${i}].members`);
    for (const m of members) {
      if (typeof m !== "string" || m.length === 0) throw new StoreError("invalid-argument", "Member ids must be non-empty strings.", `groups[${i}].members`);
    }
    return { key, id: optionalId(g.id, `groups[${i}].id`), name, description: optionalDescription(g.description), members: [...new Set(members)] };
  });

  const roleRef = (ref: ImportRoleRef | undefined, field: string): ImportRoleRef => {
    if (ref && "key" in ref && typeof ref.key === "string") {
      if (!roleKeys.has(ref.key)) throw new StoreError("not-found", `The import has no role '${ref.key}'.`, field);
      return { key: ref.key };
    }
    if (ref && "seeded" in ref && typeof ref.seeded === "string" && ref.seeded.length > 0) return { seeded: ref.seeded };
    throw new StoreError("invalid-argument", "A role reference is { key } or { seeded }.", field);
  };
  const bindings = requireArray(plan.bindings, "bindings").map((b, i) => {
    const key = b?.group?.key;
    if (typeof key !== "string" || !groupKeys.has(key)) throw new StoreError("not-found", `The import has no group '${String(key)}'.`, `bindings[${i}].group`);
    return { role: roleRef(b.role, `bindings[${i}].role`), groupKey: key, level: requireScope(b.level), field: `bindings[${i}].role` };
  });

  let defaultAccess: [RoleScope, ImportRoleRef[]][] | undefined;
  if (plan.defaultAccess !== undefined) {
    if (typeof plan.defaultAccess !== "object" || plan.defaultAccess === null) throw new StoreError("invalid-argument", "defaultAccess must be an object.", "defaultAccess");
    defaultAccess = LEVELS.filter((l) => plan.defaultAccess![l] !== undefined).map((l) => [
      l,
      requireArray(plan.defaultAccess![l], `defaultAccess.${l}`).map((r, i) => roleRef(r, `defaultAccess.${l}[${i}]`)),
    ]);
  }
  return { principals, roles, groups, bindings, defaultAccess };
}

function resourceOf(tenant: TenantRow, level: RoleScope): BindingResource {
  if (level === "tenant") return { type: "tenant", id: tenant.tenant_id };
  return { type: "workspace", id: level === "root" ? tenant.root_workspace_id : tenant.default_workspace_id };
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join("\u0000") === [...b].sort().join("\u0000");

export function importRepository(ctx: StoreContext): ImportRepository {
  return {
    async applyTenant(orgId, planIn: TenantImportPlan, options: ImportOptions = {}) {
      requireOrgId(orgId);
      const plan = validatePlan(planIn);
      const progress = options.onProgress ?? (() => undefined);
      return runWrite(ctx, orgId, "import_tenant", async (w) => {
        const tenantId = tenantResourceId(ctx.domain, orgId);
        // Domain changes that imply no tuple change (renames, usernames, descriptions, scopes).
        let rowsChanged = false;
        const { row: tenant, created: tenantCreated } = await bootstrapTenantRows(ctx, w, orgId);
        progress("tenant", 1, 1);

        // Principals: one read, then only the new or changed ones are written.
        let principalsWritten = 0;
        if (plan.principals.length > 0) {
          const existing = new Map((await w.tx.query<PrincipalRow>("SELECT user_id, username, type, is_org_admin, email FROM gh_principals WHERE org_id = $1", [orgId])).map((p) => [p.user_id, p]));
          const changed = plan.principals
            .map((p) => {
              const e = existing.get(p.userId);
              return e && !p.adminKnown ? { ...p, isOrgAdmin: e.is_org_admin } : p;
            })
            .filter((p) => {
              const e = existing.get(p.userId);
              return !e || e.username !== p.username || e.type !== p.type || e.is_org_admin !== p.isOrgAdmin || (p.email !== null && e.email !== p.email);
            });
          if (changed.length > 0) {
            const clash = await w.tx.query<{ username: string }>(
              `SELECT p.username FROM gh_principals p JOIN unnest($2::text[], $3::text[]) AS x(u, n)
                 ON lower(p.username) = lower(x.n) AND p.user_id <> x.u WHERE p.org_id = $1 LIMIT 1`,
              [orgId, changed.map((p) => p.userId), changed.map((p) => p.username)],
            );
            if (clash[0]) throw new StoreError("duplicate-name", `Username '${clash[0].username}' is taken by another principal.`, "username");
            const names = new Set<string>();
            for (const p of plan.principals) {
              if (names.has(p.username)) throw new StoreError("duplicate-name", `Username '${p.username}' appears twice in the import.`, "username");
              names.add(p.username);
            }
            await w.tx.query(
              `INSERT INTO gh_principals (org_id, user_id, username, type, is_org_admin, email)
               SELECT $1, u, n, t, a, e FROM unnest($2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[]) AS x(u, n, t, a, e)
               ON CONFLICT (org_id, user_id) DO UPDATE SET username = EXCLUDED.username, type = EXCLUDED.type,
                 is_org_admin = EXCLUDED.is_org_admin, email = COALESCE(EXCLUDED.email, gh_principals.email), modified_at = clock_timestamp()`,
              [orgId, changed.map((p) => p.userId), changed.map((p) => p.username), changed.map((p) => p.type), changed.map((p) => p.isOrgAdmin), changed.map((p) => p.email)],
            );
            principalsWritten = changed.length;
            rowsChanged = true;
            await w.touch(changed.map((p) => groupMember(tenant.platform_default_group_id, p.userId, ctx.domain)));
            await w.touch(changed.filter((p) => p.isOrgAdmin).map((p) => groupMember(tenant.admin_default_group_id, p.userId, ctx.domain)));
            await w.remove(changed.filter((p) => !p.isOrgAdmin).map((p) => groupMember(tenant.admin_default_group_id, p.userId, ctx.domain)));
          }
        }
        progress("principals", plan.principals.length, plan.principals.length);

        // Custom roles: by id, else by name; created with the plan's id.
        const roleIds: Record<string, string> = {};
        let rolesCreated = 0;
        let rolesUpdated = 0;
        if (plan.roles.length > 0) {
          const custom = await w.tx.query<RoleRow>("SELECT * FROM gh_roles WHERE org_id = $1 AND kind = 'custom'", [orgId]);
          const publicNames = new Set((await w.tx.query<{ name: string }>("SELECT lower(name) AS name FROM gh_roles WHERE org_id IS NULL")).map((r) => r.name));
          const claimed = new Set<string>();
          for (const [i, r] of plan.roles.entries()) {
            const found = custom.find((c) => c.id === r.id && !claimed.has(c.id)) ?? custom.find((c) => c.name.toLowerCase() === r.name.toLowerCase() && !claimed.has(c.id));
            if (publicNames.has(r.name.toLowerCase())) throw new StoreError("duplicate-name", `A role with the name '${r.name}' already exists.`, `roles[${i}].name`);
            const other = custom.find((c) => c.name.toLowerCase() === r.name.toLowerCase() && c.id !== found?.id);
            if (other) throw new StoreError("duplicate-name", `A role with the name '${r.name}' already exists.`, `roles[${i}].name`);
            if (!found) {
              const { id } = await insertCustomRole(w, ctx.domain, orgId, {
                ...(r.id ? { id: r.id } : {}),
                name: r.name,
                description: r.description,
                scope: r.scope,
                permissions: r.permissions,
                v1Access: r.access,
              });
              roleIds[r.key] = id;
              claimed.add(id);
              rolesCreated++;
            } else {
              roleIds[r.key] = found.id;
              claimed.add(found.id);
              const description = r.description ?? found.description;
              const access = r.access === null ? (found.v1_access ?? null) : r.access;
              const accessChanged = canonicalJson(access) !== canonicalJson(found.v1_access ?? null);
              if (found.name !== r.name || found.scope !== r.scope || description !== found.description || !sameSet(found.permissions, r.permissions) || accessChanged) {
                await writeCustomRole(w, found, { name: r.name, description, scope: r.scope, permissions: r.permissions, v1Access: access });
                rolesUpdated++;
                rowsChanged = true;
              }
            }
            progress("roles", i + 1, plan.roles.length);
          }
        }

        // Groups: by id, else by name (standard groups); members added if missing.
        const groupIds: Record<string, string> = {};
        let groupsCreated = 0;
        let membersAdded = 0;
        if (plan.groups.length > 0) {
          const groups = await w.tx.query<GroupRow>("SELECT id, org_id, kind, name, description FROM gh_groups WHERE org_id = $1", [orgId]);
          const claimed = new Set<string>();
          for (const [i, g] of plan.groups.entries()) {
            const standard = groups.filter((x) => x.kind === "standard" && !claimed.has(x.id));
            const found = standard.find((x) => x.id === g.id) ?? standard.find((x) => x.name.toLowerCase() === g.name.toLowerCase());
            const other = groups.find((x) => x.name.toLowerCase() === g.name.toLowerCase() && x.id !== found?.id);
            if (other) throw new StoreError("duplicate-name", `A group with the name '${g.name}' already exists.`, `groups[${i}].name`);
            let id: string;
            if (!found) {
              id = g.id ?? randomUUID();
              await w.tx.query("INSERT INTO gh_groups (id, org_id, kind, name, description) VALUES ($1, $2, 'standard', $3, $4)", [id, orgId, g.name, g.description]);
              await w.touch([owner("rbac/group", id, tenantId)]);
              groupsCreated++;
            } else {
              id = found.id;
              const description = g.description ?? found.description;
              if (found.name !== g.name || description !== found.description) {
                await w.tx.query("UPDATE gh_groups SET name = $2, description = $3, modified_at = clock_timestamp() WHERE id = $1", [id, g.name, description]);
                rowsChanged = true;
              }
            }
            claimed.add(id);
            groupIds[g.key] = id;
            if (g.members.length > 0) {
              membersAdded += (await insertMembers(ctx, w, orgId, id, g.members, `groups[${i}].members`)).length;
            }
            progress("groups", i + 1, plan.groups.length);
          }
        }

        // Role references: plan roles by key; seeded roles by id or name (never platform roles).
        const seededCache = new Map<string, string>();
        const resolveRole = async (ref: ImportRoleRef, level: RoleScope, field: string): Promise<string> => {
          let id: string;
          if ("key" in ref) id = roleIds[ref.key]!;
          else {
            let cached = seededCache.get(ref.seeded);
            if (!cached) {
              const rows = await w.tx.query<{ id: string }>(
                "SELECT id FROM gh_roles WHERE kind = 'seeded' AND (id::text = lower($1) OR lower(name) = lower($1)) ORDER BY (id::text = lower($1)) DESC LIMIT 1",
                [ref.seeded],
              );
              if (!rows[0]) throw new StoreError("not-found", `The following roles do not exist: ${ref.seeded}`, field);
              cached = rows[0].id;
              seededCache.set(ref.seeded, cached);
            }
            id = cached;
          }
          return resolveAssignableRole(w.tx, orgId, id, level, field);
        };

        // Bindings: one row per (role, resource), the group added as a subject if missing.
        let grantsAdded = 0;
        const pending: RoleGrant[] = [];
        // Roles limited to inventory workspaces: plan role key → its targets and the groups holding it.
        const limited = new Map(plan.roles.flatMap((r) => (r.targets ? [[r.key, { targets: r.targets, groups: new Set<string>() }] as const] : [])));
        const limitedOf = (ref: ImportRoleRef) => ("key" in ref ? limited.get(ref.key) : undefined);
        for (const [i, b] of plan.bindings.entries()) {
          const roleId = await resolveRole(b.role, b.level, b.field);
          const limitedRole = limitedOf(b.role);
          if (limitedRole) {
            limitedRole.groups.add(groupIds[b.groupKey]!);
            continue;
          }
          pending.push({ roleId, resource: resourceOf(tenant, b.level), subject: { type: "group", id: groupIds[b.groupKey]! } });
          if ((i + 1) % 500 === 0) progress("bindings", i + 1, plan.bindings.length);
        }
        grantsAdded += (await grantRoles(ctx, w, orgId, pending)).added;
        // A group given roles has its v1 policy (upstream's Policy row), kept when its roles are later removed.
        const withRoles = [...new Set(plan.bindings.map((b) => groupIds[b.groupKey]!))];
        if (withRoles.length > 0) await w.tx.query("UPDATE gh_groups SET v1_policy = true WHERE org_id = $1 AND id = ANY($2::uuid[]) AND NOT v1_policy", [orgId, withRoles]);
        for (const [, refs] of plan.defaultAccess ?? []) for (const ref of refs) limitedOf(ref)?.groups.add(tenant.platform_default_group_id);
        // Each group holding a limited role is bound exactly at the role's targets, as a v1 role
        // write binds it (an earlier binding elsewhere, e.g. at an organisation level, is removed),
        // and the role's unlimited part follows its groups. A workspace the tenant does not have
        // grants nothing there (v1 grants nothing on a group that does not exist); it is counted.
        const unknownWorkspaces: Record<string, number> = {};
        // Grants of the placements: the ordinary bindings' subjects they add (a role part's are not grants of a group).
        const grantKeys = () => new Set(w.changes.touched.filter((t) => t.relation === "t_subject" && !/_u_(tenant|root|default)$/.test(t.resourceId)).map(tupleKey));
        const grantsBefore = limited.size > 0 ? grantKeys() : new Set<string>();
        for (const [key, { targets, groups }] of limited) {
          const roleId = roleIds[key]!;
          let unknown = 0;
          const resources = await resolveTargets(w, tenant, targets, () => unknown++);
          if (unknown > 0) unknownWorkspaces[key] = unknown;
          for (const groupId of [...groups].sort()) await placeRole(ctx, w, orgId, roleId, resources, groupId);
          const holders = new Set([...groups, ...(await groupsHolding(w, orgId, roleId))]);
          await syncRolePart(w, tenant, ctx.domain, roleId, targets.unlimited, [...holders]);
        }
        if (limited.size > 0) grantsAdded += [...grantKeys()].filter((k) => !grantsBefore.has(k)).length;
        progress("bindings", plan.bindings.length, plan.bindings.length);

        // Customised default access: the platform-default group's roles per level, exactly.
        let grantsRemoved = 0;
        if (plan.defaultAccess) {
          const subject: BindingSubject = { type: "group", id: tenant.platform_default_group_id };
          for (const [n, [level, refs]] of plan.defaultAccess.entries()) {
            const resource = resourceOf(tenant, level);
            const wanted = new Set<string>();
            for (const [i, ref] of refs.entries()) {
              const roleId = await resolveRole(ref, level, `defaultAccess.${level}[${i}]`);
              // A limited role is placed at its targets above; it stays at this level only when they name it.
              const limitedRole = limitedOf(ref);
              if (!limitedRole || limitedRole.targets.levels.includes(level)) wanted.add(roleId);
            }
            const current = await w.tx.query<BindingRow>(
              `SELECT b.* FROM gh_role_bindings b JOIN gh_role_binding_subjects s ON s.binding_id = b.id
               WHERE b.org_id = $1 AND b.resource_type = $2 AND b.resource_id = $3 AND s.subject_type = 'group' AND s.subject_id = $4`,
              [orgId, resource.type, resource.id, subject.id],
            );
            for (const b of current) {
              if (wanted.has(b.role_id)) continue;
              await removeSubject(ctx, w, orgId, b, subject);
              grantsRemoved++;
            }
            const have = new Set(current.map((b) => b.role_id));
            const missing = [...wanted].filter((roleId) => !have.has(roleId));
            grantsAdded += (
              await grantRoles(
                ctx,
                w,
                orgId,
                missing.map((roleId) => ({ roleId, resource, subject })),
              )
            ).added;
            progress("default-access", n + 1, plan.defaultAccess.length);
          }
        }

        const { touched, deleted } = w.changes;
        const changed = tenantCreated || rowsChanged || touched.length > 0 || deleted.length > 0;
        if (!changed) w.markUnchanged();
        const result: TenantImportResult = {
          changed,
          tenant: tenantFromRow(tenant),
          tenantCreated,
          principalsWritten,
          rolesCreated,
          rolesUpdated,
          groupsCreated,
          membersAdded,
          grantsAdded,
          grantsRemoved,
          roleIds,
          groupIds,
          unknownWorkspaces,
        };
        return result;
      });
    },
  };
}
