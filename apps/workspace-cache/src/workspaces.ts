import { LRUCache } from "lru-cache";
import { type Cache, type CacheMetrics, type Codec, readThrough, withTimeout } from "@gatehouse/cache";
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
  /**
   * A store revision at or before the read (the head revision taken first). A directory that
   * `watch`es must set it: a cached pair older than a later change of its organisation is refused.
   */
  revision?: number;
}

/** Where the ids really live (the store). `null` = the organisation has no tenant. */
export interface WorkspaceDirectory {
  builtInWorkspaces(orgId: string): Promise<BuiltInWorkspaces | null>;
  /**
   * Optional change notifications: `onChange(orgId, revision)` for every committed write that may
   * change an organisation's built-in workspaces (a rename), in revision order.
   */
  watch?(onChange: (orgId: string, revision: number) => void): Promise<{ stop(): Promise<void> }>;
  /** Optional cheap round trip for the readiness probe (rejects when the source is unreachable). */
  ping?(): Promise<unknown>;
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
   * modified times do (a renamed default workspace): without change notifications (`invalidate`)
   * they are at most this stale; with them, this only bounds staleness while notifications stop.
   */
  entryTtlMs?: number;
  /** Organisations whose last change is remembered for refusing older entries (default 100,000). */
  maxRememberedChanges?: number;
}

export interface WorkspaceLookup {
  /** Root and default workspace of an organisation; throws `org-not-found` or `source-unavailable`. */
  builtIn(orgId: string): Promise<{ workspaces: BuiltInWorkspaces; from: "cache" | "source" }>;
  /**
   * The organisation's built-in workspaces may have changed at `revision`: the cached pair is
   * deleted, and any pair read before that revision (e.g. one a concurrent miss stores just after
   * the delete, here or in another replica sharing Redis) is refused from then on.
   */
  invalidate(orgId: string, revision: number): Promise<void>;
}

const keyOf = (orgId: string) => `workspaces:builtin:${encodeURIComponent(orgId)}`;

/**
 * Read-through lookup of the built-in workspaces. Entries expire after `entryTtlMs`, and a change
 * notification makes older entries of that organisation stale at once; an unknown organisation is
 * never stored, so a tenant created later is found.
 */
export function createWorkspaceLookup(options: WorkspaceLookupOptions): WorkspaceLookup {
  const ttlMs = options.entryTtlMs ?? DEFAULT_ENTRY_TTL_MS;
  // Remembered twice an entry's lifetime: a pair stored during the change expires before we forget it.
  const changedAt = new LRUCache<string, number>({ max: options.maxRememberedChanges ?? 100_000, ttl: 2 * ttlMs });
  return {
    async invalidate(orgId, revision) {
      if (revision > (changedAt.get(orgId) ?? -1)) changedAt.set(orgId, revision);
      // Best effort: entries older than `revision` are refused whether or not the delete lands.
      await withTimeout(options.cache.delete(keyOf(orgId)), options.cacheTimeoutMs ?? 100, "cache delete").catch((err: unknown) =>
        options.metrics?.failure("builtin_workspaces", "delete", (err as { code?: string }).code ?? "cache-unavailable"),
      );
    },
    async builtIn(orgId) {
      const key = keyOf(orgId);
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
        ttlMs,
        shouldStore: (value) => value !== null,
        accept: (value) => {
          const changed = changedAt.get(orgId);
          return changed === undefined || (value?.revision ?? -1) >= changed;
        },
      });
      if (result.value === null) throw new WorkspaceCacheError("org-not-found", `No tenant exists for organisation '${orgId}'.`);
      return { workspaces: result.value, from: result.from };
    },
  };
}
