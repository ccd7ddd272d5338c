// Public entry of @gatehouse/config: each app declares its environment variables once, as a zod
// schema with a description and a default; the same schema parses process.env, names the variable
// in every error, and renders the README table and .env.example.
export { ConfigError, defineConfig, setting } from "./schema.js";
export type { AppConfig, Setting, SettingDoc } from "./schema.js";
export { renderConfigTable, renderEnvExample } from "./render.js";
export {
  feedRetentionSettings,
  httpServerLimits,
  hugePagesSettings,
  httpServerSettings,
  LOG_LEVELS,
  migrationSettings,
  oidcSettings,
  processSettings,
  roleConfigSettings,
  storeSettings,
  tracingSettings,
} from "./shared.js";
export { HUGE_PAGES_TUNABLE, hugePagesEnvironment, relaunchWithHugePages } from "./huge-pages.js";
