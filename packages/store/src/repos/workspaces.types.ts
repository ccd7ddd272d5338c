// Workspaces: the tree under each tenant.
// Part of the store's public types (types.ts re-exports every one).

import type { Page, Written } from "./shared.types.js";

export const WORKSPACE_TYPES = ["root", "default", "standard", "ungrouped-hosts"] as const;

export type WorkspaceType = (typeof WORKSPACE_TYPES)[number];

export interface Workspace {
  id: string;
  orgId: string;
  type: WorkspaceType;
  /** Null only for root. */
  parentId: string | null;
  name: string;
  description: string | null;
  created: Date;
  modified: Date;
}

export interface WorkspaceAncestor {
  id: string;
  name: string;
  parentId: string | null;
}

export type WorkspaceOrderField = "name" | "created" | "modified" | "type";

export interface WorkspaceListQuery {
  /** Any of these types; empty or absent = all. */
  types?: WorkspaceType[];
  /** Case-insensitive substring; with `*` a case-insensitive glob anchored at both ends. */
  name?: string;
  /** Direct children of this workspace only. */
  parentId?: string;
  /** Only these ids. */
  ids?: string[];
  /** e.g. `name`, `-created`. Default `name`. */
  orderBy?: `${"" | "-"}${WorkspaceOrderField}`;
  /** -1 = all. Default 10. */
  limit?: number;
  offset?: number;
}

export interface WorkspaceRepository {
  /** Creates a `standard` workspace; parent defaults to the tenant's default workspace. */
  create(orgId: string, input: { name: string; description?: string | null; parentId?: string }): Promise<Written<Workspace>>;
  get(orgId: string, id: string): Promise<Workspace>;
  list(orgId: string, query?: WorkspaceListQuery): Promise<Page<Workspace>>;
  /** Ancestors up to and including root, nearest first, excluding the workspace itself. */
  ancestry(orgId: string, id: string): Promise<WorkspaceAncestor[]>;
  /** Rename / describe. Root and ungrouped-hosts are immutable; default may be renamed. */
  update(orgId: string, id: string, patch: { name?: string; description?: string | null }): Promise<Written<Workspace>>;
  /** Standard workspaces only; not into its own subtree; depth and sibling-name rules apply. */
  move(orgId: string, id: string, newParentId: string): Promise<Written<Workspace>>;
  /** Standard workspaces without children and hosts only; deletes the bindings attached to it. */
  delete(orgId: string, id: string): Promise<Written<{ id: string }>>;
  /** Get-or-create the tenant's `ungrouped-hosts` workspace (child of default). */
  ensureUngroupedHosts(orgId: string): Promise<Written<Workspace>>;
}
