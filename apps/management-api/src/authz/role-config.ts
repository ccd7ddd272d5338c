import type { Model } from "@gatehouse/evaluator";
import type { SchemaAst } from "@gatehouse/role-config";
import { defaultAssetTypes, permissionLevelsFromCatalog, roleGrants } from "@gatehouse/rbac";
import { loadConfigDirectory, loadRoleConfig, modelOf, type ConfigIdentity, type Environment, type RoleConfig, type RoleDefinition } from "@gatehouse/role-config";
import type { SystemRoleDefinition } from "@gatehouse/store";
import { createPermissionCatalogue, permissionRecord, type PermissionCatalogue, type PermissionScope } from "./catalogue.js";

/** What the management API takes from the role configuration of one environment. */
export interface RoleConfiguration {
  model: Model;
  catalogue: PermissionCatalogue;
  /** Seeded (system) roles; seeded into the store at start. */
  systemRoles: SystemRoleDefinition[];
  /** Which configuration this is (hash, directory, load time). */
  identity: ConfigIdentity;
  /** The generated zed text and its object (what a reload compares against). */
  schemaZed: string;
  schemaAst: SchemaAst;
}

/** Level a permission needs, from the asset types of the rbac package (DEFAULT when unknown). */
export function defaultScopeOf(): (permission: string) => PermissionScope | undefined {
  const levelOf = permissionLevelsFromCatalog(defaultAssetTypes());
  return (permission) => {
    try {
      return levelOf(permission);
    } catch {
      return undefined;
    }
  };
}

/**
 * True when every asset type a held permission grants is placed implicitly in the Default Workspace
 * (Pattern 3): no service checks it at a standard workspace. A permission that grants a
 * workspace-aware type (Patterns 1, 2), or none at all, is workspace-granular.
 */
export function defaultOnlyOf(): (permission: string) => boolean {
  const catalog = defaultAssetTypes();
  const concrete = catalog.permissions();
  const cache = new Map<string, boolean>();
  return (permission) => {
    let result = cache.get(permission);
    if (result === undefined) {
      const patterns = concrete
        .filter((c) => roleGrants([permission], c))
        .map((c) => {
          const [app = "", resource = ""] = c.split(":");
          return catalog.get(app, resource)?.pattern;
        });
      result = patterns.length > 0 && patterns.every((p) => p === 3);
      cache.set(permission, result);
    }
    return result;
  };
}

const RANK: Record<PermissionScope, number> = { default: 0, root: 1, tenant: 2 };

/** A system role is bound at the highest level any of its permissions needs. */
export function toSystemRole(role: RoleDefinition, scopeOf: (permission: string) => PermissionScope): SystemRoleDefinition {
  // A role defined by an external tenant (`external`) is seeded too; it grants nothing here.
  const access = (role.access ?? []).map((a) => ({ permission: a.permission }));
  const scope = access.map((a) => scopeOf(a.permission)).reduce<PermissionScope>((top, s) => (RANK[s] > RANK[top] ? s : top), "default");
  return {
    name: role.name,
    ...(role.display_name ? { display_name: role.display_name } : {}),
    description: role.description,
    platform_default: role.platform_default,
    admin_default: role.admin_default,
    access,
    scope,
    version: role.version,
  };
}

/** Schema, permission catalogue and system roles of a loaded configuration. */
export function roleConfigurationOf(config: RoleConfig): RoleConfiguration {
  // As insights-rbac seeds them: `requires` names verbs of the same application and resource.
  const permissions = Object.entries(config.permissions).flatMap(([app, resources]) =>
    Object.entries(resources).flatMap(([resource, verbs]) =>
      verbs.map((v) =>
        permissionRecord(
          `${app}:${resource}:${v.verb}`,
          v.description ?? "",
          verbs.filter((other) => other.verb !== v.verb && (v.requires ?? []).includes(other.verb)).map((other) => `${app}:${resource}:${other.verb}`),
        ),
      ),
    ),
  );
  const catalogue = createPermissionCatalogue(permissions, defaultScopeOf(), defaultOnlyOf());
  return {
    model: modelOf(config),
    catalogue,
    systemRoles: config.roles.map((role) => toSystemRole(role, catalogue.scopeOf)),
    identity: config.identity,
    schemaZed: config.schemaZed,
    schemaAst: config.schemaAst,
  };
}

/** The configuration directory `dir` when given (GATEHOUSE_ROLE_CONFIG), else Gatehouse's own for `env`. */
export async function loadRoleConfiguration(env: Environment, dir?: string): Promise<RoleConfiguration> {
  return roleConfigurationOf(dir ? loadConfigDirectory(dir) : loadRoleConfig(env));
}
