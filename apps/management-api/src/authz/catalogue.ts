/** Level a role's permissions are bound at (the store's RoleScope). */
export type PermissionScope = "default" | "root" | "tenant";

/** The v1 permission catalogue a role's permissions are checked against. */
export interface PermissionCatalogue {
  /** True when the literal `app:resource:verb` string exists in the catalogue. */
  has(permission: string): boolean;
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
  permissions: Iterable<string>,
  scopeOf: (permission: string) => PermissionScope | undefined = () => undefined,
  defaultOnly: (permission: string) => boolean = () => false,
): PermissionCatalogue {
  const known = new Set(permissions);
  const scope = (permission: string) => scopeOf(permission) ?? "default";
  return {
    has: (permission) => known.has(permission),
    scopeOf: scope,
    defaultOnly: (permission) => scope(permission) === "default" && defaultOnly(permission),
  };
}
