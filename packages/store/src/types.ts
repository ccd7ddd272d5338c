// Public types of @gatehouse/store: the domain records, the repository interfaces and the store
// itself. Every read and write is scoped to one tenant (its org id); rows of another tenant are
// never returned or touched (a reference to one is `cross-tenant` or `not-found`).

import type { Relationship } from "@gatehouse/evaluator";

/**
 * A relationship tuple: `Relationship` of @gatehouse/evaluator, re-exported so there is one
 * definition (SpiceDB type names, stored relations carry the `t_` prefix).
 */
export type { Relationship };

/** Revisions are positive integers assigned in commit order (1 = first write ever). */
export type Revision = number;

/** Opaque, versioned encoding of a revision (see `tokens.ts`). */
export type ConsistencyToken = string;

/** What every write method returns: the value written, and the revision of its transaction. */
export interface Written<T> {
  value: T;
  revision: Revision;
  token: ConsistencyToken;
}

// ---------------------------------------------------------------------------------------------
// Configuration

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

// ---------------------------------------------------------------------------------------------
// Tenants

export interface Tenant {
  orgId: string;
  /** `<domain>/<org_id>`: the id of the `rbac/tenant` resource. */
  tenantId: string;
  rootWorkspaceId: string;
  defaultWorkspaceId: string;
  /** Group whose members are all principals of the tenant ("Default access"). */
  platformDefaultGroupId: string;
  /** Group whose members are the org admins of the tenant ("Default admin access"). */
  adminDefaultGroupId: string;
  created: Date;
}

export interface TenantRepository {
  /**
   * Creates the tenant in one transaction: root and default workspaces, the two default groups,
   * and the six default bindings (platform-default and admin-default group × tenant / root /
   * default level, each to the platform parent role of that level). Idempotent, also when called
   * concurrently: an existing tenant is returned unchanged (`created: false`).
   */
  bootstrap(orgId: string): Promise<Written<Tenant> & { created: boolean }>;
  /** `not-found` if the tenant was never bootstrapped. */
  get(orgId: string): Promise<Tenant>;
  /** Like `get` but returns `undefined` for an unknown tenant. */
  find(orgId: string): Promise<Tenant | undefined>;
}

// ---------------------------------------------------------------------------------------------
// Workspaces

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

export interface Page<T> {
  data: T[];
  /** Total matching rows, ignoring limit/offset. */
  count: number;
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

// ---------------------------------------------------------------------------------------------
// Roles

/** Level a role is bound at: Default Workspace, Root Workspace, or tenant (organization). */
export type RoleScope = "default" | "root" | "tenant";
/** custom: per tenant; seeded: public system role; platform: public default parent role. */
export type RoleKind = "custom" | "seeded" | "platform";

export interface Role {
  id: string;
  /** Null for public (seeded, platform) roles. */
  orgId: string | null;
  kind: RoleKind;
  name: string;
  displayName: string | null;
  description: string | null;
  /** v1 permission strings `app:resource:verb`, in the order given. */
  permissions: string[];
  scope: RoleScope;
  platformDefault: boolean;
  adminDefault: boolean;
  created: Date;
  modified: Date;
}

/** A system role definition from the role configuration (plain data). */
export interface SystemRoleDefinition {
  name: string;
  display_name?: string;
  description?: string;
  platform_default?: boolean;
  admin_default?: boolean;
  access: { permission: string }[];
  /** Level the role needs (highest level among its permissions); default `default`. */
  scope?: RoleScope;
  /** The configuration's version of the role (default 1): a stored role is rewritten only when this is higher. */
  version?: number;
}

/** What one seeding run did (insights-rbac's rules: create missing, update on a higher version, leave the rest). */
export interface SeedReport {
  /** Every configured role as stored after the run, in the order given. */
  roles: Role[];
  created: string[];
  updated: Array<{ name: string; from: number; to: number }>;
  /** Configured with the stored version (or a lower one): not written. */
  unchanged: string[];
  /** Seeded earlier but no longer configured: kept (bindings may use them), as insights-rbac does. */
  unconfigured: string[];
  /** False when the run wrote nothing (no new revision). */
  changed: boolean;
}

export interface SeedOptions {
  /** Called after each configured role is handled. */
  onProgress?: (done: number, total: number, name: string, action: "created" | "updated" | "unchanged") => void;
  /**
   * Makes this configuration the active one in the same transaction (a reload): the run always
   * takes a revision, and its change-feed entry has kind `role_config`, so every follower switches
   * schema exactly at that revision.
   */
  activate?: ActiveRoleConfig;
}

/** The role configuration every service runs on. */
export interface ActiveRoleConfig {
  hash: string;
  dir: string;
  loadedAt: Date;
  schemaZed: string;
}

/** A schema element a configuration change would remove; `relation` is the stored name (`t_...`). */
export type SchemaElement = { kind: "type"; type: string } | { kind: "relation"; type: string; name: string } | { kind: "permission"; type: string; name: string };

export interface RoleConfigRepository {
  /** The active configuration, once a reload has recorded one. */
  active(): Promise<ActiveRoleConfig | undefined>;
  /** Those of `elements` that stored relationships (of any tenant) still use. */
  inUse(elements: SchemaElement[]): Promise<SchemaElement[]>;
}

/** Change-feed kind of a reload's commit. */
export const ROLE_CONFIG_CHANGE = "role_config";

export interface RoleInput {
  name: string;
  description?: string | null;
  permissions: string[];
  scope?: RoleScope;
}

export interface RoleListQuery {
  /** Case-insensitive substring; with `*` an anchored glob. */
  name?: string;
  /** Roles holding any of these exact permission strings (insights-rbac: a comma list is a union). */
  permissions?: string[];
  scope?: RoleScope;
  kinds?: RoleKind[];
  ids?: string[];
  orderBy?: "name" | "-name" | "modified" | "-modified" | "created" | "-created";
  limit?: number;
  offset?: number;
}

export interface RoleRepository {
  /**
   * Inserts or updates the public seeded roles by name (ids stay stable across re-seeding) and
   * recomputes the children of the six platform parent roles from the `platform_default` /
   * `admin_default` flags and scopes. Seeded roles absent from `roles` are deleted.
   */
  /** One transaction; idempotent (a re-run with the same versions writes nothing); custom roles are never touched. */
  seedSystemRoles(roles: SystemRoleDefinition[], options?: SeedOptions): Promise<Written<SeedReport>>;
  create(orgId: string, input: RoleInput): Promise<Written<Role>>;
  /** Full replacement; custom roles of the tenant only (`system-role-immutable`). */
  update(orgId: string, id: string, input: RoleInput): Promise<Written<Role>>;
  /** All-or-nothing; also deletes every binding that used the roles. */
  deleteMany(orgId: string, ids: string[]): Promise<Written<{ ids: string[] }>>;
  /** The tenant's custom roles and the public roles. */
  get(orgId: string, id: string): Promise<Role>;
  list(orgId: string, query?: RoleListQuery): Promise<Page<Role>>;
  /** The six platform parent roles (user/admin × scope). */
  platformRoles(): Promise<Role[]>;
}

// ---------------------------------------------------------------------------------------------
// Role bindings

export type BindingResourceType = "workspace" | "tenant";
export type BindingSubjectType = "group" | "principal";

/** `id` is a workspace id, or the tenant resource id `<domain>/<org_id>`. */
export interface BindingResource {
  type: BindingResourceType;
  id: string;
}
/** `id` is a group id, or a principal's user id. */
export interface BindingSubject {
  type: BindingSubjectType;
  id: string;
}

/** One binding row: a role on a resource, granted to a set of subjects. */
export interface RoleBinding {
  id: string;
  orgId: string;
  roleId: string;
  resource: BindingResource;
  subjects: BoundSubject[];
  created: Date;
  modified: Date;
}

/** A subject of a binding; `expiresAt` set for a time-bound grant (a Gatehouse extension). */
export interface BoundSubject extends BindingSubject {
  expiresAt?: Date;
}

export interface RoleBindingGrant {
  resource: BindingResource;
  subject: BindingSubject;
  roleId: string;
  /** Time-bound grant: the subject holds the role until then (must be in the future). */
  expiresAt?: Date;
}

export interface RoleBindingListQuery {
  resource?: BindingResource;
  /** With `resource`: also bindings on its ancestors (workspaces up to root, then tenant). */
  includeInherited?: boolean;
  /** Bindings naming this subject directly. */
  subject?: BindingSubject;
  /** Bindings that reach this principal (user id) directly or through any of its groups. */
  grantedToPrincipal?: string;
  roleId?: string;
  /**
   * Also the organisation-level parts of v1 roles mixing workspace-limited and unlimited access
   * (kept in relationships only, repos/v1-role-parts.ts), as bindings of the role carrying
   * `permissions`. They are listed after the ordinary bindings' order, by the role's modified time.
   */
  includeV1Parts?: boolean;
  limit?: number;
  offset?: number;
}

/** A binding in a list result, with the resource it is attached to (`source`). */
export interface RoleBindingListItem extends RoleBinding {
  /** Equals `resource`; differs from the queried resource for inherited rows. */
  source: BindingResource;
  /**
   * Set on a v1 role's organisation-level part: the binding grants only these permissions of the
   * role (its unlimited ones; the role itself is bound on its workspaces). Its `id` is the part's
   * binding id, not a UUID.
   */
  permissions?: string[];
}

export interface RoleBindingRepository {
  /**
   * 1–100 grants, all-or-nothing; an existing identical grant is kept (idempotent). Returns one
   * binding per grant, in request order. Platform roles are not assignable.
   */
  batchCreate(orgId: string, grants: RoleBindingGrant[]): Promise<Written<RoleBinding[]>>;
  list(orgId: string, query?: RoleBindingListQuery): Promise<Page<RoleBindingListItem>>;
  get(orgId: string, id: string): Promise<RoleBinding>;
  /** Role ids the subject holds directly on the resource. */
  rolesOfSubject(orgId: string, resource: BindingResource, subject: BindingSubject): Promise<string[]>;
  /**
   * Replaces the roles of one subject on one resource (diff-based; bindings left without
   * subjects are deleted). `[]` removes all. The admin-default group cannot be modified.
   */
  replaceRolesOfSubject(
    orgId: string,
    resource: BindingResource,
    subject: BindingSubject,
    roleIds: string[],
    /** Time-bound grants: every listed role is held until then (must be in the future). */
    options?: { expiresAt?: Date },
  ): Promise<Written<{ roleIds: string[] }>>;
  /**
   * Deletes the binding subjects (and their tuples; bindings left without subjects too) whose
   * expiry is at or before `now`: one write, with its change-feed entry, per tenant that has any.
   * Answers never depend on it (evaluation already ignores what expired); it keeps storage small.
   */
  removeExpired(now?: Date): Promise<{ removed: number; revisions: Revision[] }>;
}

// ---------------------------------------------------------------------------------------------
// Groups and principals

export type GroupKind = "standard" | "platform-default" | "admin-default";

export interface Group {
  id: string;
  orgId: string;
  kind: GroupKind;
  name: string;
  description: string | null;
  created: Date;
  modified: Date;
}

export interface GroupRepository {
  create(orgId: string, input: { name: string; description?: string | null }, audit?: AuditOf<Group>): Promise<Written<Group>>;
  get(orgId: string, id: string): Promise<Group>;
  list(orgId: string, query?: { name?: string; limit?: number; offset?: number }): Promise<Page<Group>>;
  /** Standard groups only; also removes their memberships and binding subjects. */
  delete(orgId: string, id: string, audit?: AuditOf<Group>): Promise<Written<{ id: string }>>;
  /** Principals (user ids) must exist in the tenant. Idempotent. Standard groups only. */
  addMembers(orgId: string, groupId: string, userIds: string[], audit?: AuditOf<{ added: string[] }>): Promise<Written<{ added: string[] }>>;
  removeMembers(orgId: string, groupId: string, userIds: string[], audit?: AuditOf<{ removed: string[] }>): Promise<Written<{ removed: string[] }>>;
  /** User ids of the members (for default groups: as implied by the principals). */
  members(orgId: string, groupId: string): Promise<string[]>;
  /** Ids of every group the principal belongs to, default groups included. */
  groupsOf(orgId: string, userId: string): Promise<string[]>;
}

export type PrincipalType = "user" | "service-account";

export interface Principal {
  orgId: string;
  /** External user id; the `rbac/principal` id is `<domain>/<userId>`. */
  userId: string;
  username: string;
  type: PrincipalType;
  isOrgAdmin: boolean;
  /** The e-mail address the principal's identity last carried; null when none was seen. */
  email: string | null;
  created: Date;
  modified: Date;
}

export interface PrincipalInput {
  userId: string;
  username: string;
  type?: PrincipalType;
  isOrgAdmin?: boolean;
  /** Recorded when given; absent or null keeps the stored address. */
  email?: string | null;
}

export interface PrincipalRepository {
  /**
   * Inserts or updates principals; keeps their default-group memberships in step (every
   * principal is in the platform-default group, org admins also in the admin-default group).
   */
  upsert(orgId: string, principals: PrincipalInput[]): Promise<Written<Principal[]>>;
  /**
   * Makes the stored principal what this request's identity says (the admin flag above all):
   * read every time (no cache, so every replica sees the last change), written only when it
   * differs. `value`: whether it was written; `revision`: one at which the stored state holds
   * (the write's, else the head).
   */
  record(orgId: string, principal: PrincipalInput): Promise<Written<boolean>>;
  get(orgId: string, userId: string): Promise<Principal>;
  list(orgId: string, query?: { username?: string; type?: PrincipalType; orderBy?: "username" | "-username"; limit?: number; offset?: number }): Promise<Page<Principal>>;
  /** Removes the principal, its memberships and its direct binding subjects. */
  delete(orgId: string, userId: string): Promise<Written<{ userId: string }>>;
}

// ---------------------------------------------------------------------------------------------
// Reported resources (hosts)

export interface Host {
  orgId: string;
  id: string;
  workspaceId: string;
  reported: Date;
}

export interface HostReport {
  id: string;
  workspaceId: string;
}

export interface HostReportSummary {
  /** Hosts new to the store. */
  created: number;
  /** Hosts that were in another workspace. */
  moved: number;
  /** Hosts already where reported. */
  unchanged: number;
}

export interface HostRepository {
  /** Creates or moves the host into a workspace of the tenant (ReportResource). */
  report(orgId: string, hostId: string, workspaceId: string): Promise<Written<Host>>;
  /**
   * Many reports in one write transaction (a bulk import from an inventory): the same rows and
   * placements as one `report` per host, one change-feed entry. All or nothing: an unknown
   * workspace, a host of another tenant or a host listed twice changes nothing.
   */
  reportMany(orgId: string, hosts: readonly HostReport[]): Promise<Written<HostReportSummary>>;
  /** DeleteResource: `not-found` if the host is unknown in the tenant. */
  delete(orgId: string, hostId: string): Promise<Written<{ id: string }>>;
  get(orgId: string, hostId: string): Promise<Host>;
  list(orgId: string, query?: { workspaceId?: string; limit?: number; offset?: number }): Promise<Page<Host>>;
}

/** A report held until its workspace exists (ReportResource into an unknown workspace id). */
export interface PendingPlacement {
  resourceType: string;
  resourceId: string;
  workspaceId: string;
  /** The reporter's tenant; null when the engine runs without authentication. */
  reporterOrg: string | null;
  reported: Date;
}

export interface PlacementRepository {
  /**
   * Holds the report (replacing an earlier held one of the same reporter tenant for the resource;
   * another tenant's held report of the same id is held apart and never touched). false = the workspace
   * exists after all (created meanwhile): nothing held, place it the ordinary way.
   * `foreignWorkspace`: the workspace is another tenant's, so it is held as if the workspace did
   * not exist (the reporter learns nothing) and, bound to the reporter's tenant, never placed there.
   */
  hold(placement: { resourceType: string; resourceId: string; workspaceId: string; reporterOrg: string | null; foreignWorkspace?: boolean }): Promise<Written<boolean>>;
  /** DeleteResource of a held report; a known reporter tenant releases only its own (or anonymous) reports. */
  release(resourceType: string, resourceId: string, reporterOrg: string | null): Promise<Written<boolean>>;
  /** The held report of the resource by `reporterOrg` (null: an anonymous one); without it, the latest by anyone. */
  get(resourceType: string, resourceId: string, reporterOrg?: string | null): Promise<PendingPlacement | undefined>;
}

/** Filter over replicated tuples; an absent field matches anything ('' subjectRelation = none). */
export interface ReplicatedFilter {
  resourceType?: string;
  resourceId?: string;
  relation?: string;
  subjectType?: string;
  subjectId?: string;
  subjectRelation?: string;
  /** Only these resource types (what the caller may see); absent: every type. */
  resourceTypes?: readonly string[];
}

export type ReplicatedWriteOutcome =
  | { ok: true; count: number }
  /** The fencing check named a lock token that is not the lock's current one: nothing written. */
  | { ok: false; reason: "lock-mismatch" }
  /** Create without upsert met a tuple that already exists: nothing written. */
  | { ok: false; reason: "exists"; tuple: Relationship };

/** Tuples replicated by another management plane (KesselTupleService), in their own partition. */
export interface ReplicatedRepository {
  create(tuples: Relationship[], options: { upsert: boolean; fencing?: { lockId: string; lockToken: string } }): Promise<Written<ReplicatedWriteOutcome>>;
  delete(filter: ReplicatedFilter, options: { fencing?: { lockId: string; lockToken: string } }): Promise<Written<ReplicatedWriteOutcome>>;
  /** One page in key order, strictly after `after`. */
  read(filter: ReplicatedFilter, page?: { limit?: number; after?: Relationship }): Promise<Relationship[]>;
  /** Replaces the lock's token with a new random one and returns it (fencing for later writes). */
  acquireLock(lockId: string): Promise<Written<string>>;
}

// ---------------------------------------------------------------------------------------------
// Relationships, change feed, snapshot

export interface RelationshipWrite {
  /** Created if absent (idempotent). */
  touch?: Relationship[];
  /** Deleted if present (exact match). */
  delete?: Relationship[];
}

/** One committed write transaction, as seen by the change feed. */
export interface Change {
  revision: Revision;
  /** Tenant of the write; null for public data (seeded roles). */
  orgId: string | null;
  /** What kind of write produced it, e.g. `create_workspace`. */
  kind: string;
  /** Tuples that did not exist before this transaction. */
  touched: Relationship[];
  /** Tuples that existed before and were deleted. */
  deleted: Relationship[];
  committed: Date;
}

export interface RelationshipRepository {
  /**
   * Raw tuple write for the engine's ReportResource/DeleteResource and for imports. Deletes are
   * applied before touches. Validates names (SpiceDB syntax) and rejects an empty write.
   */
  write(orgId: string, write: RelationshipWrite): Promise<Written<{ touched: number; deleted: number }>>;
  /** Tuples of the tenant (and public tuples with `includePublic`) matching an exact filter. */
  read(orgId: string, filter?: Partial<Relationship> & { includePublic?: boolean }): Promise<Relationship[]>;
}

export interface Snapshot {
  /** Every change after this revision must be applied on top of the snapshot. */
  revision: Revision;
  /** Tuples in batches; consume fully (or `return()`) to release the read transaction. */
  batches: AsyncIterable<Relationship[]>;
}

export interface SnapshotOptions {
  /** Only this tenant's tuples plus public tuples; absent = all tenants. */
  orgId?: string;
  /** Tuples per batch. Default 10,000. */
  batchSize?: number;
}

export interface FollowOptions {
  /** Changes per batch at most. Default 1000. */
  batchSize?: number;
  /** Overrides the store's polling interval for this follower. */
  pollIntervalMs?: number;
  /** Called on errors the follower survives (dropped connection, failing `onBatch`). */
  onError?: (error: unknown) => void;
  /** Called once when a read of the feed succeeds again after one or more errors. */
  onResumed?: () => void;
  /**
   * Called once when the feed no longer holds the changes after the follower's position
   * (retention deleted them, `feed-truncated`); the follower has stopped. Default: `onError`.
   */
  onTruncated?: (error: unknown) => void;
}

export interface FollowHandle {
  /** Highest revision delivered to `onBatch` (and not thrown back). */
  readonly revision: Revision;
  stop(): Promise<void>;
}

export interface ChangeFeed {
  /** Head revision: the revision of the last committed write (0 for an empty store). */
  headRevision(): Promise<Revision>;
  /** Consistent snapshot of the tuples at one revision. */
  snapshot(options?: SnapshotOptions): Promise<Snapshot>;
  /** Changes after `fromRevision`, in order (for catch-up or paging). */
  changesSince(fromRevision: Revision, limit?: number): Promise<Change[]>;
  /**
   * Delivers every change after `fromRevision`, in order, never twice and never skipping, woken by
   * LISTEN/NOTIFY with polling as the fallback. `onBatch` is awaited before the next batch; if it
   * throws, the same changes are delivered again later.
   */
  follow(fromRevision: Revision, onBatch: (changes: Change[]) => void | Promise<void>, options?: FollowOptions): FollowHandle;
  /** Resolves once the head revision is ≥ `revision`; `timeout` error after `timeoutMs`. */
  waitForRevision(revision: Revision, timeoutMs: number): Promise<Revision>;
  /**
   * The highest revision retention deleted (0: none). Reading or following from a revision below
   * it fails with `feed-truncated`: the reader must start from a snapshot.
   */
  prunedThrough(): Promise<Revision>;
  /**
   * Deletes the changes up to `throughRevision` (capped at the head); returns how many. Used by
   * the retention job (retention.ts).
   */
  prune(throughRevision: Revision): Promise<number>;
}

export interface TokenCodec {
  /** `GH1.` + base64url JSON `{v:1, r:"<revision>", s:"<store id>"}`. */
  encode(revision: Revision): ConsistencyToken;
  /** `malformed-token` for garbage, `foreign-token` for a token of another store. */
  decode(token: ConsistencyToken): Revision;
}

// ---------------------------------------------------------------------------------------------
// Imports (one tenant's migration plan in one transaction)

/** A custom role of an import plan; `key` names it inside the plan (bindings refer to it). */
export interface ImportRole {
  key: string;
  /** Id used when the role is created. An existing custom role with this id, else with this name (case-insensitive), is reused. */
  id?: string;
  name: string;
  description?: string | null;
  permissions: string[];
  scope: RoleScope;
  /** The role's v1 access list (resource definitions included); its permissions must equal `permissions`. */
  access?: V1AccessEntry[];
  /**
   * Where the role's groups are bound when its access is limited to inventory workspaces
   * (`group.id` resource definitions), as a v1 role write binds them: the plan's bindings of the
   * role then name its groups only (their level must still be the role's scope), and each group
   * is bound exactly at these targets, the `unlimited` part included. Workspaces the tenant does
   * not have grant nothing and are counted in the result's `unknownWorkspaces`. Absent: the
   * role is bound at the bindings' levels.
   */
  targets?: V1RoleTargets;
}

/** A standard group of an import plan. */
export interface ImportGroup {
  key: string;
  /** Id used when the group is created. An existing standard group with this id, else with this name, is reused. */
  id?: string;
  name: string;
  description?: string | null;
  /** User ids (principals of the tenant or of the plan). Missing members are added, none removed. */
  members: string[];
}

/** The role of a binding: a role of the plan (`key`), or a seeded role by id or name (`seeded`). */
export type ImportRoleRef = { key: string } | { seeded: string };

/** One grant: the members of a plan group hold the role at a level of the tenant. */
export interface ImportBinding {
  role: ImportRoleRef;
  group: { key: string };
  /** tenant, root (the Root Workspace) or default (the Default Workspace); must equal the role's scope. */
  level: RoleScope;
}

/** Plain data of one tenant's import (e.g. a v1 → v2 migration plan). Every part is optional. */
export interface TenantImportPlan {
  /** Inserted or updated (username, type, org admin flag). */
  principals?: PrincipalInput[];
  roles?: ImportRole[];
  groups?: ImportGroup[];
  /** Added if missing; bindings not in the plan are kept. */
  bindings?: ImportBinding[];
  /**
   * A customised default access: at each level given, the roles of the tenant's platform-default
   * group ("Default access") become exactly these (replacing the platform parent role there).
   */
  defaultAccess?: Partial<Record<RoleScope, ImportRoleRef[]>>;
}

export type ImportPhase = "tenant" | "principals" | "roles" | "groups" | "bindings" | "default-access";

export interface ImportOptions {
  /** Called inside the transaction as each phase advances (for progress bars). */
  onProgress?: (phase: ImportPhase, done: number, total: number) => void;
}

export interface TenantImportResult {
  /** False when the store already held everything: no revision was taken, nothing was written. */
  changed: boolean;
  tenant: Tenant;
  tenantCreated: boolean;
  principalsWritten: number;
  rolesCreated: number;
  rolesUpdated: number;
  groupsCreated: number;
  membersAdded: number;
  /** Subjects added to role bindings (grants), default access included. */
  grantsAdded: number;
  /** Grants removed from the platform-default group by `defaultAccess`. */
  grantsRemoved: number;
  /** Plan role key → store role id. */
  roleIds: Record<string, string>;
  /** Plan group key → store group id. */
  groupIds: Record<string, string>;
  /** Plan role key → how many workspace ids of its `targets` name no workspace of the tenant (roles with none left out). */
  unknownWorkspaces: Record<string, number>;
}

export interface ImportRepository {
  /**
   * Applies one tenant's plan in ONE transaction (bootstrapping the tenant if needed): domain
   * rows, the tuples they imply and one change-feed entry, or nothing at all if any element is
   * invalid. Idempotent: a re-run finds the rows by id or name and returns `changed: false` with
   * the head revision (no new revision).
   */
  applyTenant(orgId: string, plan: TenantImportPlan, options?: ImportOptions): Promise<Written<TenantImportResult>>;
}

// ---------------------------------------------------------------------------------------------
// The store

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

// ---------------------------------------------------------------------------------------------
// v1 reads (insights-rbac's /api/rbac/v1/access/ and /roles/)

/** `{ key, operation, value }` of a v1 resource definition. */
export interface V1AttributeFilter {
  key: string;
  operation: string;
  value: unknown;
}

/** One access entry of a v1 role. */
export interface V1AccessEntry {
  permission: string;
  resourceDefinitions: { attributeFilter: V1AttributeFilter }[];
}

/** A role reaching a principal, and the resource its binding is on. */
export interface V1Grant {
  roleId: string;
  resource: BindingResource;
}

export interface V1PrincipalQuery {
  /** Org admins also reach the admin-default group's roles. */
  isOrgAdmin: boolean;
  /** insights-rbac gives default groups to users only; service accounts need explicit groups. */
  defaultGroups: boolean;
}

export interface V1Repository {
  /**
   * Every (role, resource) that reaches the principal: bindings of its groups (standard groups,
   * the platform-default group and, for org admins, the admin-default group) and of the principal
   * itself. Platform parent roles are replaced by their children (the default system roles).
   */
  grantsOf(orgId: string, userId: string, query: V1PrincipalQuery): Promise<V1Grant[]>;
  /** The v1 access list of each role (stored list when it matches the permissions, else derived). */
  accessOf(roleIds: string[]): Promise<Map<string, V1AccessEntry[]>>;
  /** The tenant's groups each role is bound to (default groups through the platform parent roles). */
  groupsOfRoles(orgId: string, roleIds: string[]): Promise<Map<string, Group[]>>;
  /** Role ids bound to a group (platform parent roles replaced by their children). */
  rolesOfGroup(orgId: string, groupId: string): Promise<string[]>;
  /**
   * Ids of the tenant's groups that have had a role added through v1 (upstream's v1 policy,
   * which stays when the group's last role is removed).
   */
  groupsWithV1Policy(orgId: string): Promise<Set<string>>;
}

/** Opaque checkpoint blobs by revision; the engine owns their format and verifies them. */
export interface CheckpointRepository {
  /** Revisions of the stored checkpoints, newest first. */
  list(): Promise<Revision[]>;
  /** The bytes of one checkpoint; null when it was removed meanwhile. */
  read(revision: Revision): Promise<Uint8Array | null>;
  /** Stores (or replaces) the checkpoint of `revision` and removes all but the newest `keep`. */
  write(revision: Revision, bytes: Uint8Array, keep: number): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// v1 writes, organisation mode, audit log

/** v1 (role writes through /api/rbac/v1 allowed) or v2 (activated: v1 role writes refused). */
export type OrgApiVersion = "v1" | "v2";

export interface OrgModeState {
  orgId: string;
  mode: OrgApiVersion;
  v2ActivatedAt: Date | null;
}

export interface OrgModeRepository {
  get(orgId: string): Promise<OrgModeState>;
  /** Puts the organisation in v2 mode (no-op when it is); `changed` says whether this call did. */
  activate(orgId: string, audit?: AuditEntry): Promise<Written<OrgModeState & { changed: boolean }>>;
}

/** One audit-log row, as insights-rbac's `AuditLog` keeps it. */
export interface AuditEntry {
  principalUsername: string;
  description: string;
  resourceType: "group" | "role" | "user" | "permission" | "role_v2" | "workspace" | "role_binding" | "cross_account_request";
  action: "create" | "edit" | "delete" | "add" | "remove";
  resourceUuid?: string | null;
  secondaryResourceUuid?: string | null;
}

export interface AuditLogRecord extends AuditEntry {
  id: string;
  created: Date;
}

export interface AuditLogQuery {
  principalUsername?: string;
  /** Exact (case-insensitive) username instead of a substring. */
  exactUsername?: boolean;
  resourceTypes?: string[];
  actions?: string[];
  /** Rows created at or after / at or before this time, compared at the millisecond the list shows. */
  createdAfter?: Date;
  createdBefore?: Date;
  /** sequence (the row id; default -sequence), created, principal_username, resource_type, action; `-` for descending. */
  orderBy?: string;
  limit?: number;
  offset?: number;
}

export interface AuditLogRepository {
  list(orgId: string, query?: AuditLogQuery): Promise<Page<AuditLogRecord>>;
}

/** Where a v1 role is bound for each group holding it (computed by `planV1RolePlacement`). */
export interface V1RoleTargets {
  /** Organisation levels (tenant, Root Workspace, Default Workspace). */
  levels: RoleScope[];
  /** Workspaces of the tenant (inventory `group.id` definitions). */
  workspaceIds: string[];
  /** Also the ungrouped-hosts workspace, when the tenant has one. */
  ungrouped?: boolean;
  /**
   * A role mixing workspace-limited and unlimited access: its unlimited permissions alone, bound
   * for the role's groups at these levels (a part of the role, kept in relationships only), while
   * the role itself is bound on its workspaces only.
   */
  unlimited?: { levels: RoleScope[]; permissions: string[] };
}

export interface V1RoleWrite {
  name: string;
  displayName: string;
  description: string | null;
  access: V1AccessEntry[];
  /** The role's level (its scope). */
  scope: RoleScope;
  targets: V1RoleTargets;
}

/** Audit rows of a write, made from what it wrote. */
export type AuditOf<T> = (value: T) => AuditEntry[];

/**
 * v1 role and group writes with their dual write: every write commits, in its one transaction,
 * the role bindings and tuples that make v2 grant what v1 grants, plus its audit rows. Role writes
 * and group-role changes are refused (`v2-activated`) once the organisation is in v2 mode.
 */
export interface V1WriteRepository {
  createRole(orgId: string, input: V1RoleWrite, audit?: AuditOf<Role>): Promise<Written<Role>>;
  /** Replaces name, display name, description and access; the role's bindings follow its new targets. */
  updateRole(orgId: string, id: string, input: V1RoleWrite, audit?: AuditOf<Role>): Promise<Written<Role>>;
  deleteRole(orgId: string, id: string, audit?: AuditOf<Role>): Promise<Written<Role>>;
  /** Binds each role to the group at its targets. */
  addGroupRoles(orgId: string, groupId: string, roles: { roleId: string; targets: V1RoleTargets }[], audit?: AuditOf<Role[]>): Promise<Written<Role[]>>;
  /** Removes every binding of these roles to the group. */
  removeGroupRoles(orgId: string, groupId: string, roleIds: string[], audit?: AuditOf<Role[]>): Promise<Written<Role[]>>;
  updateGroup(orgId: string, groupId: string, input: { name: string; description: string | null }, audit?: AuditOf<Group>): Promise<Written<Group>>;
  /**
   * Undoes a customised default access (upstream: deleting the tenant's "Custom default access"
   * group): the platform-default group is bound to the default parent roles at the three levels
   * again, and to nothing else.
   */
  restoreDefaultGroup(orgId: string, audit?: AuditOf<Group>): Promise<Written<Group>>;
}

// ---------------------------------------------------------------------------------------------
// Cross-account requests (insights-rbac's /api/rbac/v1/cross-account-requests/)

export const CROSS_ACCOUNT_STATUSES = ["pending", "cancelled", "approved", "denied", "expired"] as const;
export type CrossAccountStatus = (typeof CROSS_ACCOUNT_STATUSES)[number];

/** A seeded role as a request names it. */
export interface CrossAccountRole {
  id: string;
  name: string;
  displayName: string;
  description: string | null;
}

export interface CrossAccountRequester {
  username: string | null;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
}

export interface CrossAccountRequest {
  requestId: string;
  targetOrg: string;
  targetAccount: string | null;
  userId: string;
  requester: CrossAccountRequester;
  startDate: Date;
  endDate: Date;
  status: CrossAccountStatus;
  created: Date;
  modified: Date;
  roles: CrossAccountRole[];
}

/** A role named by display name, as the public (seeded and platform) roles hold it. */
export interface PublicRoleMatch {
  id: string;
  displayName: string;
  /** Seeded roles may be requested; platform (default parent) roles may not. */
  system: boolean;
}

export interface CrossAccountListQuery {
  /** The requests targeting this organisation, or those this user made. */
  by: { targetOrg: string } | { userId: string };
  statuses?: string[];
  targetOrgs?: string[];
  /** Approved and inside their dates by the store's clock. */
  approvedOnly?: boolean;
  orderBy?: { field: "request_id" | "start_date" | "end_date" | "created" | "modified" | "status"; descending: boolean };
  limit?: number;
  offset?: number;
}

/** What a change to one request sets (absent: unchanged). */
export interface CrossAccountChange {
  startDate?: Date;
  endDate?: Date;
  roleIds?: string[];
  status?: CrossAccountStatus;
  targetAccount?: string | null;
}

export interface CrossAccountRepository {
  /** Public roles by display name (upstream's lookup in the public tenant). */
  publicRolesByDisplayName(names: string[]): Promise<PublicRoleMatch[]>;
  create(
    input: { targetOrg: string; targetAccount: string | null; userId: string; requester: CrossAccountRequester; startDate: Date; endDate: Date; roleIds: string[] },
    audit?: AuditOf<CrossAccountRequest>,
  ): Promise<Written<CrossAccountRequest>>;
  get(requestId: string): Promise<CrossAccountRequest | undefined>;
  list(query: CrossAccountListQuery): Promise<Page<CrossAccountRequest>>;
  /**
   * Changes one request under its target organisation's write lock: `decide` sees the request as
   * stored and answers the change (or throws, and nothing is written). Grants follow the result.
   */
  update(
    requestId: string,
    decide: (current: CrossAccountRequest, now: number) => CrossAccountChange,
    audit?: AuditOf<{ before: CrossAccountRequest; after: CrossAccountRequest }>,
  ): Promise<Written<CrossAccountRequest>>;
  /** Ids of the roles the user's approved requests grant in the organisation now (the store's clock). */
  activeRoleIds(targetOrg: string, userId: string): Promise<string[]>;
  /**
   * Marks requests past their end date expired and writes the grants of approved requests whose
   * start has come; one write per organisation.
   */
  sweep(): Promise<{ expired: number; granted: number; revisions: number[] }>;
}
