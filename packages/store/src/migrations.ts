// Numbered, append-only migrations. Never edit a released entry: add a new one.
// Applied at start under an advisory lock (two processes starting together apply them once).
import { createHash } from "node:crypto";
import type { Db } from "./db/db.js";
import { quoteIdent } from "./db/db.js";
import { PLATFORM_ROLES } from "./platform-roles.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const ts = "timestamptz NOT NULL DEFAULT clock_timestamp()";

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "revisions, change feed, tuples",
    sql: `
CREATE TABLE gh_meta (key text PRIMARY KEY, value text NOT NULL);
-- Random id of this database; consistency tokens carry it so a foreign token is detected.
INSERT INTO gh_meta (key, value) VALUES ('store_id', replace(gen_random_uuid()::text, '-', ''));

-- Single-row revision counter. Writers increment it as their last statement; the row lock is
-- held until commit, so revisions are handed out in commit order.
CREATE TABLE gh_revision (id boolean PRIMARY KEY DEFAULT true CHECK (id), head bigint NOT NULL);
INSERT INTO gh_revision (id, head) VALUES (true, 0);

CREATE TABLE gh_changes (
  revision bigint PRIMARY KEY,
  org_id text,
  kind text NOT NULL,
  touched jsonb NOT NULL,
  deleted jsonb NOT NULL,
  committed_at ${ts}
);

-- org_id '' = public tuples (seeded and platform roles).
CREATE TABLE gh_tuples (
  org_id text NOT NULL,
  resource_type text NOT NULL,
  resource_id text NOT NULL,
  relation text NOT NULL,
  subject_type text NOT NULL,
  subject_id text NOT NULL,
  subject_relation text NOT NULL DEFAULT '',
  PRIMARY KEY (org_id, resource_type, resource_id, relation, subject_type, subject_id, subject_relation)
);
`,
  },
  {
    version: 2,
    name: "tenants, workspaces, roles, bindings, groups, principals, hosts",
    sql: `
CREATE TABLE gh_tenants (
  org_id text PRIMARY KEY CHECK (org_id ~ '^[A-Za-z0-9_.-]{1,64}$'),
  tenant_id text NOT NULL UNIQUE,
  root_workspace_id uuid NOT NULL,
  default_workspace_id uuid NOT NULL,
  platform_default_group_id uuid NOT NULL,
  admin_default_group_id uuid NOT NULL,
  created_at ${ts}
);

CREATE TABLE gh_workspaces (
  id uuid PRIMARY KEY,
  org_id text NOT NULL REFERENCES gh_tenants (org_id),
  type text NOT NULL CHECK (type IN ('root', 'default', 'standard', 'ungrouped-hosts')),
  parent_id uuid,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  description text CHECK (description IS NULL OR length(description) <= 255),
  created_at ${ts},
  modified_at ${ts},
  CONSTRAINT gh_workspaces_org_id_key UNIQUE (org_id, id),
  -- The parent must be in the same tenant: the foreign key includes org_id.
  CONSTRAINT gh_workspaces_parent_fkey FOREIGN KEY (org_id, parent_id) REFERENCES gh_workspaces (org_id, id),
  CONSTRAINT gh_workspaces_root_has_no_parent CHECK ((type = 'root') = (parent_id IS NULL))
);
CREATE UNIQUE INDEX gh_workspaces_sibling_name ON gh_workspaces (org_id, parent_id, lower(name)) WHERE parent_id IS NOT NULL;
CREATE UNIQUE INDEX gh_workspaces_one_builtin ON gh_workspaces (org_id, type) WHERE type <> 'standard';
CREATE INDEX gh_workspaces_children ON gh_workspaces (org_id, parent_id);

CREATE TABLE gh_roles (
  id uuid PRIMARY KEY,
  org_id text REFERENCES gh_tenants (org_id),
  kind text NOT NULL CHECK (kind IN ('custom', 'seeded', 'platform')),
  name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 175),
  display_name text,
  description text,
  scope text NOT NULL CHECK (scope IN ('default', 'root', 'tenant')),
  platform_default boolean NOT NULL DEFAULT false,
  admin_default boolean NOT NULL DEFAULT false,
  permissions text[] NOT NULL DEFAULT '{}',
  created_at ${ts},
  modified_at ${ts},
  CONSTRAINT gh_roles_custom_has_tenant CHECK ((kind = 'custom') = (org_id IS NOT NULL))
);
CREATE UNIQUE INDEX gh_roles_unique_name ON gh_roles (coalesce(org_id, ''), lower(name));

CREATE TABLE gh_groups (
  id uuid PRIMARY KEY,
  org_id text NOT NULL REFERENCES gh_tenants (org_id),
  kind text NOT NULL CHECK (kind IN ('standard', 'platform-default', 'admin-default')),
  name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 150),
  description text,
  created_at ${ts},
  modified_at ${ts},
  CONSTRAINT gh_groups_org_id_key UNIQUE (org_id, id)
);
CREATE UNIQUE INDEX gh_groups_unique_name ON gh_groups (org_id, lower(name));
CREATE UNIQUE INDEX gh_groups_one_default ON gh_groups (org_id, kind) WHERE kind <> 'standard';

CREATE TABLE gh_principals (
  org_id text NOT NULL REFERENCES gh_tenants (org_id),
  user_id text NOT NULL CHECK (user_id ~ '^[A-Za-z0-9_|=+-]{1,200}$'),
  username text NOT NULL CHECK (length(username) BETWEEN 1 AND 255),
  type text NOT NULL CHECK (type IN ('user', 'service-account')),
  is_org_admin boolean NOT NULL DEFAULT false,
  created_at ${ts},
  modified_at ${ts},
  PRIMARY KEY (org_id, user_id)
);
CREATE UNIQUE INDEX gh_principals_unique_username ON gh_principals (org_id, lower(username));

-- Explicit memberships of standard groups; default-group membership is implied by gh_principals.
CREATE TABLE gh_group_members (
  org_id text NOT NULL,
  group_id uuid NOT NULL,
  user_id text NOT NULL,
  PRIMARY KEY (group_id, user_id),
  FOREIGN KEY (org_id, group_id) REFERENCES gh_groups (org_id, id),
  FOREIGN KEY (org_id, user_id) REFERENCES gh_principals (org_id, user_id)
);
CREATE INDEX gh_group_members_user ON gh_group_members (org_id, user_id);

CREATE TABLE gh_role_bindings (
  id uuid PRIMARY KEY,
  org_id text NOT NULL REFERENCES gh_tenants (org_id),
  role_id uuid NOT NULL REFERENCES gh_roles (id),
  resource_type text NOT NULL CHECK (resource_type IN ('workspace', 'tenant')),
  resource_id text NOT NULL,
  created_at ${ts},
  modified_at ${ts},
  CONSTRAINT gh_role_bindings_org_id_key UNIQUE (org_id, id),
  CONSTRAINT gh_role_bindings_one_per_role_resource UNIQUE (org_id, role_id, resource_type, resource_id)
);
CREATE INDEX gh_role_bindings_resource ON gh_role_bindings (org_id, resource_type, resource_id);

CREATE TABLE gh_role_binding_subjects (
  org_id text NOT NULL,
  binding_id uuid NOT NULL,
  subject_type text NOT NULL CHECK (subject_type IN ('group', 'principal')),
  subject_id text NOT NULL,
  PRIMARY KEY (binding_id, subject_type, subject_id),
  FOREIGN KEY (org_id, binding_id) REFERENCES gh_role_bindings (org_id, id)
);
CREATE INDEX gh_role_binding_subjects_subject ON gh_role_binding_subjects (org_id, subject_type, subject_id);

-- Host ids are global (inventory UUIDs): a host reported by another tenant is a cross-tenant error.
CREATE TABLE gh_hosts (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  workspace_id uuid NOT NULL,
  reported_at ${ts},
  FOREIGN KEY (org_id, workspace_id) REFERENCES gh_workspaces (org_id, id)
);
CREATE INDEX gh_hosts_workspace ON gh_hosts (org_id, workspace_id);
`,
  },
  {
    version: 3,
    name: "platform parent roles",
    sql: PLATFORM_ROLES.map(
      (r) =>
        `INSERT INTO gh_roles (id, org_id, kind, name, description, scope, platform_default, admin_default) VALUES ` +
        `('${r.id}', NULL, 'platform', '${r.name}', '${r.description}', '${r.scope}', ${r.audience === "user"}, ${r.audience === "admin"});`,
    ).join("\n"),
  },
  {
    version: 4,
    name: "pending placements",
    sql: `
-- ReportResource into a workspace id nobody has created yet: the report waits here, holding no
-- tuple, until a write gives that workspace a parent (see src/placements.ts).
-- reporter_org '' = the reporter's tenant is unknown (unauthenticated engine).
CREATE TABLE gh_pending_placements (
  resource_type text NOT NULL,
  resource_id text NOT NULL,
  workspace_id text NOT NULL,
  reporter_org text NOT NULL,
  reported_at ${ts},
  PRIMARY KEY (resource_type, resource_id)
);
CREATE INDEX gh_pending_placements_workspace ON gh_pending_placements (workspace_id);
`,
  },
  {
    version: 5,
    name: "v1 access entries of roles",
    sql: `
-- The role's v1 access list ([{permission, resourceDefinitions}]) as imported from insights-rbac.
-- Null: derived from permissions (no resource definitions). Honoured only while its permissions
-- equal the role's, so a later v2 edit of the permissions supersedes it.
ALTER TABLE gh_roles ADD COLUMN v1_access jsonb;
`,
  },
  {
    version: 6,
    name: "seeded role versions, active role configuration",
    sql: `
-- The role configuration's version of a seeded role; seeding rewrites a role only for a higher one.
-- Existing rows start at 0, so the first versioned seeding refreshes them once.
ALTER TABLE gh_roles ADD COLUMN version integer NOT NULL DEFAULT 0;

-- The role configuration every service runs on (one row). A reload writes it in the same
-- transaction as the role seeding it implies; its change-feed entry tells followers to switch.
CREATE TABLE gh_role_config (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  hash text NOT NULL,
  dir text NOT NULL,
  loaded_at timestamptz NOT NULL,
  schema_zed text NOT NULL
);
`,
  },
  {
    version: 7,
    name: "graph checkpoints",
    sql: `
-- Binary checkpoints of the engines' in-memory graph at a revision (format owned by authz-engine),
-- so a replica starts from the newest one and replays the change feed after it.
CREATE TABLE gh_checkpoints (
  revision bigint PRIMARY KEY,
  bytes bytea NOT NULL,
  written_at ${ts}
);
`,
  },
  {
    version: 8,
    name: "expiring role-binding subjects",
    sql: `
-- Time-bound grants (a Gatehouse extension): a binding subject may carry an expiry, kept on the
-- subject row and on the t_subject tuple it implies, so the tuple replicates its expiry. Null = never.
ALTER TABLE gh_role_binding_subjects ADD COLUMN expires_at timestamptz;
ALTER TABLE gh_tuples ADD COLUMN expires_at timestamptz;
CREATE INDEX gh_tuples_expires_at ON gh_tuples (expires_at) WHERE expires_at IS NOT NULL;
`,
  },
  {
    version: 9,
    name: "change-feed retention mark",
    sql: `
-- Feed retention: every change up to this revision was deleted; a reader positioned before it
-- gets feed-truncated (it must start from a snapshot) instead of silently missing changes.
ALTER TABLE gh_revision ADD COLUMN pruned_through bigint NOT NULL DEFAULT 0;
`,
  },
  {
    version: 10,
    name: "pending change-feed entries",
    sql: `
-- A write commits its change-feed entry here, taking no lock shared with other tenants; a
-- numbering pass (src/revisions.ts) moves committed entries into gh_changes with consecutive
-- revisions. xid and snap (the writer's transaction id and the snapshot of its last statement)
-- tell the pass which entries a writer could have observed, so those get lower revisions.
CREATE TABLE gh_pending (
  xid xid8 PRIMARY KEY DEFAULT pg_current_xact_id(),
  snap pg_snapshot NOT NULL DEFAULT pg_current_snapshot(),
  org_id text,
  kind text NOT NULL,
  touched jsonb NOT NULL,
  deleted jsonb NOT NULL,
  committed_at ${ts}
);
-- The writer's transaction id, so a writer whose entry another process numbered finds its revision.
-- Not unique: after a restore into another cluster, transaction ids start over (lookups are
-- bounded to revisions numbered after the write).
ALTER TABLE gh_changes ADD COLUMN xid xid8;
`,
  },
  {
    version: 11,
    name: "checkpoints in parts",
    sql: `
-- A checkpoint's bytes in parts of at most 64 MiB (repos/checkpoints.ts): one bytea may not pass
-- 1 GB, and a bytea is returned as hex text, which a client holds as one string (a 10M-relationship
-- checkpoint is 632 MiB: 1.26 G characters, past the JavaScript string limit). Stored without
-- compression (the arrays compress little, and pglz would cost CPU on every write and read).
-- Rows written before keep their bytes in gh_checkpoints.bytes (parts = 0).
CREATE TABLE gh_checkpoint_parts (
  revision bigint NOT NULL REFERENCES gh_checkpoints (revision) ON DELETE CASCADE,
  part integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (revision, part)
);
ALTER TABLE gh_checkpoint_parts ALTER COLUMN bytes SET STORAGE EXTERNAL;
ALTER TABLE gh_checkpoints ADD COLUMN parts integer NOT NULL DEFAULT 0;
ALTER TABLE gh_checkpoints ADD COLUMN part_bytes integer;
ALTER TABLE gh_checkpoints ADD COLUMN size bigint;
`,
  },
  {
    version: 12,
    name: "organisation api version",
    sql: `
-- v1 or v2 mode per organisation (repos/org-mode.ts): set once, by the organisation's first v2
-- role or role-binding write or by an operator; from then on v1 role writes are refused. Read and
-- set inside the tenant's write transaction, so no v1 write commits after the activation.
ALTER TABLE gh_tenants ADD COLUMN v2_write_activated_at timestamptz;
`,
  },
  {
    version: 13,
    name: "audit log",
    sql: `
-- insights-rbac's audit log of management writes (repos/audit-log.ts), written in the write's
-- own transaction and read newest first per organisation.
CREATE TABLE gh_audit_logs (
  id bigserial PRIMARY KEY,
  org_id text NOT NULL REFERENCES gh_tenants (org_id),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  principal_username text NOT NULL,
  description text NOT NULL,
  resource_type text NOT NULL,
  resource_uuid uuid,
  secondary_resource_uuid uuid,
  action text NOT NULL
);
CREATE INDEX gh_audit_logs_org_created ON gh_audit_logs (org_id, created_at, id);
`,
  },
  {
    version: 15,
    name: "tuples by object",
    sql: `
-- Replication refuses tuples on or pointing at an object any Gatehouse partition holds
-- (repos/replicated.ts): that look-up is by object, across partitions.
CREATE INDEX gh_tuples_object ON gh_tuples (resource_type, resource_id);
`,
  },
  {
    version: 16,
    name: "principal email",
    sql: `
-- The e-mail address a user's identity carried (x-rh-identity identity.user.email), answered in
-- the v1 principal listings as upstream's user directory answers it. Null until an identity
-- carrying one is seen (an imported principal, a service account).
ALTER TABLE gh_principals ADD COLUMN email text;
`,
  },
  {
    version: 17,
    name: "group v1 policy",
    sql: `
-- Whether a group has had a v1 policy (insights-rbac's Policy row: created with the group's first
-- role, kept when its last role is removed), which upstream's group list counts as policyCount.
ALTER TABLE gh_groups ADD COLUMN v1_policy boolean NOT NULL DEFAULT false;
`,
  },
  {
    version: 18,
    name: "v1 roles held without a binding",
    sql: `
-- A group holding a v1 custom role that binds nowhere (every group.id definition names a workspace
-- the organisation does not have: the role grants nothing in v2, rightly). v1 still lists the role
-- among the group's roles (repos/v1.ts), as insights-rbac's policy keeps it; a v1 write that binds
-- the role somewhere for the group removes the row (repos/v1-writes.ts placeRole).
CREATE TABLE gh_v1_held_roles (
  org_id text NOT NULL,
  group_id uuid NOT NULL,
  role_id uuid NOT NULL REFERENCES gh_roles (id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, role_id),
  FOREIGN KEY (org_id, group_id) REFERENCES gh_groups (org_id, id) ON DELETE CASCADE
);
CREATE INDEX gh_v1_held_roles_role ON gh_v1_held_roles (org_id, role_id);
`,
  },
  {
    version: 19,
    name: "cross-account requests",
    sql: `
-- insights-rbac's cross-account requests: an associate (user_id, any organisation) asks the target
-- organisation for seeded roles between two dates. The requester's name and e-mail are what its
-- identity carried when it asked (there is no user directory to look them up later).
CREATE TABLE gh_cross_account_requests (
  request_id uuid PRIMARY KEY,
  target_org text NOT NULL REFERENCES gh_tenants (org_id),
  target_account text,
  user_id text NOT NULL,
  requester_username text,
  requester_email text,
  requester_first_name text,
  requester_last_name text,
  start_date timestamptz NOT NULL,
  end_date timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'cancelled', 'approved', 'denied', 'expired')),
  -- An approved request whose start has come has had its grants written (the sweep writes those
  -- of requests approved ahead of their start, when it comes).
  granted boolean NOT NULL DEFAULT false,
  created_at ${ts},
  modified_at ${ts}
);
CREATE INDEX gh_cross_account_requests_target ON gh_cross_account_requests (target_org, created_at);
CREATE INDEX gh_cross_account_requests_user ON gh_cross_account_requests (user_id, created_at);
CREATE INDEX gh_cross_account_requests_open ON gh_cross_account_requests (status, end_date);
CREATE TABLE gh_cross_account_request_roles (
  request_id uuid NOT NULL REFERENCES gh_cross_account_requests (request_id) ON DELETE CASCADE,
  role_id uuid NOT NULL REFERENCES gh_roles (id) ON DELETE CASCADE,
  position int NOT NULL,
  PRIMARY KEY (request_id, role_id)
);
-- The binding subjects the approved requests of (org, user) put there, so that ending a request
-- removes only what requests granted (a grant the organisation made itself is left alone).
CREATE TABLE gh_cross_account_grants (
  org_id text NOT NULL,
  user_id text NOT NULL,
  binding_id uuid NOT NULL REFERENCES gh_role_bindings (id) ON DELETE CASCADE,
  PRIMARY KEY (org_id, user_id, binding_id)
);
`,
  },
  {
    version: 20,
    name: "pending placements per reporter tenant",
    sql: `
-- A held report is the reporter tenant's own: another tenant's report of the same resource id is
-- held beside it (never over it), so no tenant can replace, read or infer another's held report.
ALTER TABLE gh_pending_placements DROP CONSTRAINT gh_pending_placements_pkey;
ALTER TABLE gh_pending_placements ADD PRIMARY KEY (resource_type, resource_id, reporter_org);
`,
  },
];

/** Names this release's migrations (a hash of their text): copies of a migrated database are reused only under the same name. */
export function migrationsKey(): string {
  const hash = createHash("sha256");
  for (const m of MIGRATIONS) hash.update(`${m.version}\0${m.name}\0${m.sql}\0`);
  return hash.digest("hex").slice(0, 16);
}

/** What each database copied from a migrated one must hold of its own: a store id of its own (tokens name it). */
export const FRESH_STORE_ID_SQL = "UPDATE gh_meta SET value = replace(gen_random_uuid()::text, '-', '') WHERE key = 'store_id'";

/** Applies the missing migrations, each in its own transaction, under a cross-process lock. */
export async function migrate(db: Db): Promise<number[]> {
  return db.withLock(`gatehouse-migrate:${db.schema}`, async (s) => {
    await s.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(db.schema)}`);
    await s.query(`SET search_path TO ${quoteIdent(db.schema)}, public`);
    await s.query(`CREATE TABLE IF NOT EXISTS gh_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at ${ts})`);
    const done = new Set((await s.query<{ version: number }>("SELECT version FROM gh_migrations")).map((r) => r.version));
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await s.query("BEGIN");
      try {
        for (const statement of splitStatements(m.sql)) await s.query(statement);
        await s.query("INSERT INTO gh_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
        await s.query("COMMIT");
      } catch (e) {
        await s.query("ROLLBACK").catch(() => undefined);
        throw e;
      }
      applied.push(m.version);
    }
    return applied;
  });
}

/**
 * Versions of MIGRATIONS the database has not recorded, without changing anything: a process that
 * does not migrate at start (a deployment runs them once, in a Job, before the new pods) checks
 * this and refuses to run on a schema older than its code.
 */
export async function pendingMigrations(db: Db): Promise<number[]> {
  const [table] = await db.query<{ found: string | null }>("SELECT to_regclass($1)::text AS found", [`${quoteIdent(db.schema)}.gh_migrations`]);
  const done = table?.found ? new Set((await db.query<{ version: number }>("SELECT version FROM gh_migrations")).map((r) => r.version)) : new Set<number>();
  return MIGRATIONS.filter((m) => !done.has(m.version)).map((m) => m.version);
}

/** Migrations hold no function bodies or quoted semicolons, so `;` at a line end splits them. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && !/^(--[^\n]*\n?)+$/.test(s));
}
