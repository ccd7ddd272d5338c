// workspace-cache's environment variables: one zod schema (see @gatehouse/config), read by main.ts
// and rendered into the README table and .env.example.
import { parseSystemUsers } from "@gatehouse/auth";
import { defineConfig, httpServerSettings, migrationSettings, oidcSettings, processSettings, setting, storeSettings, tracingSettings } from "@gatehouse/config";

export const workspaceCacheSettings = defineConfig("workspace-cache", {
  PORT: setting.port("HTTP port", 8001),
  HOST: setting.string("listen address", { default: "0.0.0.0" }),
  REDIS_URL: setting.url("Redis connection string", { protocols: ["redis", "rediss"], unset: "in-process memory cache", secret: true }),
  DATABASE_URL: storeSettings.DATABASE_URL,
  GATEHOUSE_DATA_DIR: storeSettings.GATEHOUSE_DATA_DIR,
  GATEHOUSE_DOMAIN: storeSettings.GATEHOUSE_DOMAIN,
  ...migrationSettings,
  ...oidcSettings,
  SYSTEM_USERS: setting.custom('JSON `{"<sub>": {"admin": bool, "is_service_account": bool, "allow_any_org": bool}}`', parseSystemUsers(undefined), "{}", (value) => parseSystemUsers(value)),
  ...httpServerSettings,
  ...processSettings,
  ...tracingSettings,
});
