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

/** Change-feed kinds that may change a built-in workspace's fields (a rename is `update_workspace`). */
const WORKSPACE_CHANGE = /workspace|tenant/;

/**
 * The store as the source of truth for built-in workspaces; never creates a tenant. `watch` follows
 * the change feed (LISTEN/NOTIFY, polling as the fallback) from the head at the time of the call.
 */
export function workspaceDirectoryFromStore(store: Store): WorkspaceDirectory {
  return {
    async builtInWorkspaces(orgId) {
      // The head first: the rows read next are at this revision or later.
      const revision = await store.feed.headRevision();
      const tenant = await store.tenants.find(orgId);
      if (!tenant) return null;
      const [root, defaultWorkspace] = await Promise.all([store.workspaces.get(orgId, tenant.rootWorkspaceId), store.workspaces.get(orgId, tenant.defaultWorkspaceId)]);
      return { root: toRecord(root), default: toRecord(defaultWorkspace), revision };
    },
    async watch(onChange) {
      const handle = store.feed.follow(await store.feed.headRevision(), (changes) => {
        for (const change of changes) if (change.orgId !== null && WORKSPACE_CHANGE.test(change.kind)) onChange(change.orgId, change.revision);
      });
      return { stop: () => handle.stop() };
    },
    ping: () => store.feed.headRevision(),
  };
}
