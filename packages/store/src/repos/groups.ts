// Groups and their memberships. The two default groups of a tenant are created at bootstrap;
// their membership follows the principals (see principals.ts) and cannot be edited directly.
import { randomUUID } from "node:crypto";
import type { StoreContext } from "../context.js";
import type { Queryable } from "../db/db.js";
import { StoreError } from "../errors.js";
import { listPage } from "../list-page.js";
import { groupMember, owner, tenantResourceId } from "../relationships.js";
import type { Group, GroupKind, GroupRepository } from "../types.js";
import { namePattern, optionalDescription, pageBounds, requireOrgId, requireUuid } from "../validate.js";
import { requireTenantRow, runWrite, type WriteContext } from "../write.js";
import { recordAudit } from "./audit-log.js";
import { groupIdsOf, removeSubjectEverywhere } from "./role-bindings.js";
import { dropGroupFromAllParts } from "./v1-role-parts.js";

export interface GroupRow {
  id: string;
  org_id: string;
  kind: GroupKind;
  name: string;
  description: string | null;
  created_at: Date;
  modified_at: Date;
  [k: string]: unknown;
}

export const toGroup = (r: GroupRow): Group => ({
  id: r.id,
  orgId: r.org_id,
  kind: r.kind,
  name: r.name,
  description: r.description,
  created: r.created_at,
  modified: r.modified_at,
});

export async function loadGroup(tx: Queryable, orgId: string, id: string): Promise<GroupRow> {
  const [row] = await tx.query<GroupRow>("SELECT * FROM gh_groups WHERE id = $1", [id]);
  if (row && row.org_id === orgId) return row;
  if (row) throw new StoreError("cross-tenant", `Group '${id}' does not exist.`, "group_id");
  throw new StoreError("not-found", `Group '${id}' does not exist.`, "group_id");
}

export function requireGroupName(name: unknown): string {
  if (typeof name !== "string" || name.trim().length === 0) throw new StoreError("invalid-argument", "The group name is required.", "name");
  if (name.length > 150) throw new StoreError("invalid-argument", "The group name must be at most 150 characters.", "name");
  return name.trim();
}

function requireUserIds(userIds: unknown): string[] {
  if (!Array.isArray(userIds) || userIds.length === 0) throw new StoreError("invalid-argument", "At least one principal is required.", "principals");
  for (const u of userIds) if (typeof u !== "string" || u.length === 0) throw new StoreError("invalid-argument", "Principal ids must be non-empty strings.", "principals");
  return [...new Set(userIds as string[])];
}

/**
 * The one path adding members to a standard group, for the membership API and the import, inside
 * the caller's transaction: every principal must exist in the organisation (`not-found`, reported
 * on `field`, nothing added); members already there are kept. Returns the user ids added.
 */
export async function insertMembers(ctx: StoreContext, w: WriteContext, orgId: string, groupId: string, userIds: readonly string[], field: string): Promise<string[]> {
  const known = await w.tx.query<{ user_id: string }>("SELECT user_id FROM gh_principals WHERE org_id = $1 AND user_id = ANY($2::text[])", [orgId, [...userIds]]);
  const knownIds = new Set(known.map((k) => k.user_id));
  const missing = userIds.filter((u) => !knownIds.has(u));
  if (missing.length > 0) throw new StoreError("not-found", `The following principals do not exist: ${missing.join(", ")}`, field);
  const added = await w.tx.query<{ user_id: string }>(
    `INSERT INTO gh_group_members (org_id, group_id, user_id) SELECT $1, $2, u FROM unnest($3::text[]) AS u
     ON CONFLICT DO NOTHING RETURNING user_id`,
    [orgId, groupId, [...userIds]],
  );
  await w.touch(added.map((a) => groupMember(groupId, a.user_id, ctx.domain)));
  if (added.length > 0) await w.tx.query("UPDATE gh_groups SET modified_at = clock_timestamp() WHERE id = $1", [groupId]);
  return added.map((a) => a.user_id);
}

export function groupRepository(ctx: StoreContext): GroupRepository {
  return {
    async create(orgId, input, audit) {
      requireOrgId(orgId);
      const name = requireGroupName(input?.name);
      const description = optionalDescription(input.description);
      return runWrite(ctx, orgId, "create_group", async (w) => {
        await requireTenantRow(w.tx, orgId);
        const clash = await w.tx.query("SELECT 1 FROM gh_groups WHERE org_id = $1 AND lower(name) = lower($2)", [orgId, name]);
        if (clash.length > 0) throw new StoreError("duplicate-name", `A group with the name '${name}' already exists.`, "name");
        const [row] = await w.tx.query<GroupRow>("INSERT INTO gh_groups (id, org_id, kind, name, description) VALUES ($1, $2, 'standard', $3, $4) RETURNING *", [
          randomUUID(),
          orgId,
          name,
          description,
        ]);
        await w.touch([owner("rbac/group", row!.id, tenantResourceId(ctx.domain, orgId))]);
        const created = toGroup(row!);
        if (audit) await recordAudit(w, orgId, audit(created));
        return created;
      });
    },

    async get(orgId, id) {
      requireOrgId(orgId);
      const [row] = await ctx.db.query<GroupRow>("SELECT * FROM gh_groups WHERE org_id = $1 AND id = $2", [orgId, requireUuid(id, "id")]);
      if (!row) throw new StoreError("not-found", "No Group matches the given query.", "id");
      return toGroup(row);
    },

    async list(orgId, query = {}) {
      requireOrgId(orgId);
      const params: unknown[] = [orgId];
      let filter = "org_id = $1";
      if (query.name !== undefined && query.name !== "" && query.name !== "*") {
        params.push(namePattern(query.name));
        filter += " AND name ILIKE $2";
      }
      const { limit, offset } = pageBounds(query.limit, query.offset);
      const { rows, count } = await listPage<GroupRow>(ctx.db, "gh_groups", filter, params, "lower(name), id", { limit, offset });
      return { data: rows.map(toGroup), count };
    },

    async delete(orgId, id, audit) {
      requireOrgId(orgId);
      const groupId = requireUuid(id, "id");
      return runWrite(ctx, orgId, "delete_group", async (w) => {
        const group = await loadGroup(w.tx, orgId, groupId);
        if (group.kind !== "standard") throw new StoreError("immutable", "Default groups cannot be deleted.", "id");
        await removeSubjectEverywhere(ctx, w, orgId, { type: "group", id: groupId });
        await dropGroupFromAllParts(w, orgId, groupId);
        const members = await w.tx.query<{ user_id: string }>("DELETE FROM gh_group_members WHERE group_id = $1 RETURNING user_id", [groupId]);
        await w.remove([...members.map((m) => groupMember(groupId, m.user_id, ctx.domain)), owner("rbac/group", groupId, tenantResourceId(ctx.domain, orgId))]);
        await w.tx.query("DELETE FROM gh_groups WHERE id = $1", [groupId]);
        if (audit) await recordAudit(w, orgId, audit(toGroup(group)));
        return { id: groupId };
      });
    },

    async addMembers(orgId, groupId, userIds, audit) {
      requireOrgId(orgId);
      const gid = requireUuid(groupId, "group_id");
      const users = requireUserIds(userIds);
      return runWrite(ctx, orgId, "add_group_members", async (w) => {
        const group = await loadGroup(w.tx, orgId, gid);
        if (group.kind !== "standard") throw new StoreError("immutable", "Membership of default groups follows the principals.", "group_id");
        const result = { added: await insertMembers(ctx, w, orgId, gid, users, "principals") };
        if (audit) await recordAudit(w, orgId, audit(result));
        return result;
      });
    },

    async removeMembers(orgId, groupId, userIds, audit) {
      requireOrgId(orgId);
      const gid = requireUuid(groupId, "group_id");
      const users = requireUserIds(userIds);
      return runWrite(ctx, orgId, "remove_group_members", async (w) => {
        const group = await loadGroup(w.tx, orgId, gid);
        if (group.kind !== "standard") throw new StoreError("immutable", "Membership of default groups follows the principals.", "group_id");
        const removed = await w.tx.query<{ user_id: string }>("DELETE FROM gh_group_members WHERE group_id = $1 AND user_id = ANY($2::text[]) RETURNING user_id", [gid, users]);
        await w.remove(removed.map((r) => groupMember(gid, r.user_id, ctx.domain)));
        if (removed.length > 0) await w.tx.query("UPDATE gh_groups SET modified_at = clock_timestamp() WHERE id = $1", [gid]);
        const result = { removed: removed.map((r) => r.user_id) };
        if (audit) await recordAudit(w, orgId, audit(result));
        return result;
      });
    },

    async members(orgId, groupId) {
      requireOrgId(orgId);
      const group = await loadGroup(ctx.db, orgId, requireUuid(groupId, "group_id"));
      const sql =
        group.kind === "platform-default"
          ? "SELECT user_id FROM gh_principals WHERE org_id = $1 ORDER BY user_id"
          : group.kind === "admin-default"
            ? "SELECT user_id FROM gh_principals WHERE org_id = $1 AND is_org_admin ORDER BY user_id"
            : "SELECT user_id FROM gh_group_members WHERE org_id = $1 AND group_id = $2 ORDER BY user_id";
      const rows = await ctx.db.query<{ user_id: string }>(sql, group.kind === "standard" ? [orgId, group.id] : [orgId]);
      return rows.map((r) => r.user_id);
    },

    async groupsOf(orgId, userId) {
      requireOrgId(orgId);
      return (await groupIdsOf(ctx.db, orgId, userId)).sort();
    },
  };
}
