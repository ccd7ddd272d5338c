// Public entry of @gatehouse/workspace-cache.
export { buildServer } from "./server.js";
export type { CacheConfig, WorkspaceCacheConfig, WorkspaceCacheServer } from "./server.js";
export type { AuthConfig } from "./authn.js";
export { WorkspaceCacheError } from "./errors.js";
export type { WorkspaceCacheErrorCode } from "./errors.js";
export { createWorkspaceLookup } from "./workspaces.js";
export type { BuiltInWorkspaces, BuiltInWorkspaceType, WorkspaceDirectory, WorkspaceLookup, WorkspaceRecord } from "./workspaces.js";
export { workspaceDirectoryFromStore } from "./store-directory.js";
export { workspaceCacheSettings } from "./settings.js";
