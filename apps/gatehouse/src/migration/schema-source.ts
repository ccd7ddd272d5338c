import * as roleConfig from "@gatehouse/role-config";
import { readFile } from "node:fs/promises";
import { MigrationError } from "./errors.js";

/**
 * The zed schema to evaluate v2 checks with: the file given, else the role configuration's
 * generated schema for the environment (when @gatehouse/role-config provides `loadRoleConfig`).
 */
export async function loadSchemaText(schemaPath: string | undefined, env: string): Promise<string> {
  if (schemaPath) {
    try {
      return await readFile(schemaPath, "utf8");
    } catch (err) {
      throw new MigrationError("file-not-found", `cannot read schema '${schemaPath}': ${String(err)}`);
    }
  }
  const load = (roleConfig as Record<string, unknown>).loadRoleConfig;
  if (typeof load === "function") {
    const config = (await (load as (e: string) => unknown)(env)) as { schemaZed?: unknown };
    if (typeof config.schemaZed === "string") return config.schemaZed;
  }
  throw new MigrationError("schema-unavailable", "no zed schema: pass --schema <schema.zed>");
}
