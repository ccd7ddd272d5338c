// Reports held for workspaces that do not exist yet (see ../placements.ts for the rules).
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import { lockWorkspaceId, workspaceExists, type PendingPlacementRow } from "../placements.js";
import type { PendingPlacement, PlacementRepository } from "../types.js";
import { requireOrgId } from "../validate.js";
import { runWrite } from "../write.js";

const typeRe = /^[a-z0-9_]{1,64}\/[a-z0-9_-]{1,64}$/;
const idRe = /^[^\s\x00-\x1f]{1,1024}$/;

function requireText(value: unknown, re: RegExp, field: string): string {
  if (typeof value !== "string" || !re.test(value)) throw new StoreError("invalid-argument", `Invalid ${field}.`, field);
  return value;
}

const toPlacement = (r: PendingPlacementRow): PendingPlacement => ({
  resourceType: r.resource_type,
  resourceId: r.resource_id,
  workspaceId: r.workspace_id,
  reporterOrg: r.reporter_org === "" ? null : r.reporter_org,
  reported: r.reported_at,
});

export function placementRepository(ctx: StoreContext): PlacementRepository {
  return {
    async hold(placement) {
      const resourceType = requireText(placement.resourceType, typeRe, "resource_type");
      const resourceId = requireText(placement.resourceId, idRe, "resource_id");
      const workspaceId = requireText(placement.workspaceId, idRe, "workspace_id");
      const reporterOrg = placement.reporterOrg === null ? "" : requireOrgId(placement.reporterOrg);
      // Held in another tenant's workspace only when bound to the reporter's tenant (never placed there).
      if (placement.foreignWorkspace && reporterOrg === "") throw new StoreError("invalid-argument", "A report held in another tenant's workspace needs the reporter's tenant.", "reporter_org");
      return runWrite(ctx, null, "hold_placement", async (w) => {
        w.markUnchanged();
        await lockWorkspaceId(w.tx, [workspaceId]);
        // Created meanwhile: the caller places it the ordinary way.
        if (!placement.foreignWorkspace && (await workspaceExists(w.tx, workspaceId))) return false;
        await w.tx.query(
          `INSERT INTO gh_pending_placements (resource_type, resource_id, workspace_id, reporter_org) VALUES ($1, $2, $3, $4)
           ON CONFLICT (resource_type, resource_id, reporter_org) DO UPDATE
             SET workspace_id = EXCLUDED.workspace_id, reporter_org = EXCLUDED.reporter_org, reported_at = clock_timestamp()`,
          [resourceType, resourceId, workspaceId, reporterOrg],
        );
        return true;
      });
    },

    async release(resourceType, resourceId, reporterOrg) {
      const type = requireText(resourceType, typeRe, "resource_type");
      const id = requireText(resourceId, idRe, "resource_id");
      const org = reporterOrg === null ? null : requireOrgId(reporterOrg);
      return runWrite(ctx, null, "release_placement", async (w) => {
        w.markUnchanged();
        // A reporter of a known tenant releases only its own or anonymous reports.
        const rows = await w.tx.query<PendingPlacementRow>(
          `DELETE FROM gh_pending_placements WHERE resource_type = $1 AND resource_id = $2 AND ($3::text IS NULL OR reporter_org IN ('', $3::text)) RETURNING *`,
          [type, id, org],
        );
        return rows.length > 0;
      });
    },

    async get(resourceType, resourceId, reporterOrg) {
      const rows = await ctx.db.query<PendingPlacementRow>(
        `SELECT * FROM gh_pending_placements WHERE resource_type = $1 AND resource_id = $2 AND ($3::boolean OR reporter_org = $4)
         ORDER BY reported_at DESC, reporter_org LIMIT 1`,
        [resourceType, resourceId, reporterOrg === undefined, reporterOrg ?? ""],
      );
      return rows[0] ? toPlacement(rows[0]) : undefined;
    },
  };
}
