// Loaders of single role and workspace rows with the tenant check, shared by the repositories
// (role bindings need both; roles and workspaces delete bindings), so none of them import each other.
import type { Queryable } from "../db/db.js";
import { StoreError } from "../errors.js";
import type { RoleKind, RoleScope, WorkspaceType } from "../types.js";

export interface RoleRow {
  id: string;
  org_id: string | null;
  kind: RoleKind;
  name: string;
  display_name: string | null;
  description: string | null;
  scope: RoleScope;
  platform_default: boolean;
  admin_default: boolean;
  permissions: string[];
  /** The v1 access list a v1 write or an import keeps (null: the permissions alone). */
  v1_access: unknown[] | null;
  version: number;
  created_at: Date;
  modified_at: Date;
  [k: string]: unknown;
}

/**
 * A role visible to the tenant (its custom roles and public roles); `cross-tenant` / `not-found`,
 * with the same words, so a message never confirms that another tenant's id exists.
 */
export async function loadRole(tx: Queryable, orgId: string, id: string, field = "role"): Promise<RoleRow> {
  const [row] = await tx.query<RoleRow>("SELECT * FROM gh_roles WHERE id = $1", [id]);
  if (row && (row.org_id === null || row.org_id === orgId)) return row;
  if (row) throw new StoreError("cross-tenant", `The following roles do not exist: ${id}`, field);
  throw new StoreError("not-found", `The following roles do not exist: ${id}`, field);
}

export interface WorkspaceRow {
  id: string;
  org_id: string;
  type: WorkspaceType;
  parent_id: string | null;
  name: string;
  description: string | null;
  created_at: Date;
  modified_at: Date;
  [k: string]: unknown;
}

/** The workspace in this tenant, `cross-tenant` if it belongs to another one, else `not-found`. */
export async function loadWorkspace(tx: Queryable, orgId: string, id: string, field = "id"): Promise<WorkspaceRow> {
  const [row] = await tx.query<WorkspaceRow>("SELECT * FROM gh_workspaces WHERE id = $1", [id]);
  if (row && row.org_id === orgId) return row;
  if (row) throw new StoreError("cross-tenant", `Workspace '${id}' does not exist.`, field);
  throw new StoreError("not-found", `Workspace '${id}' does not exist.`, field);
}
