// V1 permission names, how they map onto role relations, and the generated intermediate file
// that makes the V1 permissions of not-yet-migrated applications assignable to roles.
import type { PermissionCatalogue } from "./schemas.js";

/**
 * `app:resource:verb` -> role relation name (without `t_`): `:`, `-`, `.` and spaces become `_`,
 * `*` becomes `all`, lower-cased (insights-rbac's normalisation).
 */
export function v1PermissionRelation(permission: string): string {
  return permission
    .toLowerCase()
    .replace(/\*/g, "all")
    .replace(/[:.\- ]/g, "_");
}

/** Every `app:resource:verb` the catalogue declares, in file order. */
export function cataloguePermissions(catalogue: PermissionCatalogue, app: string): string[] {
  return Object.entries(catalogue[app] ?? {}).flatMap(([resource, verbs]) => verbs.map((v) => `${app}:${resource}:${v.verb}`));
}

/** The file name the reference toolchain gives the generated module (next to the KSL sources). */
export const V1_ONLY_PERMISSIONS_FILE = "rbac_v1_permissions.json";

/** The reference generator's escaping: only `-`, `.` and `*` (no lower-casing). */
const escapeName = (s: string): string => s.replace(/-/g, "_").replace(/\./g, "_").replace(/\*/g, "all");

/** Bytes as Go's encoding/json writes them (HTML-safe escapes), so the output is identical. */
const goJson = (value: unknown): string => JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Byte order, as Go's sort.Strings. */
const byteOrder = (a: string, b: string): number => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Buffer.compare(x, y);
};

export interface PermissionFile {
  /** Application: the file name without its extension. */
  app: string;
  /** resource -> verbs, in file order. */
  resources: Record<string, Array<{ verb: string }>>;
}

interface ExtensionReference {
  namespace: string;
  name: string;
  params: Record<string, string>;
}

/**
 * `rbac_v1_permissions.json` as RedHatInsights/rbac-config-actions `generate-v1-only-permissions`
 * writes it: permission files in name order, applications of `migrated_apps.lst` skipped,
 * resources sorted, verbs in file order, one `rbac.add_v1only_permission(perm)` each with
 * `perm` = `app_resource_verb`.
 *
 * Applications of `hostsonly_apps.lst` follow the host-centric pattern of the generator's
 * hosts-only variant instead: for every non-wildcard permission an assignable
 * `<app>_<verb>_<resource>_assigned`, made contingent on `inventory_host_view` and exposed on hosts;
 * the `hbi` import is added only then, so an empty list writes exactly what the deployed generator writes.
 */
export function generateV1OnlyPermissions(files: readonly PermissionFile[], migratedApps: readonly string[], hostsOnlyApps: readonly string[] = []): string {
  const migrated = new Set(migratedApps);
  const hostsOnly = new Set(hostsOnlyApps);
  const refs: ExtensionReference[] = [];
  let usesHbi = false;
  for (const file of [...files].sort((a, b) => byteOrder(a.app, b.app))) {
    if (migrated.has(file.app)) continue;
    for (const resource of Object.keys(file.resources).sort(byteOrder)) {
      for (const { verb } of file.resources[resource] ?? []) {
        if (!hostsOnly.has(file.app)) {
          refs.push({ namespace: "rbac", name: "add_v1only_permission", params: { perm: escapeName(`${file.app}:${resource}:${verb}`.replace(/:/g, "_")) } });
          continue;
        }
        if (file.app === "*" || resource === "*" || verb === "*") continue;
        usesHbi = true;
        const v2 = `${escapeName(file.app)}_${escapeName(verb)}_${escapeName(resource)}`;
        const assigned = `${v2}_assigned`;
        // Parameters in key order, as Go marshals a map.
        refs.push({ namespace: "rbac", name: "add_v1_based_permission", params: { app: escapeName(file.app), resource: escapeName(resource), v2_perm: assigned, verb: escapeName(verb) } });
        refs.push({ namespace: "rbac", name: "add_contingent_permission", params: { contingent: v2, first: "inventory_host_view", second: assigned } });
        refs.push({ namespace: "hbi", name: "expose_host_permission", params: { host_perm: `${escapeName(verb)}_${escapeName(resource)}`, v2_perm: v2 } });
      }
    }
  }
  return `${goJson({ name: "rbac_v1_permissions", imports: usesHbi ? ["rbac", "hbi"] : ["rbac"], extension_references: refs })}\n`;
}

/** Lines of a `.lst` file as Go's bufio.Scanner yields them (a final newline ends the last line). */
export function parseAppList(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  if (text.endsWith("\n")) lines.pop();
  return lines;
}
