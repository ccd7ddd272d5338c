import { parseSystemUsers, type SystemUsers } from "@gatehouse/auth";
import {
  ConfigError,
  defineConfig,
  httpServerLimits,
  httpServerSettings,
  migrationSettings,
  oidcSettings,
  processSettings,
  roleConfigSettings,
  setting,
  storeSettings,
  tracingSettings,
} from "@gatehouse/config";
import { MAX_WORKSPACE_DEPTH_LIMIT } from "@gatehouse/store";
import { DEFAULT_HTTP_LIMITS, type HttpServerLimits } from "@gatehouse/telemetry";

/** Everything `buildServer` needs; `configFromEnv` fills it from the environment. */
export interface ManagementApiConfig {
  port: number;
  host: string;
  /** Postgres URL; without it the store runs on embedded PGlite. */
  databaseUrl?: string;
  /** PGlite data directory; in-memory when absent. */
  dataDir?: string;
  /** Apply missing migrations at start (default), or refuse to start while any is missing. */
  migrateOnStart?: boolean;
  /** `<domain>` of tenant and principal ids (`rbac/tenant:<domain>/<org_id>`). */
  domain: string;
  /** Role configuration environment (`stage` or `prod`). */
  env: "stage" | "prod";
  /** A role-configuration directory (`configs/<env>` of an rbac-config checkout); default: the built-in `env`. */
  roleConfigDir?: string;
  /**
   * Accept `x-rh-identity` as proof of identity (behind a trusted gateway, or locally). Default: true
   * without an OIDC issuer, false with one. A bearer token, when sent, is always verified and wins.
   */
  trustIdentityHeader: boolean;
  oidc?: { issuerUrl: string; audience?: string; clientId?: string; skipClientIdCheck?: boolean; insecure?: boolean };
  systemUsers: SystemUsers;
  /** Edges a workspace may sit below root (root → default → 4 more = 5). */
  workspaceMaxDepth: number;
  /** Standard workspaces an organisation may hold (not race-proof, as in insights-rbac). */
  workspaceOrgLimit: number;
  /** When false, nothing may be created or moved directly under root. */
  allowChildrenUnderRoot: boolean;
  maxBodyBytes: number;
  /** Bound on waiting for the authorization graph to catch up with a write, ms. */
  readYourWritesTimeoutMs: number;
  /** Memory for cached GET answers (keyed by revision, so never stale for this instance); 0 = off. */
  readCacheBytes: number;
  /** On stop, how long requests in flight may take to finish before their connections are closed, ms. */
  shutdownTimeoutMs: number;
  /** How often expired time-bound grants are deleted from the store, ms; 0 = never. */
  expiredGrantSweepIntervalMs: number;
  logLevel?: string;
  /** Applications whose permissions custom roles may hold (v1 `allowed_only`); undefined = every application. */
  roleCreateAllowList?: string[];
  /** The source commit `/api/rbac/v1/status/` reports. */
  buildCommit: string;
  /** Timeouts and the connection cap of the HTTP server. */
  http: HttpServerLimits;
}

export const DEFAULT_CONFIG: ManagementApiConfig = {
  port: 8000,
  host: "0.0.0.0",
  domain: "redhat",
  env: "stage",
  trustIdentityHeader: true,
  systemUsers: new Map(),
  workspaceMaxDepth: 5,
  workspaceOrgLimit: 3000,
  allowChildrenUnderRoot: false,
  maxBodyBytes: 1_048_576,
  readYourWritesTimeoutMs: 10_000,
  readCacheBytes: 64 * 1024 * 1024,
  http: DEFAULT_HTTP_LIMITS,
  shutdownTimeoutMs: 10_000,
  expiredGrantSweepIntervalMs: 60_000,
  buildCommit: "unknown",
};

export { ConfigError };

/** The management API's environment variables: one zod schema, also rendered into the README and .env.example. */
export const managementSettings = defineConfig("management-api", {
  PORT: setting.port("HTTP port", DEFAULT_CONFIG.port),
  HOST: setting.string("listen address", { default: DEFAULT_CONFIG.host }),
  ...storeSettings,
  ...migrationSettings,
  ...roleConfigSettings,
  // Unset: trusted only without OIDC_ISSUER_URL (a forged header must not beat a configured token check).
  TRUST_IDENTITY_HEADER: setting.custom<boolean | undefined>(
    "accept `x-rh-identity` (behind a trusted gateway, or locally); a verified bearer token always wins over it",
    undefined,
    "true without OIDC_ISSUER_URL, false with it",
    (value) => {
      const lower = value.toLowerCase();
      if (["1", "true", "yes", "on"].includes(lower)) return true;
      if (["0", "false", "no", "off"].includes(lower)) return false;
      throw new Error("must be true or false");
    },
  ),
  ...oidcSettings,
  SYSTEM_USERS: setting.custom('JSON `{"<sub>": {"admin": bool, "is_service_account": bool, "allow_any_org": bool}}`', DEFAULT_CONFIG.systemUsers, "{}", (value) => parseSystemUsers(value)),
  WORKSPACE_MAX_DEPTH: setting.int(`edges a workspace may sit below root (at most ${MAX_WORKSPACE_DEPTH_LIMIT}, below the evaluator's depth limit)`, {
    default: DEFAULT_CONFIG.workspaceMaxDepth,
    min: 1,
    max: MAX_WORKSPACE_DEPTH_LIMIT,
  }),
  WORKSPACE_ORG_CREATION_LIMIT: setting.int("standard workspaces an organisation may hold", { default: DEFAULT_CONFIG.workspaceOrgLimit, min: 1 }),
  ALLOW_CHILDREN_UNDER_ROOT: setting.bool("whether workspaces may be created directly under root", DEFAULT_CONFIG.allowChildrenUnderRoot),
  MAX_BODY_BYTES: setting.int("request body limit", { default: DEFAULT_CONFIG.maxBodyBytes, min: 1 }),
  READ_YOUR_WRITES_TIMEOUT_MS: setting.int("bound on waiting for the authorization graph to catch up with a write", { default: DEFAULT_CONFIG.readYourWritesTimeoutMs, min: 1 }),
  READ_CACHE_BYTES: setting.int("memory for cached GET answers (keyed by revision); 0 turns the cache off", { default: DEFAULT_CONFIG.readCacheBytes, min: 0 }),
  EXPIRED_GRANT_SWEEP_INTERVAL_MS: setting.int("how often expired time-bound role bindings are deleted and cross-account requests expired or started (ms); 0 = never", {
    default: DEFAULT_CONFIG.expiredGrantSweepIntervalMs,
    min: 0,
  }),
  ROLE_CREATE_ALLOW_LIST: setting.custom<string[] | undefined>(
    "comma list of applications whose permissions custom roles may hold (insights-rbac's setting; `allowed_only=true` of v1 `/permissions/`)",
    undefined,
    "unset → every application of the role configuration",
    (value) =>
      value
        .split(",")
        .map((app) => app.trim())
        .filter((app) => app !== ""),
  ),
  BUILD_COMMIT: setting.string("source commit of this build, reported by `/api/rbac/v1/status/`", { default: DEFAULT_CONFIG.buildCommit }),
  ...httpServerSettings,
  ...processSettings,
  ...tracingSettings,
});

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ManagementApiConfig {
  const v = managementSettings.parse(env);
  return {
    ...DEFAULT_CONFIG,
    port: v.PORT,
    host: v.HOST,
    ...(v.DATABASE_URL ? { databaseUrl: v.DATABASE_URL } : {}),
    ...(v.GATEHOUSE_DATA_DIR ? { dataDir: v.GATEHOUSE_DATA_DIR } : {}),
    migrateOnStart: v.GATEHOUSE_MIGRATE_ON_START,
    domain: v.GATEHOUSE_DOMAIN,
    env: v.GATEHOUSE_ENV,
    ...(v.GATEHOUSE_ROLE_CONFIG ? { roleConfigDir: v.GATEHOUSE_ROLE_CONFIG } : {}),
    trustIdentityHeader: v.TRUST_IDENTITY_HEADER ?? !v.OIDC_ISSUER_URL,
    ...(v.OIDC_ISSUER_URL
      ? {
          oidc: {
            issuerUrl: v.OIDC_ISSUER_URL,
            ...(v.OIDC_AUDIENCE ? { audience: v.OIDC_AUDIENCE } : {}),
            ...(v.OIDC_CLIENT_ID ? { clientId: v.OIDC_CLIENT_ID } : {}),
            skipClientIdCheck: v.OIDC_SKIP_CLIENT_ID_CHECK,
            insecure: v.OIDC_INSECURE,
          },
        }
      : {}),
    systemUsers: v.SYSTEM_USERS,
    workspaceMaxDepth: v.WORKSPACE_MAX_DEPTH,
    workspaceOrgLimit: v.WORKSPACE_ORG_CREATION_LIMIT,
    allowChildrenUnderRoot: v.ALLOW_CHILDREN_UNDER_ROOT,
    maxBodyBytes: v.MAX_BODY_BYTES,
    readYourWritesTimeoutMs: v.READ_YOUR_WRITES_TIMEOUT_MS,
    readCacheBytes: v.READ_CACHE_BYTES,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    expiredGrantSweepIntervalMs: v.EXPIRED_GRANT_SWEEP_INTERVAL_MS,
    logLevel: v.LOG_LEVEL,
    ...(v.ROLE_CREATE_ALLOW_LIST ? { roleCreateAllowList: v.ROLE_CREATE_ALLOW_LIST } : {}),
    buildCommit: v.BUILD_COMMIT,
    http: httpServerLimits(v),
  };
}
