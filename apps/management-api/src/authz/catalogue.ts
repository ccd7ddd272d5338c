/** Level a role's permissions are bound at (the store's RoleScope). */
export type PermissionScope = "default" | "root" | "tenant";

/** A permission of the catalogue as insights-rbac's v1 `/permissions/` lists it. */
export interface PermissionRecord {
  application: string;
  resource_type: string;
  verb: string;
  permission: string;
  description: string;
  /** Permissions of the same application and resource this one needs (the configuration's `requires` verbs). */
  requires: string[];
}

/** The v1 permission catalogue a role's permissions are checked against. */
export interface PermissionCatalogue {
  /** Every permission, ordered by its `app:resource:verb` string byte-wise (upstream's "C" collation). */
  readonly records: readonly PermissionRecord[];
  /** True when the literal `app:resource:verb` string exists in the catalogue. */
  has(permission: string): boolean;
  /** True when the permission exists or is a wildcard granting at least one that does (a v1 role may hold it). */
  names(permission: string): boolean;
  scopeOf(permission: string): PermissionScope;
  /**
   * True for a DEFAULT-scoped permission that is checked at the Default Workspace only (insights-rbac's
   * explicit DEFAULT scope): a role holding one is not offered for a standard workspace.
   */
  defaultOnly(permission: string): boolean;
}

/**
 * A catalogue from the literal permission strings and optional classifiers; permissions the scope
 * classifier does not know are DEFAULT-scoped and workspace-granular (as insights-rbac's fallback).
 */
export function createPermissionCatalogue(
  permissions: Iterable<string | PermissionRecord>,
  scopeOf: (permission: string) => PermissionScope | undefined = () => undefined,
  defaultOnly: (permission: string) => boolean = () => false,
): PermissionCatalogue {
  const records = [...permissions].map((p) => (typeof p === "string" ? permissionRecord(p) : p)).sort((a, b) => byteOrder(a.permission, b.permission));
  const known = new Set(records.map((r) => r.permission));
  const scope = (permission: string) => scopeOf(permission) ?? "default";
  return {
    records,
    has: (permission) => known.has(permission),
    names: (permission) => {
      if (known.has(permission)) return true;
      // A whole-part wildcard names the catalogue entries of its application it matches.
      const [app, resource, verb, extra] = permission.split(":");
      if (extra !== undefined || !app || !resource || !verb) return false;
      for (const p of known) {
        const [a, r, v] = p.split(":");
        if (a === app && (resource === "*" || resource === r) && (verb === "*" || verb === v)) return true;
      }
      return false;
    },
    scopeOf: scope,
    defaultOnly: (permission) => scope(permission) === "default" && defaultOnly(permission),
  };
}

/** A permission string as a record without description or requirements. */
export function permissionRecord(permission: string, description = "", requires: string[] = []): PermissionRecord {
  const [application = "", resource_type = "", verb = ""] = permission.split(":");
  return { application, resource_type, verb, permission, description, requires };
}

/** Byte-wise order of two strings (code units agree with bytes for the ASCII of permission names). */
export const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
