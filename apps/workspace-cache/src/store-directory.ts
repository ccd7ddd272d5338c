import type { Store, Workspace } from "@gatehouse/store";
import type { WorkspaceDirectory, WorkspaceRecord } from "./workspaces.js";

function toRecord(workspace: Workspace): WorkspaceRecord {
  return {
    id: workspace.id,
    parent_id: workspace.parentId,
    type: workspace.type,
    name: workspace.name,
    description: workspace.description,
    created: workspace.created.toISOString(),
    modified: workspace.modified.toISOString(),
  };
}

/** The store as the source of truth for built-in workspaces; never creates a tenant. */
export function workspaceDirectoryFromStore(store: Store): WorkspaceDirectory {
  return {
    async builtInWorkspaces(orgId) {
      const tenant = await store.tenants.find(orgId);
      if (!tenant) return null;
      const [root, defaultWorkspace] = await Promise.all([store.workspaces.get(orgId, tenant.rootWorkspaceId), store.workspaces.get(orgId, tenant.defaultWorkspaceId)]);
      return { root: toRecord(root), default: toRecord(defaultWorkspace) };
    },
  };
}
