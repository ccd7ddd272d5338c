// The README's configuration table and .env.example, generated from the apps' zod schemas
// (`pnpm --filter @gatehouse/gatehouse generate:config`; a test fails when the files drift).
import { renderConfigTable, renderEnvExample } from "@gatehouse/config";
import { engineSettings } from "@gatehouse/authz-engine";
import { managementSettings } from "@gatehouse/management-api";
import { workspaceCacheSettings } from "@gatehouse/workspace-cache";
import { startSettings } from "./config.js";

export const CONFIG_TABLE_START = "<!-- configuration table: generated from the apps' schemas, do not edit -->";
export const CONFIG_TABLE_END = "<!-- end of configuration table -->";

const schemas = () => [managementSettings, engineSettings, workspaceCacheSettings, startSettings] as const;

export function configTable(): string {
  return renderConfigTable(schemas());
}

export function envExample(): string {
  return renderEnvExample(
    schemas(),
    "Every environment variable Gatehouse reads, at its default (generated from the apps' schemas:\npnpm --filter @gatehouse/gatehouse generate:config). Copy to .env and uncomment what you change.",
  );
}

/** `readme` with the text between the table markers replaced by the generated table. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(CONFIG_TABLE_START);
  const end = readme.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error("README.md lacks the configuration table markers.");
  return `${readme.slice(0, start + CONFIG_TABLE_START.length)}\n\n${configTable()}\n${readme.slice(end)}`;
}
