import path from "node:path";

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

export function resolveStartConfig(flags: StartFlags, env: NodeJS.ProcessEnv = process.env): StartConfig {
  const gatehouseEnv = env["GATEHOUSE_ENV"] ?? "stage";
  const roleConfigSetting = flags.roleConfig ?? env["GATEHOUSE_ROLE_CONFIG"];
  const roleConfigDir = roleConfigSetting ? path.resolve(roleConfigSetting) : undefined;
  if (gatehouseEnv !== "stage" && gatehouseEnv !== "prod") {
    throw new StartConfigError(`GATEHOUSE_ENV must be 'stage' or 'prod', got '${gatehouseEnv}'.`);
  }
  return {
    ...(env["DATABASE_URL"] ? { databaseUrl: env["DATABASE_URL"] } : {}),
    ...(env["REDIS_URL"] ? { redisUrl: env["REDIS_URL"] } : {}),
    dataDir: path.resolve(flags.dataDir ?? env["GATEHOUSE_DATA_DIR"] ?? ".gatehouse-data"),
    host: flags.host ?? env["HOST"] ?? "127.0.0.1",
    httpPort: port(flags.httpPort ?? env["PORT"], 8000, "the management API port"),
    grpcPort: port(flags.grpcPort ?? env["GRPC_PORT"], 9091, "the gRPC port"),
    cachePort: port(flags.cachePort ?? env["WORKSPACE_CACHE_PORT"], 8001, "the workspace-cache port"),
    metricsPort: port(flags.metricsPort ?? env["METRICS_PORT"], 9092, "the engine metrics port"),
    domain: env["GATEHOUSE_DOMAIN"] ?? "redhat",
    env: gatehouseEnv,
    ...(roleConfigDir ? { roleConfigDir } : {}),
    // The demo binds Gatehouse's own roles, which another configuration need not have.
    seedDemo: flags.seed === false ? false : env["GATEHOUSE_SEED_DEMO"] !== undefined ? env["GATEHOUSE_SEED_DEMO"] !== "false" : !roleConfigDir,
  };
}
