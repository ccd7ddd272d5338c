// Workspaces: the hierarchy rules of the management API, enforced inside the write transaction
// (under the tenant lock) with SQL constraints as the backstop.
import { randomUUID } from "node:crypto";
import type { StoreContext } from "../context.js";
import type { Queryable } from "../db/db.js";
import { StoreError } from "../errors.js";
import { workspaceParent } from "../relationships.js";
import type { Page, Workspace, WorkspaceAncestor, WorkspaceListQuery, WorkspaceRepository, WorkspaceType } from "../types.js";
import { WORKSPACE_TYPES } from "../types.js";
import { namePattern, optionalDescription, pageBounds, requireOrgId, requireUuid, requireWorkspaceName } from "../validate.js";
import { requireTenantRow, runWrite, type WriteContext } from "../write.js";
import { loadWorkspace, type WorkspaceRow } from "./loaders.js";
import { deleteBindingsOfResource } from "./role-bindings.js";

const toWorkspace = (r: WorkspaceRow): Workspace => ({
  id: r.id,
  orgId: r.org_id,
  type: r.type,
  parentId: r.parent_id,
  name: r.name,
  description: r.description,
  created: r.created_at,
  modified: r.modified_at,
});

export const UNGROUPED_HOSTS = { name: "Ungrouped Hosts", description: "System workspace for ungrouped hosts" };

/** Edges between the workspace and root (root = 0). */
async function depthOf(tx: Queryable, orgId: string, id: string): Promise<number> {
  const [row] = await tx.query<{ depth: number }>(
    `WITH RECURSIVE up(id, parent_id, d) AS (
       SELECT id, parent_id, 0 FROM gh_workspaces WHERE org_id = $1 AND id = $2
       UNION ALL
       SELECT w.id, w.parent_id, up.d + 1 FROM gh_workspaces w JOIN up ON w.id = up.parent_id AND w.org_id = $1
     ) SELECT max(d)::int AS depth FROM up`,
    [orgId, id],
  );
  return row?.depth ?? 0;
}

/** Ids of the workspace and all its descendants, with their distance below it. */
async function subtree(tx: Queryable, orgId: string, id: string): Promise<{ id: string; d: number }[]> {
  return tx.query<{ id: string; d: number }>(
    `WITH RECURSIVE down(id, d) AS (
       SELECT id, 0 FROM gh_workspaces WHERE org_id = $1 AND id = $2
       UNION ALL
       SELECT w.id, down.d + 1 FROM gh_workspaces w JOIN down ON w.parent_id = down.id AND w.org_id = $1
     ) SELECT id, d::int AS d FROM down`,
    [orgId, id],
  );
}

async function assertNameFree(tx: Queryable, orgId: string, parentId: string, name: string, exceptId: string | null, message: string): Promise<void> {
  const rows = await tx.query("SELECT 1 FROM gh_workspaces WHERE org_id = $1 AND parent_id = $2 AND lower(name) = lower($3) AND ($4::uuid IS NULL OR id <> $4::uuid)", [
    orgId,
    parentId,
    name,
    exceptId,
  ]);
  if (rows.length > 0) throw new StoreError("duplicate-name", message, "name");
}

// lower(name) first: the same order on every backend, whatever the database collation.
const ORDER_COLUMNS: Record<string, string> = { name: "lower(name)", created: "created_at", modified: "modified_at", type: "type" };

export function workspaceRepository(ctx: StoreContext): WorkspaceRepository {
  const limit = ctx.depthLimit;
  // insights-rbac's wording when the new parent itself sits at the limit (create, and move of any subtree).
  const nestTooDeep = () => new StoreError("depth-exceeded", `Workspaces may only nest ${limit} levels deep.`, "parent_id");

  async function createIn(w: WriteContext, orgId: string, type: WorkspaceType, parent: WorkspaceRow, name: string, description: string | null) {
    if ((await depthOf(w.tx, orgId, parent.id)) + 1 > limit) throw nestTooDeep();
    await assertNameFree(w.tx, orgId, parent.id, name, null, "Can't create workspace with same name within same parent workspace");
    const [row] = await w.tx.query<WorkspaceRow>("INSERT INTO gh_workspaces (id, org_id, type, parent_id, name, description) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *", [
      randomUUID(),
      orgId,
      type,
      parent.id,
      name,
      description,
    ]);
    await w.touch([workspaceParent(row!.id, { type: "workspace", id: parent.id })]);
    return toWorkspace(row!);
  }

  return {
    async create(orgId, input) {
      requireOrgId(orgId);
      const name = requireWorkspaceName(input.name);
      const description = optionalDescription(input.description);
      const parentId = input.parentId === undefined ? undefined : requireUuid(input.parentId, "parent_id");
      return runWrite(ctx, orgId, "create_workspace", async (w) => {
        const tenant = await requireTenantRow(w.tx, orgId);
        let parent: WorkspaceRow;
        try {
          parent = await loadWorkspace(w.tx, orgId, parentId ?? tenant.default_workspace_id, "parent_id");
        } catch (e) {
          if (e instanceof StoreError && e.code === "not-found") {
            throw new StoreError("unknown-parent", `Parent workspace '${parentId}' doesn't exist in tenant`, "parent_id");
          }
          throw e;
        }
        return createIn(w, orgId, "standard", parent, name, description);
      });
    },

    async get(orgId, id) {
      requireOrgId(orgId);
      const wsId = requireUuid(id, "id");
      const [row] = await ctx.db.query<WorkspaceRow>("SELECT * FROM gh_workspaces WHERE org_id = $1 AND id = $2", [orgId, wsId]);
      if (!row) throw new StoreError("not-found", "No Workspace matches the given query.", "id");
      return toWorkspace(row);
    },

    async list(orgId, query: WorkspaceListQuery = {}): Promise<Page<Workspace>> {
      requireOrgId(orgId);
      const where = ["org_id = $1"];
      const params: unknown[] = [orgId];
      const add = (clause: (p: string) => string, value: unknown) => {
        params.push(value);
        where.push(clause(`$${params.length}`));
      };
      if (query.types && query.types.length > 0) {
        for (const t of query.types) {
          if (!WORKSPACE_TYPES.includes(t)) throw new StoreError("invalid-argument", `Unknown workspace type '${String(t)}'.`, "type");
        }
        add((p) => `type = ANY(${p}::text[])`, query.types);
      }
      if (query.name !== undefined && query.name !== "*" && query.name !== "") add((p) => `name ILIKE ${p}`, namePattern(query.name));
      if (query.parentId !== undefined) add((p) => `parent_id = ${p}::uuid`, requireUuid(query.parentId, "parent_id"));
      if (query.ids !== undefined) add((p) => `id = ANY(${p}::uuid[])`, [...new Set(query.ids.map((i) => requireUuid(i, "ids")))]);
      const orderBy = query.orderBy ?? "name";
      const desc = orderBy.startsWith("-");
      const column = ORDER_COLUMNS[desc ? orderBy.slice(1) : orderBy];
      if (!column) throw new StoreError("invalid-argument", `Unknown order_by '${orderBy}'.`, "order_by");
      const { limit: pageLimit, offset } = pageBounds(query.limit, query.offset);
      const filter = where.join(" AND ");
      const [countRow] = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gh_workspaces WHERE ${filter}`, params);
      const rows = await ctx.db.query<WorkspaceRow>(
        `SELECT * FROM gh_workspaces WHERE ${filter} ORDER BY ${column} ${desc ? "DESC" : "ASC"}, id ASC
         LIMIT ${pageLimit ?? "ALL"} OFFSET ${offset}`,
        params,
      );
      return { data: rows.map(toWorkspace), count: countRow?.n ?? 0 };
    },

    async ancestry(orgId, id): Promise<WorkspaceAncestor[]> {
      requireOrgId(orgId);
      const wsId = requireUuid(id, "id");
      const rows = await ctx.db.query<{ id: string; name: string; parent_id: string | null; d: number }>(
        `WITH RECURSIVE up(id, name, parent_id, d) AS (
           SELECT id, name, parent_id, 0 FROM gh_workspaces WHERE org_id = $1 AND id = $2
           UNION ALL
           SELECT w.id, w.name, w.parent_id, up.d + 1 FROM gh_workspaces w JOIN up ON w.id = up.parent_id AND w.org_id = $1
         ) SELECT id, name, parent_id, d FROM up ORDER BY d`,
        [orgId, wsId],
      );
      if (rows.length === 0) throw new StoreError("not-found", "No Workspace matches the given query.", "id");
      return rows.slice(1).map((r) => ({ id: r.id, name: r.name, parentId: r.parent_id }));
    },

    async update(orgId, id, patch) {
      requireOrgId(orgId);
      const wsId = requireUuid(id, "id");
      const name = patch.name === undefined ? undefined : requireWorkspaceName(patch.name);
      const description = patch.description === undefined ? undefined : optionalDescription(patch.description);
      return runWrite(ctx, orgId, "update_workspace", async (w) => {
        const row = await loadWorkspace(w.tx, orgId, wsId);
        if (row.type === "root" || row.type === "ungrouped-hosts") {
          throw new StoreError("immutable", `The ${row.type} workspace cannot be updated.`, "id");
        }
        if (name !== undefined && name !== row.name && row.parent_id) {
          await assertNameFree(w.tx, orgId, row.parent_id, name, row.id, `A workspace with the name '${name}' already exists under same parent.`);
        }
        const [updated] = await w.tx.query<WorkspaceRow>(
          `UPDATE gh_workspaces SET name = coalesce($3, name), description = CASE WHEN $4 THEN $5 ELSE description END,
             modified_at = clock_timestamp() WHERE org_id = $1 AND id = $2 RETURNING *`,
          [orgId, wsId, name ?? null, description !== undefined, description ?? null],
        );
        return toWorkspace(updated!);
      });
    },

    async move(orgId, id, newParentId) {
      requireOrgId(orgId);
      const wsId = requireUuid(id, "id");
      const targetId = requireUuid(newParentId, "parent_id");
      if (wsId === targetId) throw new StoreError("move-into-descendant", "The parent_id and id values must not be the same.", "parent_id");
      return runWrite(ctx, orgId, "move_workspace", async (w) => {
        const row = await loadWorkspace(w.tx, orgId, wsId);
        if (row.type !== "standard") throw new StoreError("immutable", "Cannot move non-standard workspace.", "id");
        let target: WorkspaceRow;
        try {
          target = await loadWorkspace(w.tx, orgId, targetId, "parent_id");
        } catch (e) {
          if (e instanceof StoreError && e.code === "not-found") throw new StoreError("unknown-parent", `Parent workspace '${targetId}' doesn't exist in tenant`, "parent_id");
          throw e;
        }
        const below = await subtree(w.tx, orgId, wsId);
        if (below.some((n) => n.id === target.id)) {
          throw new StoreError("move-into-descendant", "Cannot move workspace under one of its own descendants.", "parent_id");
        }
        if (row.parent_id === target.id) {
          w.markUnchanged();
          return toWorkspace(row);
        }
        const height = Math.max(...below.map((n) => n.d));
        const underTarget = (await depthOf(w.tx, orgId, target.id)) + 1;
        if (underTarget > limit) throw nestTooDeep();
        const depth = underTarget + height;
        if (depth > limit) {
          throw new StoreError("depth-exceeded", `Cannot move workspace: resulting hierarchy depth (${depth}) exceeds limit (${limit}).`, "parent_id");
        }
        await assertNameFree(w.tx, orgId, target.id, row.name, row.id, "A workspace with the same name already exists under the target parent.");
        const [moved] = await w.tx.query<WorkspaceRow>("UPDATE gh_workspaces SET parent_id = $3, modified_at = clock_timestamp() WHERE org_id = $1 AND id = $2 RETURNING *", [orgId, wsId, target.id]);
        await w.remove([workspaceParent(wsId, { type: "workspace", id: row.parent_id! })]);
        await w.touch([workspaceParent(wsId, { type: "workspace", id: target.id })]);
        return toWorkspace(moved!);
      });
    },

    async delete(orgId, id) {
      requireOrgId(orgId);
      const wsId = requireUuid(id, "id");
      return runWrite(ctx, orgId, "delete_workspace", async (w) => {
        const row = await loadWorkspace(w.tx, orgId, wsId);
        if (row.type !== "standard") throw new StoreError("immutable", `Unable to delete ${row.type} workspace`, "id");
        const [deps] = await w.tx.query<{ children: number; hosts: number }>(
          `SELECT (SELECT count(*)::int FROM gh_workspaces WHERE org_id = $1 AND parent_id = $2) AS children,
                  (SELECT count(*)::int FROM gh_hosts WHERE org_id = $1 AND workspace_id = $2) AS hosts`,
          [orgId, wsId],
        );
        if ((deps?.children ?? 0) > 0 || (deps?.hosts ?? 0) > 0) {
          throw new StoreError("not-empty", "Unable to delete due to workspace dependencies", "id");
        }
        await deleteBindingsOfResource(ctx, w, orgId, { type: "workspace", id: wsId });
        await w.tx.query("DELETE FROM gh_workspaces WHERE org_id = $1 AND id = $2", [orgId, wsId]);
        await w.remove([workspaceParent(wsId, { type: "workspace", id: row.parent_id! })]);
        return { id: wsId };
      });
    },

    async ensureUngroupedHosts(orgId) {
      requireOrgId(orgId);
      return runWrite(ctx, orgId, "create_workspace", async (w) => {
        const tenant = await requireTenantRow(w.tx, orgId);
        const [existing] = await w.tx.query<WorkspaceRow>("SELECT * FROM gh_workspaces WHERE org_id = $1 AND type = 'ungrouped-hosts'", [orgId]);
        if (existing) {
          w.markUnchanged();
          return toWorkspace(existing);
        }
        const parent = await loadWorkspace(w.tx, orgId, tenant.default_workspace_id);
        return createIn(w, orgId, "ungrouped-hosts", parent, UNGROUPED_HOSTS.name, UNGROUPED_HOSTS.description);
      });
    },
  };
}
