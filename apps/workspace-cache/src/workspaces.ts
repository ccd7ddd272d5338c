import { type Cache, type CacheMetrics, type Codec, readThrough } from "@gatehouse/cache";
import { WorkspaceCacheError } from "./errors.js";

export type BuiltInWorkspaceType = "root" | "default";

/** A workspace as the management API returns it (snake_case wire fields). */
export interface WorkspaceRecord {
  id: string;
  parent_id: string | null;
  type: string;
  name: string;
  description: string | null;
  created: string;
  modified: string;
}

export interface BuiltInWorkspaces {
  root: WorkspaceRecord;
  default: WorkspaceRecord;
}

/** Where the ids really live (the store). `null` = the organisation has no tenant. */
export interface WorkspaceDirectory {
  builtInWorkspaces(orgId: string): Promise<BuiltInWorkspaces | null>;
}

export const DEFAULT_ENTRY_TTL_MS = 60_000;

const ORG_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function assertOrgId(orgId: string | undefined): string {
  const value = orgId?.trim();
  if (!value) throw new WorkspaceCacheError("invalid-request", "The x-rh-rbac-org-id header is required.");
  if (!ORG_ID.test(value)) throw new WorkspaceCacheError("invalid-request", "The x-rh-rbac-org-id header is not a valid organisation id.");
  return value;
}

const builtInCodec: Codec<BuiltInWorkspaces | null> = {
  encode: (value) => JSON.stringify(value),
  decode: (text) => {
    const parsed = JSON.parse(text) as BuiltInWorkspaces;
    if (typeof parsed?.root?.id !== "string" || typeof parsed?.default?.id !== "string") throw new Error("not a built-in workspace pair");
    return parsed;
  },
};

export interface WorkspaceLookupOptions {
  cache: Cache;
  directory: WorkspaceDirectory;
  metrics?: CacheMetrics;
  /** Deadline of each cache round trip before the store answers instead (default 100 ms). */
  cacheTimeoutMs?: number;
  /**
   * Lifetime of a cached pair (default 60 s). The ids never change, but names, descriptions and
   * modified times do (a renamed default workspace): they are at most this stale.
   */
  entryTtlMs?: number;
}

export interface WorkspaceLookup {
  /** Root and default workspace of an organisation; throws `org-not-found` or `source-unavailable`. */
  builtIn(orgId: string): Promise<{ workspaces: BuiltInWorkspaces; from: "cache" | "source" }>;
}

/**
 * Read-through lookup of the built-in workspaces. Entries expire after `entryTtlMs` (the mutable
 * fields must not be served stale forever); an unknown organisation is never stored, so a tenant
 * created later is found.
 */
export function createWorkspaceLookup(options: WorkspaceLookupOptions): WorkspaceLookup {
  return {
    async builtIn(orgId) {
      const key = `workspaces:builtin:${encodeURIComponent(orgId)}`;
      const loader = async () => {
        try {
          return await options.directory.builtInWorkspaces(orgId);
        } catch (cause) {
          throw new WorkspaceCacheError("source-unavailable", "The workspace store is unavailable.", { cause });
        }
      };
      const result = await readThrough(options.cache, key, loader, {
        name: "builtin_workspaces",
        codec: builtInCodec,
        metrics: options.metrics,
        timeoutMs: options.cacheTimeoutMs,
        ttlMs: options.entryTtlMs ?? DEFAULT_ENTRY_TTL_MS,
        shouldStore: (value) => value !== null,
      });
      if (result.value === null) throw new WorkspaceCacheError("org-not-found", `No tenant exists for organisation '${orgId}'.`);
      return { workspaces: result.value, from: result.from };
    },
  };
}
