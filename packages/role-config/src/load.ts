// Gatehouse's own configuration: one configuration directory per environment under `configs/`,
// in the role-configuration repository's layout, loaded like any other directory.
import { join } from "node:path";
import { compileSchema, type Model } from "@gatehouse/evaluator";
import { buildSchemaFromDirectory, CONFIG_LAYOUT, loadConfigDirectory, packageRoot, type RoleConfig } from "./directory.js";
import { RoleConfigError } from "./errors.js";

export const ENVIRONMENTS = ["stage", "prod"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Where to read an environment from; tests point `root` at a scratch copy. */
export interface LoadOptions {
  /** Directory holding `configs/<env>/...`; defaults to this package's root. */
  root?: string;
}

function assertEnvironment(env: string): asserts env is Environment {
  if (!(ENVIRONMENTS as readonly string[]).includes(env)) {
    throw new RoleConfigError([{ code: "unknown-environment", file: "", path: "$", message: `unknown environment '${env}' (expected ${ENVIRONMENTS.join(" or ")})` }]);
  }
}

/** The configuration directory of a built-in environment. */
export function environmentDir(env: Environment, options: LoadOptions = {}): string {
  assertEnvironment(env);
  return join(options.root ?? packageRoot, "configs", env);
}

/** Path of an environment's committed schema, relative to the package root. */
export const schemaZedFile = (env: Environment): string => `configs/${env}/${CONFIG_LAYOUT.schemaZed}`;

/** Builds an environment's `schema.zed` text from its KSL sources (and permission catalogue). */
export function buildSchema(env: Environment, options: LoadOptions = {}): string {
  return buildSchemaFromDirectory(environmentDir(env, options)).zed;
}

/** Loads and validates everything of one environment; throws a RoleConfigError listing every problem. */
export function loadRoleConfig(env: Environment, options: LoadOptions = {}): RoleConfig {
  return loadConfigDirectory(environmentDir(env, options));
}

/** The evaluator model of an environment's schema. */
export function compileRoleModel(env: Environment, options: LoadOptions = {}): Model {
  return compileSchema(loadRoleConfig(env, options).schemaAst);
}

/** The evaluator model of a loaded configuration. */
export const modelOf = (config: RoleConfig): Model => compileSchema(config.schemaAst);
