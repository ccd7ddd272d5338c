/** Level a role's permissions are bound at (the store's RoleScope). */
export type PermissionScope = "default" | "root" | "tenant";

/** The v1 permission catalogue a role's permissions are checked against. */
export interface PermissionCatalogue {
  /** True when the literal `app:resource:verb` string exists in the catalogue. */
  has(permission: string): boolean;
  scopeOf(permission: string): PermissionScope;
}

/**
 * A catalogue from the literal permission strings and an optional scope classifier; permissions
 * the classifier does not know are DEFAULT-scoped (as insights-rbac does).
 */
export function createPermissionCatalogue(
  permissions: Iterable<string>,
  scopeOf: (permission: string) => PermissionScope | undefined = () => undefined,
): PermissionCatalogue {
  const known = new Set(permissions);
  return {
    has: (permission) => known.has(permission),
    scopeOf: (permission) => scopeOf(permission) ?? "default",
  };
}
