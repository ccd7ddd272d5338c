import { compileSchema, type Model } from "@gatehouse/evaluator";
import { compileRoleModel, ENVIRONMENTS, loadRoleConfig, RoleConfigError, type Environment } from "@gatehouse/role-config";
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
 * The evaluator model to check v2 permissions with: the zed file given, else Gatehouse's own
 * schema of the environment (`compileRoleModel` of @gatehouse/role-config).
 */
export async function loadSchemaModel(schemaPath: string | undefined, env: string): Promise<Model> {
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
