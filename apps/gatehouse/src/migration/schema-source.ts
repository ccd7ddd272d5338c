import { compileSchema, type Model } from "@gatehouse/evaluator";
import { compileRoleModel, ENVIRONMENTS, loadConfigDirectory, loadRoleConfig, modelOf, RoleConfigError, type Environment } from "@gatehouse/role-config";
import { readFile } from "node:fs/promises";
import { MigrationError } from "./errors.js";

function requireEnvironment(env: string): Environment {
  if (!(ENVIRONMENTS as readonly string[]).includes(env)) {
    throw new MigrationError("invalid-options", `unknown environment '${env}' (expected ${ENVIRONMENTS.join(" or ")})`);
  }
  return env as Environment;
}

async function readSchemaFile(schemaPath: string): Promise<string> {
  try {
    return await readFile(schemaPath, "utf8");
  } catch (err) {
    throw new MigrationError("file-not-found", `cannot read schema '${schemaPath}': ${String(err)}`);
  }
}

function fromRoleConfig<T>(env: string, f: (e: Environment) => T): T {
  try {
    return f(requireEnvironment(env));
  } catch (err) {
    if (err instanceof RoleConfigError) throw new MigrationError("schema-unavailable", `role configuration '${env}': ${err.message}`);
    throw err;
  }
}

/** The zed schema text: the file given, else the role configuration's generated schema for `env`. */
export async function loadSchemaText(schemaPath: string | undefined, env: string): Promise<string> {
  if (schemaPath) return readSchemaFile(schemaPath);
  return fromRoleConfig(env, (e) => loadRoleConfig(e).schemaZed);
}

/**
 * The evaluator model to check v2 permissions with: the zed file given, else the schema built from
 * a role-configuration directory, else Gatehouse's own schema of the environment.
 */
export async function loadSchemaModel(schemaPath: string | undefined, env: string, configDir?: string): Promise<Model> {
  if (schemaPath && configDir) throw new MigrationError("invalid-options", "--schema and --config-dir exclude each other");
  if (configDir) {
    try {
      return modelOf(loadConfigDirectory(configDir));
    } catch (err) {
      if (err instanceof RoleConfigError) throw new MigrationError("schema-unavailable", `role configuration '${configDir}': ${err.message}`);
      throw err;
    }
  }
  if (schemaPath) {
    const text = await readSchemaFile(schemaPath);
    try {
      return compileSchema(text);
    } catch (err) {
      throw new MigrationError("schema-unavailable", `schema '${schemaPath}': ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return fromRoleConfig(env, (e) => compileRoleModel(e));
}
