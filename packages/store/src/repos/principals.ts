// Principals (users and service accounts, keyed by external user id). Every principal is a
// member of the tenant's platform-default group; org admins also of the admin-default group.
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import { listPage } from "../list-page.js";
import { groupMember } from "../relationships.js";
import type { Principal, PrincipalInput, PrincipalRepository, PrincipalType } from "../types.js";
import { namePattern, pageBounds, requireOrgId } from "../validate.js";
import { requireTenantRow, runWrite } from "../write.js";
import { removeSubjectEverywhere } from "./role-bindings.js";

interface PrincipalRow {
  org_id: string;
  user_id: string;
  username: string;
  type: PrincipalType;
  is_org_admin: boolean;
  email: string | null;
  created_at: Date;
  modified_at: Date;
  [k: string]: unknown;
}

const toPrincipal = (r: PrincipalRow): Principal => ({
  orgId: r.org_id,
  userId: r.user_id,
  username: r.username,
  type: r.type,
  isOrgAdmin: r.is_org_admin,
  email: r.email ?? null,
  created: r.created_at,
  modified: r.modified_at,
});

const userIdRe = /^[A-Za-z0-9_|=+-]{1,200}$/;

export type CheckedPrincipal = Required<Omit<PrincipalInput, "email">> & { email: string | null };

const EMAIL_MAX = 320;

export function requirePrincipal(p: PrincipalInput, i: number): CheckedPrincipal {
  if (typeof p?.userId !== "string" || !userIdRe.test(p.userId)) {
    throw new StoreError("invalid-argument", `Invalid user id '${String(p?.userId)}'.`, `principals[${i}].user_id`);
  }
  if (typeof p.username !== "string" || p.username.length === 0 || p.username.length > 255) {
    throw new StoreError("invalid-argument", "The username is required (at most 255 characters).", `principals[${i}].username`);
  }
  const type = p.type ?? "user";
  if (type !== "user" && type !== "service-account") throw new StoreError("invalid-argument", `Invalid principal type '${String(type)}'.`, `principals[${i}].type`);
  const email = p.email ?? null;
  // Any text an identity carries, bounded; control characters would only corrupt listings.
  if (email !== null && (typeof email !== "string" || email.length > EMAIL_MAX || /[\u0000-\u001f\u007f]/.test(email))) {
    throw new StoreError("invalid-argument", `The e-mail address must be text of at most ${EMAIL_MAX} characters without control characters.`, `principals[${i}].email`);
  }
  // Usernames are compared lower-case (as in the identity header).
  return { userId: p.userId, username: p.username.toLowerCase(), type, isOrgAdmin: p.isOrgAdmin === true, email: email === "" ? null : email };
}

export function principalRepository(ctx: StoreContext): PrincipalRepository {
  const repository: PrincipalRepository = {
    async upsert(orgId, principals) {
      requireOrgId(orgId);
      if (!Array.isArray(principals) || principals.length === 0) throw new StoreError("invalid-argument", "At least one principal is required.", "principals");
      const input = principals.map(requirePrincipal);
      const ids = new Set(input.map((p) => p.userId));
      if (ids.size !== input.length) throw new StoreError("invalid-argument", "Duplicate user ids in one call.", "principals");
      return runWrite(ctx, orgId, "update_principals", async (w) => {
        const tenant = await requireTenantRow(w.tx, orgId);
        const out: Principal[] = [];
        for (const p of input) {
          const clash = await w.tx.query("SELECT 1 FROM gh_principals WHERE org_id = $1 AND lower(username) = $2 AND user_id <> $3", [orgId, p.username, p.userId]);
          if (clash.length > 0) throw new StoreError("duplicate-name", `Username '${p.username}' is taken by another principal.`, "username");
          const [row] = await w.tx.query<PrincipalRow>(
            `INSERT INTO gh_principals (org_id, user_id, username, type, is_org_admin, email) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (org_id, user_id) DO UPDATE SET username = EXCLUDED.username, type = EXCLUDED.type,
               is_org_admin = EXCLUDED.is_org_admin, email = COALESCE(EXCLUDED.email, gh_principals.email), modified_at = clock_timestamp()
             RETURNING *`,
            [orgId, p.userId, p.username, p.type, p.isOrgAdmin, p.email],
          );
          const admin = groupMember(tenant.admin_default_group_id, p.userId, ctx.domain);
          await w.touch([groupMember(tenant.platform_default_group_id, p.userId, ctx.domain), ...(p.isOrgAdmin ? [admin] : [])]);
          if (!p.isOrgAdmin) await w.remove([admin]);
          out.push(toPrincipal(row!));
        }
        return out;
      });
    },

    async record(orgId, principal) {
      requireOrgId(orgId);
      const p = requirePrincipal(principal, 0);
      // One round trip: the stored row and the head, so an unchanged principal costs no write.
      const [row] = await ctx.db.query<{ username: string | null; type: string | null; is_org_admin: boolean | null; email: string | null; head: string }>(
        `SELECT p.username, p.type, p.is_org_admin, p.email, (SELECT head::text FROM gh_revision) AS head
         FROM (SELECT 1) AS one LEFT JOIN gh_principals p ON p.org_id = $1 AND p.user_id = $2`,
        [orgId, p.userId],
      );
      if (row && row.username === p.username && row.type === p.type && row.is_org_admin === p.isOrgAdmin && (p.email === null || row.email === p.email)) {
        const revision = Number(row.head);
        return { value: false, revision, token: ctx.tokens.encode(revision) };
      }
      const written = await repository.upsert(orgId, [p]);
      return { value: true, revision: written.revision, token: written.token };
    },

    async get(orgId, userId) {
      requireOrgId(orgId);
      const [row] = await ctx.db.query<PrincipalRow>("SELECT * FROM gh_principals WHERE org_id = $1 AND user_id = $2", [orgId, userId]);
      if (!row) throw new StoreError("not-found", "No Principal matches the given query.", "user_id");
      return toPrincipal(row);
    },

    async list(orgId, query = {}) {
      requireOrgId(orgId);
      const params: unknown[] = [orgId];
      const where = ["org_id = $1"];
      if (query.username !== undefined && query.username !== "" && query.username !== "*") {
        params.push(namePattern(query.username));
        where.push(`username ILIKE $${params.length}`);
      }
      if (query.type !== undefined) {
        params.push(query.type);
        where.push(`type = $${params.length}`);
      }
      const desc = query.orderBy === "-username";
      const { limit, offset } = pageBounds(query.limit, query.offset);
      const filter = where.join(" AND ");
      const { rows, count } = await listPage<PrincipalRow>(ctx.db, "gh_principals", filter, params, `username ${desc ? "DESC" : "ASC"}, user_id`, { limit, offset });
      return { data: rows.map(toPrincipal), count };
    },

    async delete(orgId, userId) {
      requireOrgId(orgId);
      return runWrite(ctx, orgId, "delete_principal", async (w) => {
        const tenant = await requireTenantRow(w.tx, orgId);
        const [row] = await w.tx.query("SELECT 1 FROM gh_principals WHERE org_id = $1 AND user_id = $2", [orgId, userId]);
        if (!row) throw new StoreError("not-found", "No Principal matches the given query.", "user_id");
        await removeSubjectEverywhere(ctx, w, orgId, { type: "principal", id: userId });
        const groups = await w.tx.query<{ group_id: string }>("DELETE FROM gh_group_members WHERE org_id = $1 AND user_id = $2 RETURNING group_id", [orgId, userId]);
        await w.remove([
          ...groups.map((g) => groupMember(g.group_id, userId, ctx.domain)),
          groupMember(tenant.platform_default_group_id, userId, ctx.domain),
          groupMember(tenant.admin_default_group_id, userId, ctx.domain),
        ]);
        await w.tx.query("DELETE FROM gh_principals WHERE org_id = $1 AND user_id = $2", [orgId, userId]);
        return { userId };
      });
    },
  };
  return repository;
}
