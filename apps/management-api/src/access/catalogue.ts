import type { Model } from "@gatehouse/evaluator";
import { assetVerb, defaultAssetTypes, LEVEL_LABELS, levelOfPattern, PATTERN_NAMES, type AssetTypeCatalog, type BindingLevel } from "@gatehouse/rbac";

/** One permission an application can check, with where it checks it and its v1 forms. */
export interface CheckablePermission {
  /** v2 permission name on `rbac/workspace` (and `rbac/tenant`). */
  name: string;
  /** v1 `app:resource:verb` strings that map to it. */
  v1: string[];
  /** The pattern of the application's asset type, when classified. */
  pattern: number | null;
  patternName: string | null;
  /** Where the application checks it (and where a binding must reach). */
  checkedAt: BindingLevel | null;
  /** Contingent parts (e.g. `patch_system_edit_assigned`) a role carries for this permission. */
  granted: string[];
}

/**
 * The permissions of the active schema that the explorer offers: every permission of
 * `rbac/workspace`, annotated from the asset-type catalogue with its v1 forms and the level its
 * application checks.
 */
export class PermissionIndex {
  readonly list: CheckablePermission[];
  private readonly byName = new Map<string, CheckablePermission>();
  private readonly byV1 = new Map<string, CheckablePermission>();
  /** v2 name (or contingent part) → the v1 permissions whose roles carry it. */
  private readonly v1ByPart = new Map<string, string[]>();

  constructor(
    readonly model: Model,
    readonly catalog: AssetTypeCatalog = defaultAssetTypes(),
  ) {
    const workspace = model.definitions.get("rbac/workspace");
    for (const name of [...(workspace?.permissions.keys() ?? [])].sort()) {
      const entry: CheckablePermission = { name, v1: [], pattern: null, patternName: null, checkedAt: null, granted: [] };
      this.byName.set(name, entry);
    }
    for (const permission of catalog.permissions()) {
      const { assetType, verb } = assetVerb(catalog, permission);
      const entry = this.byName.get(verb.relation) ?? this.byName.get(verb.v2[0] ?? "");
      if (!entry) continue;
      entry.v1.push(permission);
      entry.pattern = assetType.pattern;
      entry.patternName = PATTERN_NAMES[assetType.pattern] ?? null;
      entry.checkedAt = levelOfPattern(assetType.pattern);
      for (const part of verb.v2) if (!entry.granted.includes(part)) entry.granted.push(part);
      this.byV1.set(permission, entry);
      for (const part of new Set([entry.name, ...verb.v2])) this.v1ByPart.set(part, [...(this.v1ByPart.get(part) ?? []), permission]);
    }
    this.list = [...this.byName.values()];
  }

  /** v1 permissions a role must hold to carry `part` (a v2 permission or contingent part). */
  v1For(part: string): string[] {
    return this.v1ByPart.get(part) ?? [];
  }

  /** A v2 name or a v1 `app:resource:verb` string. */
  find(permission: string): CheckablePermission | undefined {
    return permission.includes(":") ? this.byV1.get(permission) : this.byName.get(permission);
  }
}

export const levelLabel = (level: BindingLevel): string => LEVEL_LABELS[level];
