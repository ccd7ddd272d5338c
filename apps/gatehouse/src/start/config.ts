import path from "node:path";
import { ConfigError, defineConfig, hugePagesSettings, roleConfigSettings, setting, storeSettings, tracingSettings } from "@gatehouse/config";

/** Settings of the all-in-one local server, from flags and the environment. */
export interface StartConfig {
  /** Real Postgres; when absent, embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  /** Real Redis; when absent, the in-process memory cache. */
  redisUrl?: string;
  /** PGlite data directory; `null` keeps the embedded database in memory (tests). */
  dataDir: string | null;
  host: string;
  httpPort: number;
  grpcPort: number;
  cachePort: number;
  metricsPort: number;
  domain: string;
  env: "stage" | "prod";
  /** A role-configuration directory (`configs/<env>` of an rbac-config checkout) instead of the built-in `env`. */
  roleConfigDir?: string;
  seedDemo: boolean;
}

export class StartConfigError extends Error {
  override readonly name = "StartConfigError";
}

function port(raw: string | number | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new StartConfigError(`${name} must be a port number between 0 and 65535, got '${raw}'.`);
  }
  return value;
}

export interface StartFlags {
  dataDir?: string;
  httpPort?: string;
  grpcPort?: string;
  cachePort?: string;
  metricsPort?: string;
  host?: string;
  seed?: boolean;
  roleConfig?: string;
}

/** The all-in-one server's environment variables (flags take precedence over them). */
export const startSettings = defineConfig("start", {
  DATABASE_URL: storeSettings.DATABASE_URL,
  REDIS_URL: setting.url("Redis connection string", { protocols: ["redis", "rediss"], unset: "in-process memory cache", secret: true }),
  GATEHOUSE_DATA_DIR: setting.string("PGlite data directory", { default: ".gatehouse-data" }),
  HOST: setting.string("listen address", { default: "127.0.0.1" }),
  PORT: setting.port("management API port", 8000),
  GRPC_PORT: setting.port("authz-engine gRPC port", 9091),
  WORKSPACE_CACHE_PORT: setting.port("workspace-cache port", 8001),
  METRICS_PORT: setting.port("authz-engine HTTP port (inventory-api's HTTP/JSON checks under `/api/kessel/`, metrics)", 9092),
  GATEHOUSE_DOMAIN: storeSettings.GATEHOUSE_DOMAIN,
  GATEHOUSE_ENV: storeSettings.GATEHOUSE_ENV,
  ...roleConfigSettings,
  GATEHOUSE_SEED_DEMO: setting.bool("seed the demo organisation on first start", true),
  ...hugePagesSettings,
  ...tracingSettings,
});

export function resolveStartConfig(flags: StartFlags, env: NodeJS.ProcessEnv = process.env): StartConfig {
  let v: ReturnType<typeof startSettings.parse>;
  try {
    v = startSettings.parse(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new StartConfigError(error.message);
    throw error;
  }
  const roleConfigSetting = flags.roleConfig ?? v.GATEHOUSE_ROLE_CONFIG;
  const roleConfigDir = roleConfigSetting ? path.resolve(roleConfigSetting) : undefined;
  return {
    ...(v.DATABASE_URL ? { databaseUrl: v.DATABASE_URL } : {}),
    ...(v.REDIS_URL ? { redisUrl: v.REDIS_URL } : {}),
    dataDir: path.resolve(flags.dataDir ?? v.GATEHOUSE_DATA_DIR),
    host: flags.host ?? v.HOST,
    httpPort: port(flags.httpPort, v.PORT, "the management API port"),
    grpcPort: port(flags.grpcPort, v.GRPC_PORT, "the gRPC port"),
    cachePort: port(flags.cachePort, v.WORKSPACE_CACHE_PORT, "the workspace-cache port"),
    metricsPort: port(flags.metricsPort, v.METRICS_PORT, "the engine metrics port"),
    domain: v.GATEHOUSE_DOMAIN,
    env: v.GATEHOUSE_ENV,
    ...(roleConfigDir ? { roleConfigDir } : {}),
    // The demo binds Gatehouse's own roles, which another configuration need not have.
    seedDemo: flags.seed === false ? false : env["GATEHOUSE_SEED_DEMO"] ? v.GATEHOUSE_SEED_DEMO : !roleConfigDir,
  };
}
