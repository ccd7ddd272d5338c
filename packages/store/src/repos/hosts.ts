// Reported resources: hosts and the workspace each sits in (`hbi/host:<id>#t_workspace@...`).
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import { dropHeld } from "../placements.js";
import { hostWorkspace } from "../relationships.js";
import type { Host, HostReport, HostRepository } from "../types.js";
import { pageBounds, requireOrgId, requireUuid } from "../validate.js";
import { runWrite } from "../write.js";
import { loadWorkspace } from "./loaders.js";

interface HostRow {
  id: string;
  org_id: string;
  workspace_id: string;
  reported_at: Date;
  [k: string]: unknown;
}

const toHost = (r: HostRow): Host => ({ orgId: r.org_id, id: r.id, workspaceId: r.workspace_id, reported: r.reported_at });

const hostIdRe = /^[A-Za-z0-9/_|=+-]{1,1024}$/;
function requireHostId(id: unknown): string {
  if (typeof id !== "string" || !hostIdRe.test(id)) throw new StoreError("invalid-argument", `Invalid host id '${String(id)}'.`, "resource_id");
  return id;
}

export function hostRepository(ctx: StoreContext): HostRepository {
  return {
    async report(orgId, hostId, workspaceId) {
      requireOrgId(orgId);
      const id = requireHostId(hostId);
      const wsId = requireUuid(workspaceId, "workspace_id");
      return runWrite(ctx, orgId, "report_resource", async (w) => {
        await loadWorkspace(w.tx, orgId, wsId, "workspace_id");
        const [existing] = await w.tx.query<HostRow>("SELECT * FROM gh_hosts WHERE id = $1", [id]);
        if (existing && existing.org_id !== orgId) throw new StoreError("cross-tenant", "The resource cannot be reported into this workspace.", "resource_id");
        if (existing && existing.workspace_id === wsId) {
          // Reported where it already is: still the latest report, so an earlier held one is void.
          await dropHeld(w.tx, orgId, [{ resourceType: "hbi/host", resourceId: id }]);
          w.markUnchanged();
          return toHost(existing);
        }
        const [row] = await w.tx.query<HostRow>(
          `INSERT INTO gh_hosts (id, org_id, workspace_id) VALUES ($1, $2, $3)
           ON CONFLICT (id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id, reported_at = clock_timestamp() RETURNING *`,
          [id, orgId, wsId],
        );
        // Every earlier placement goes, also plain tuples into workspaces known only as tuples.
        const placed = await w.tx.query<{ subject_id: string }>(
          "SELECT subject_id FROM gh_tuples WHERE org_id = $1 AND resource_type = 'hbi/host' AND resource_id = $2 AND relation = 't_workspace' AND subject_type = 'rbac/workspace'",
          [orgId, id],
        );
        await w.remove(placed.filter((p) => p.subject_id !== wsId).map((p) => hostWorkspace(id, p.subject_id)));
        await w.touch([hostWorkspace(id, wsId)]);
        return toHost(row!);
      });
    },

    async reportMany(orgId, hosts) {
      requireOrgId(orgId);
      if (!Array.isArray(hosts) || hosts.length === 0) throw new StoreError("invalid-argument", "At least one host is required.", "hosts");
      const input = hosts.map((h: HostReport) => ({ id: requireHostId(h?.id), workspaceId: requireUuid(h?.workspaceId, "workspace_id") }));
      const seen = new Set<string>();
      for (const h of input) {
        if (seen.has(h.id)) throw new StoreError("invalid-argument", `Host '${h.id}' is listed twice.`, "resource_id");
        seen.add(h.id);
      }
      const ids = input.map((h) => h.id);
      return runWrite(ctx, orgId, "report_resources", async (w) => {
        const workspaceIds = [...new Set(input.map((h) => h.workspaceId))];
        const known = await w.tx.query<{ id: string }>("SELECT id FROM gh_workspaces WHERE org_id = $1 AND id = ANY($2::uuid[])", [orgId, workspaceIds]);
        const knownIds = new Set(known.map((r) => r.id));
        const unknown = workspaceIds.find((id) => !knownIds.has(id));
        if (unknown !== undefined) await loadWorkspace(w.tx, orgId, unknown, "workspace_id");
        const [foreign] = await w.tx.query<{ id: string }>("SELECT id FROM gh_hosts WHERE id = ANY($1::text[]) AND org_id <> $2 LIMIT 1", [ids, orgId]);
        if (foreign) throw new StoreError("cross-tenant", "The resource cannot be reported into this workspace.", "resource_id");
        const before = new Map((await w.tx.query<{ id: string; workspace_id: string }>("SELECT id, workspace_id FROM gh_hosts WHERE id = ANY($1::text[])", [ids])).map((r) => [r.id, r.workspace_id]));
        const changed = input.filter((h) => before.get(h.id) !== h.workspaceId);
        if (changed.length === 0) w.markUnchanged();
        else
          await w.tx.query(
            `INSERT INTO gh_hosts (id, org_id, workspace_id) SELECT id, $1, ws FROM unnest($2::text[], $3::uuid[]) AS d(id, ws)
             ON CONFLICT (id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id, reported_at = clock_timestamp()`,
            [orgId, changed.map((h) => h.id), changed.map((h) => h.workspaceId)],
          );
        // As one report each: earlier placements elsewhere go, the reported one is written, held reports are void.
        const placed = await w.tx.query<{ resource_id: string; subject_id: string }>(
          `SELECT resource_id, subject_id FROM gh_tuples WHERE org_id = $1 AND resource_type = 'hbi/host' AND resource_id = ANY($2::text[])
             AND relation = 't_workspace' AND subject_type = 'rbac/workspace'`,
          [orgId, ids],
        );
        const target = new Map(input.map((h) => [h.id, h.workspaceId]));
        await w.remove(placed.filter((p) => p.subject_id !== target.get(p.resource_id)).map((p) => hostWorkspace(p.resource_id, p.subject_id)));
        await w.touch(changed.map((h) => hostWorkspace(h.id, h.workspaceId)));
        const changedIds = new Set(changed.map((h) => h.id));
        await dropHeld(
          w.tx,
          orgId,
          input.filter((h) => !changedIds.has(h.id)).map((h) => ({ resourceType: "hbi/host", resourceId: h.id })),
        );
        const moved = changed.filter((h) => before.has(h.id)).length;
        return { created: changed.length - moved, moved, unchanged: input.length - changed.length };
      });
    },

    async delete(orgId, hostId) {
      requireOrgId(orgId);
      const id = requireHostId(hostId);
      return runWrite(ctx, orgId, "delete_resource", async (w) => {
        const [row] = await w.tx.query<HostRow>("DELETE FROM gh_hosts WHERE id = $1 AND org_id = $2 RETURNING *", [id, orgId]);
        if (!row) throw new StoreError("not-found", `Host '${id}' does not exist.`, "resource_id");
        await w.remove([hostWorkspace(id, row.workspace_id)]);
        return { id };
      });
    },

    async get(orgId, hostId) {
      requireOrgId(orgId);
      const [row] = await ctx.db.query<HostRow>("SELECT * FROM gh_hosts WHERE id = $1 AND org_id = $2", [requireHostId(hostId), orgId]);
      if (!row) throw new StoreError("not-found", `Host '${hostId}' does not exist.`, "resource_id");
      return toHost(row);
    },

    async list(orgId, query = {}) {
      requireOrgId(orgId);
      const params: unknown[] = [orgId];
      let filter = "org_id = $1";
      if (query.workspaceId !== undefined) {
        params.push(requireUuid(query.workspaceId, "workspace_id"));
        filter += " AND workspace_id = $2";
      }
      const { limit, offset } = pageBounds(query.limit, query.offset);
      const [count] = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gh_hosts WHERE ${filter}`, params);
      const rows = await ctx.db.query<HostRow>(`SELECT * FROM gh_hosts WHERE ${filter} ORDER BY id LIMIT ${limit ?? "ALL"} OFFSET ${offset}`, params);
      return { data: rows.map(toHost), count: count?.n ?? 0 };
    },
  };
}
