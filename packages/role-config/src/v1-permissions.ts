// V1 permission names and how they map onto role relations in the schema.
import type { KslSource } from "@gatehouse/ksl";
import type { PermissionCatalogue } from "./schemas.js";

/**
 * `app:resource:verb` -> role relation name (without `t_`): `:`, `-`, `.` and spaces become `_`,
 * `*` becomes `all`, lower-cased (insights-rbac's normalisation).
 */
export function v1PermissionRelation(permission: string): string {
  return permission.toLowerCase().replace(/\*/g, "all").replace(/[:.\- ]/g, "_");
}

/** Every `app:resource:verb` the catalogue declares, in file order. */
export function cataloguePermissions(catalogue: PermissionCatalogue, app: string): string[] {
  return Object.entries(catalogue[app] ?? {}).flatMap(([resource, verbs]) => verbs.map((v) => `${app}:${resource}:${v.verb}`));
}

/**
 * The intermediate-representation module that makes every V1 permission of a not-yet-migrated
 * application assignable to roles (`rbac.add_v1only_permission` per permission).
 */
export function v1OnlyPermissionsSource(catalogue: PermissionCatalogue, migratedApps: readonly string[], fileName: string): KslSource {
  const migrated = new Set(migratedApps);
  const apps = Object.keys(catalogue).filter((a) => !migrated.has(a)).sort();
  const references = apps.flatMap((app) =>
    cataloguePermissions(catalogue, app).map((p) => ({ namespace: "rbac", name: "add_v1only_permission", params: { perm: v1PermissionRelation(p) } })),
  );
  return { fileName, text: `${JSON.stringify({ name: "rbac_v1_permissions", imports: ["rbac"], extension_references: references })}\n` };
}
