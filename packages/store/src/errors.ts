// The one error class of @gatehouse/store. Transports map `code` to wire errors in one place each.

export type StoreErrorCode =
  | "invalid-argument" // malformed input (bad id, empty name, bad permission string, …)
  | "not-found" // unknown id in this tenant (also: another tenant's id, no existence leak)
  | "cross-tenant" // a reference that names another tenant's resource explicitly (worded as not-found: no existence oracle)
  | "tenant-not-found" // the org was never bootstrapped
  | "duplicate-name" // sibling workspace / role / group name already taken (case-insensitive)
  | "depth-exceeded" // workspace hierarchy deeper than the configured limit
  | "unknown-parent" // parent workspace does not exist in the tenant
  | "move-into-descendant" // move target is the workspace itself or one of its descendants
  | "immutable" // root / default / ungrouped-hosts rules, system roles, admin-default group
  | "not-empty" // workspace with children or hosts, role still referenced, …
  | "not-assignable" // platform roles in bindings, role scope not matching the resource
  | "malformed-token" // consistency token that does not decode
  | "foreign-token" // consistency token of another store
  | "timeout" // waitForRevision gave up
  | "feed-truncated" // the change feed no longer holds the changes after this revision (retention): start from a snapshot
  | "v2-activated" // a v1 role write in an organisation switched to v2 (insights-rbac's tenant mapping)
  | "conflict" // concurrent update lost (serialization failure, deadlock); retry
  | "already-exists" // a row with the same key exists (a unique violation that is not a name): retrying will not help
  | "unavailable" // database unreachable
  | "internal"; // anything else (a bug)

export class StoreError extends Error {
  override readonly name = "StoreError";
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** Input field the error is about, when known (e.g. `parent_id`). */
    readonly field?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isStoreError(e: unknown, code?: StoreErrorCode): e is StoreError {
  return e instanceof StoreError && (code === undefined || e.code === code);
}

interface DriverError {
  code?: string;
  constraint?: string;
  message?: string;
}

/** What each unique constraint (other than names) guards, by its name in the migrations. */
const UNIQUE_KEYS: Readonly<Record<string, string>> = {
  gh_tenants_pkey: "The organisation already exists",
  gh_tenants_tenant_id_key: "The organisation already exists",
  gh_workspaces_pkey: "A workspace with this id already exists",
  gh_workspaces_org_id_key: "A workspace with this id already exists",
  gh_workspaces_one_builtin: "The organisation already has this built-in workspace",
  gh_roles_pkey: "A role with this id already exists",
  gh_groups_pkey: "A group with this id already exists",
  gh_groups_org_id_key: "A group with this id already exists",
  gh_groups_one_default: "The organisation already has this default group",
  gh_principals_pkey: "The principal already exists",
  gh_principals_unique_username: "The username is taken by another principal",
  gh_role_bindings_pkey: "A role binding with this id already exists",
  gh_role_bindings_org_id_key: "A role binding with this id already exists",
  gh_role_bindings_one_per_role_resource: "A role binding of this role on this resource already exists",
};

/** Names the key a unique violation is about; constraint names are ours (identifiers, at most 63 bytes). */
function alreadyExists(constraint: string, cause: unknown): StoreError {
  const name = /^[a-z0-9_]{1,63}$/.test(constraint) ? constraint : "";
  const what = UNIQUE_KEYS[name] ?? "A resource with the same key already exists";
  return new StoreError("already-exists", name ? `${what} (unique key ${name}).` : `${what}.`, undefined, { cause });
}

const connectionCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004"]);

/**
 * Maps a raw driver error (pg or PGlite) to a StoreError. Constraint names are the ones of the
 * migrations; checks in the repositories normally fire first, these are the backstop for races.
 */
export function fromDriverError(e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  const d = (typeof e === "object" && e !== null ? e : {}) as DriverError;
  const constraint = d.constraint ?? "";
  switch (d.code) {
    case "23505":
      if (constraint.includes("sibling_name") || constraint.includes("_name")) {
        return new StoreError("duplicate-name", "A resource with the same name already exists.", "name", { cause: e });
      }
      return alreadyExists(constraint, e);
    case "23503":
      if (constraint.includes("parent")) return new StoreError("unknown-parent", "Parent workspace doesn't exist in tenant.", "parent_id", { cause: e });
      return new StoreError("not-found", "A referenced resource does not exist in this tenant.", undefined, { cause: e });
    case "23514":
    case "22001":
    case "22P02":
      return new StoreError("invalid-argument", `Invalid value: ${d.message ?? "constraint violated"}`, undefined, { cause: e });
    case "40001":
    case "40P01":
    case "55P03":
      return new StoreError("conflict", "Too many concurrent updates. Please retry.", undefined, { cause: e });
  }
  if (d.code && connectionCodes.has(d.code)) {
    return new StoreError("unavailable", "The database is unavailable.", undefined, { cause: e });
  }
  if (e instanceof Error && /Connection terminated|not queryable|Client has encountered a connection error/i.test(e.message)) {
    return new StoreError("unavailable", "The database is unavailable.", undefined, { cause: e });
  }
  return new StoreError("internal", `Unexpected database error: ${d.message ?? String(e)}`, undefined, { cause: e });
}
