// Public types of @gatehouse/store: the domain records, the repository interfaces and the store
// itself. Every read and write is scoped to one tenant (its org id); rows of another tenant are
// never returned or touched (a reference to one is `cross-tenant` or `not-found`).
// The domain types live beside their repositories (repos/*.types.ts); this file gathers them
// with the store's configuration and the store itself, so importers keep one entry.

import type { ChangeFeed } from "./feed.types.js";
import type { AuditLogRepository } from "./repos/audit-log.types.js";
import type { CheckpointRepository } from "./repos/checkpoints.types.js";
import type { CrossAccountRepository } from "./repos/cross-account.types.js";
import type { GroupRepository } from "./repos/groups.types.js";
import type { HostRepository } from "./repos/hosts.types.js";
import type { ImportRepository } from "./repos/imports.types.js";
import type { OrgModeRepository } from "./repos/org-mode.types.js";
import type { PlacementRepository } from "./repos/placements.types.js";
import type { PrincipalRepository } from "./repos/principals.types.js";
import type { RelationshipRepository } from "./repos/relationships.types.js";
import type { ReplicatedRepository } from "./repos/replicated.types.js";
import type { RoleBindingRepository } from "./repos/role-bindings.types.js";
import type { RoleConfigRepository, RoleRepository } from "./repos/roles.types.js";
import type { TokenCodec } from "./repos/shared.types.js";
import type { TenantRepository } from "./repos/tenants.types.js";
import type { V1WriteRepository } from "./repos/v1-writes.types.js";
import type { V1Repository } from "./repos/v1.types.js";
import type { WorkspaceRepository } from "./repos/workspaces.types.js";

export * from "./repos/shared.types.js";
export * from "./repos/tenants.types.js";
export * from "./repos/workspaces.types.js";
export * from "./repos/roles.types.js";
export * from "./repos/role-bindings.types.js";
export * from "./repos/groups.types.js";
export * from "./repos/principals.types.js";
export * from "./repos/hosts.types.js";
export * from "./repos/placements.types.js";
export * from "./repos/replicated.types.js";
export * from "./repos/relationships.types.js";
export * from "./feed.types.js";
export * from "./repos/imports.types.js";
export * from "./repos/v1.types.js";
export * from "./repos/checkpoints.types.js";
export * from "./repos/org-mode.types.js";
export * from "./repos/audit-log.types.js";
export * from "./repos/v1-writes.types.js";
export * from "./repos/cross-account.types.js";

export interface StoreConfig {
  /** Real Postgres (node-postgres). When absent, embedded PGlite is used. */
  databaseUrl?: string;
  /** Postgres schema holding every table (created if missing). Default `public`. */
  schema?: string;
  /** PGlite data directory; absent = in-memory. Ignored with `databaseUrl`. */
  dataDir?: string;
  /** Principal/tenant id domain, `<domain>/<org_id>`. Default `redhat`. */
  domain?: string;
  /** Id of the `rbac/platform` object every tenant points at (`t_platform`). Default `local`. */
  platformId?: string;
  /** Max edges below root a workspace may sit (root → default → s → s → s → s is 5). Default 5. */
  workspaceDepthLimit?: number;
  /** Max connections of the pg pool. Default 10. */
  poolSize?: number;
  /**
   * A read replica of `databaseUrl` (streaming replication): snapshots and checkpoints are read
   * there, the change feed, the head and every write stay on the primary. Needs `databaseUrl`.
   */
  readDatabaseUrl?: string;
  /** Max connections of the read-replica pool. Default 4. */
  readPoolSize?: number;
  /** Change-feed polling interval when no notification arrives, in ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * `apply` (default): apply missing migrations at open. `verify`: apply nothing and refuse to open
   * (`unavailable`) while any is missing, for deployments that migrate once before starting pods.
   */
  migrations?: "apply" | "verify";
  /** Bytes per stored part of a checkpoint (`CHECKPOINT_PART_BYTES`, 64 MiB, unless a test asks for small parts). */
  checkpointPartBytes?: number;
  /**
   * The time, in epoch ms, against which a grant's expiry is judged (a write's expiry must lie
   * ahead of it; `removeExpired()` without an argument sweeps up to it). Default `Date.now`.
   * Tests pass their own clock so expiry never depends on how fast the machine runs.
   */
  now?: () => number;
}

export interface Store {
  readonly backend: "pg" | "pglite";
  /** Random id of this database, fixed at the first migration (tokens carry it). */
  readonly storeId: string;
  readonly domain: string;
  readonly tenants: TenantRepository;
  readonly workspaces: WorkspaceRepository;
  readonly roles: RoleRepository;
  /** The active role configuration (reloads) and what stored relationships use. */
  readonly roleConfig: RoleConfigRepository;
  readonly roleBindings: RoleBindingRepository;
  readonly groups: GroupRepository;
  readonly principals: PrincipalRepository;
  readonly hosts: HostRepository;
  /** Reports held for workspaces that do not exist yet. */
  readonly placements: PlacementRepository;
  /** Tuples replicated by another management plane (KesselTupleService). */
  readonly replicated: ReplicatedRepository;
  readonly relationships: RelationshipRepository;
  /** Whole-tenant imports in one transaction (`gatehouse migrate`). */
  readonly imports: ImportRepository;
  /** Reads with insights-rbac's v1 semantics (groups → roles → access). */
  readonly v1: V1Repository;
  /** v1 role and group writes with their dual write into v2 bindings. */
  readonly v1Writes: V1WriteRepository;
  /** v1 / v2 mode per organisation. */
  readonly orgMode: OrgModeRepository;
  readonly auditLog: AuditLogRepository;
  /** insights-rbac's cross-account requests and the time-bound grants an approved one writes. */
  readonly crossAccount: CrossAccountRepository;
  /** The engines' graph checkpoints (opaque bytes by revision). */
  readonly checkpoints: CheckpointRepository;
  readonly feed: ChangeFeed;
  readonly tokens: TokenCodec;
  /** Stops followers and closes every connection. */
  close(): Promise<void>;
}
