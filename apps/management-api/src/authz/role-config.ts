import type { Model } from "@gatehouse/evaluator";
import type { SystemRoleDefinition } from "@gatehouse/store";
import { createPermissionCatalogue, type PermissionCatalogue, type PermissionScope } from "./catalogue.js";

/** What the management API takes from the role configuration of one environment. */
export interface RoleConfiguration {
  model: Model;
  catalogue: PermissionCatalogue;
  /** Seeded (system) roles; seeded into the store at start. */
  systemRoles: SystemRoleDefinition[];
}

/** The parts of @gatehouse/role-config used here, looked up at run time (see loadRoleConfiguration). */
interface RoleConfigModule {
  compileRoleModel?: (env: "stage" | "prod") => Model;
  loadRoleConfig?: (env: "stage" | "prod") => {
    roles?: SystemRoleDefinition[];
    permissions?: Iterable<string> | Record<string, unknown>;
    scopeOf?: (permission: string) => PermissionScope | undefined;
  };
}

function permissionStrings(permissions: Iterable<string> | Record<string, unknown> | undefined): string[] {
  if (!permissions) return [];
  if (Symbol.iterator in Object(permissions)) return [...(permissions as Iterable<string>)];
  return Object.keys(permissions);
}

/**
 * Gatehouse's own schema, permission catalogue and system roles for `env`, from
 * @gatehouse/role-config. Resolved dynamically so that this app does not pin the shape of a
 * package developed alongside it; a missing piece is a startup error, never a silent default.
 */
export async function loadRoleConfiguration(env: "stage" | "prod"): Promise<RoleConfiguration> {
  const mod = (await import("@gatehouse/role-config")) as RoleConfigModule;
  if (typeof mod.compileRoleModel !== "function" || typeof mod.loadRoleConfig !== "function") {
    throw new Error("@gatehouse/role-config does not provide compileRoleModel/loadRoleConfig; pass roleConfiguration to buildServer.");
  }
  const config = mod.loadRoleConfig(env);
  return {
    model: mod.compileRoleModel(env),
    catalogue: createPermissionCatalogue(permissionStrings(config.permissions), config.scopeOf),
    systemRoles: config.roles ?? [],
  };
}
