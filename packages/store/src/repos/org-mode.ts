// An organisation's API version, as insights-rbac's tenant mapping keeps it: v1 until its first
// v2 role or role-binding write (or an operator's activation), v2 from then on, never back. The
// mode is read and set inside the tenant's write transaction, after the tenant's write lock
// (runWrite), so a v1 write either commits before an activation or sees it and is refused.
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import type { AuditEntry, OrgModeRepository, OrgModeState } from "../types.js";
import { requireOrgId } from "../validate.js";
import { runWrite, type TenantRow, type WriteContext } from "../write.js";
import { recordAudit } from "./audit-log.js";

interface ModeRow {
  org_id: string;
  v2_write_activated_at: Date | null;
  [k: string]: unknown;
}

const toState = (row: ModeRow): OrgModeState => ({ orgId: row.org_id, mode: row.v2_write_activated_at ? "v2" : "v1", v2ActivatedAt: row.v2_write_activated_at });

/** The tenant's row, its mode locked for the transaction. */
async function lockMode(w: WriteContext, orgId: string): Promise<TenantRow & ModeRow> {
  // FOR SHARE as upstream: v1 writers of other processes do not block one another here.
  const [row] = await w.tx.query<TenantRow & ModeRow>("SELECT * FROM gh_tenants WHERE org_id = $1 FOR SHARE", [orgId]);
  if (!row) throw new StoreError("tenant-not-found", `Tenant for org '${orgId}' does not exist.`);
  return row;
}

/** Refuses a v1 role write once the organisation is in v2 mode (`v2-activated`); else the tenant's row. */
export async function assertV1WriteAllowed(w: WriteContext, orgId: string): Promise<TenantRow> {
  const row = await lockMode(w, orgId);
  if (row.v2_write_activated_at) throw new StoreError("v2-activated", "V1 write operations are not allowed for orgs using workspaces.");
  return row;
}

/** Puts the organisation in v2 mode if it is not yet (called by every v2 role and role-binding write). */
export async function ensureV2WriteActivated(w: WriteContext, orgId: string): Promise<boolean> {
  const row = await lockMode(w, orgId);
  if (row.v2_write_activated_at) return false;
  await w.tx.query("UPDATE gh_tenants SET v2_write_activated_at = clock_timestamp() WHERE org_id = $1 AND v2_write_activated_at IS NULL", [orgId]);
  return true;
}

export function orgModeRepository(ctx: StoreContext): OrgModeRepository {
  return {
    async get(orgId) {
      requireOrgId(orgId);
      const [row] = await ctx.db.query<ModeRow>("SELECT org_id, v2_write_activated_at FROM gh_tenants WHERE org_id = $1", [orgId]);
      if (!row) throw new StoreError("tenant-not-found", `Tenant for org '${orgId}' does not exist.`);
      return toState(row);
    },

    async activate(orgId, audit?: AuditEntry) {
      requireOrgId(orgId);
      return runWrite(ctx, orgId, "activate_v2", async (w) => {
        const changed = await ensureV2WriteActivated(w, orgId);
        // No relationship changes: the activation takes no revision.
        w.markUnchanged();
        if (changed && audit) await recordAudit(w, orgId, [audit]);
        const [row] = await w.tx.query<ModeRow>("SELECT org_id, v2_write_activated_at FROM gh_tenants WHERE org_id = $1", [orgId]);
        return { ...toState(row!), changed };
      });
    },
  };
}
