import { parseSystemUsers, type SystemUsers } from "@gatehouse/auth";
import { MAX_WORKSPACE_DEPTH_LIMIT } from "@gatehouse/store";
import { DEFAULT_HTTP_LIMITS, type HttpServerLimits } from "./http/server-limits.js";

/** Everything `buildServer` needs; `configFromEnv` fills it from the environment. */
export interface ManagementApiConfig {
  port: number;
  host: string;
  /** Postgres URL; without it the store runs on embedded PGlite. */
  databaseUrl?: string;
  /** PGlite data directory; in-memory when absent. */
  dataDir?: string;
  /** `<domain>` of tenant and principal ids (`rbac/tenant:<domain>/<org_id>`). */
  domain: string;
  /** Role configuration environment (`stage` or `prod`). */
  env: "stage" | "prod";
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
  logLevel?: string;
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
};

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

function int(env: NodeJS.ProcessEnv, key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[key];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(max === Number.MAX_SAFE_INTEGER ? `${key} must be an integer ≥ ${min}, got '${raw}'.` : `${key} must be an integer from ${min} to ${max}, got '${raw}'.`);
  }
  return value;
}

function bool(env: NodeJS.ProcessEnv, key: string, fallback: boolean): boolean {
  const raw = env[key]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new ConfigError(`${key} must be true or false, got '${env[key]}'.`);
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ManagementApiConfig {
  const environment = env["GATEHOUSE_ENV"] ?? DEFAULT_CONFIG.env;
  if (environment !== "stage" && environment !== "prod") throw new ConfigError(`GATEHOUSE_ENV must be stage or prod, got '${environment}'.`);
  const issuerUrl = env["OIDC_ISSUER_URL"];
  return {
    ...DEFAULT_CONFIG,
    port: int(env, "PORT", DEFAULT_CONFIG.port, 0),
    host: env["HOST"] ?? DEFAULT_CONFIG.host,
    ...(env["DATABASE_URL"] ? { databaseUrl: env["DATABASE_URL"] } : {}),
    ...(env["GATEHOUSE_DATA_DIR"] ? { dataDir: env["GATEHOUSE_DATA_DIR"] } : {}),
    domain: env["GATEHOUSE_DOMAIN"] ?? DEFAULT_CONFIG.domain,
    env: environment,
    trustIdentityHeader: bool(env, "TRUST_IDENTITY_HEADER", issuerUrl ? false : DEFAULT_CONFIG.trustIdentityHeader),
    ...(issuerUrl
      ? {
          oidc: {
            issuerUrl,
            ...(env["OIDC_AUDIENCE"] ? { audience: env["OIDC_AUDIENCE"] } : {}),
            ...(env["OIDC_CLIENT_ID"] ? { clientId: env["OIDC_CLIENT_ID"] } : {}),
            skipClientIdCheck: bool(env, "OIDC_SKIP_CLIENT_ID_CHECK", false),
            insecure: bool(env, "OIDC_INSECURE", false),
          },
        }
      : {}),
    systemUsers: parseSystemUsers(env["SYSTEM_USERS"]),
    workspaceMaxDepth: int(env, "WORKSPACE_MAX_DEPTH", DEFAULT_CONFIG.workspaceMaxDepth, 1, MAX_WORKSPACE_DEPTH_LIMIT),
    workspaceOrgLimit: int(env, "WORKSPACE_ORG_CREATION_LIMIT", DEFAULT_CONFIG.workspaceOrgLimit, 1),
    allowChildrenUnderRoot: bool(env, "ALLOW_CHILDREN_UNDER_ROOT", DEFAULT_CONFIG.allowChildrenUnderRoot),
    maxBodyBytes: int(env, "MAX_BODY_BYTES", DEFAULT_CONFIG.maxBodyBytes, 1),
    readYourWritesTimeoutMs: int(env, "READ_YOUR_WRITES_TIMEOUT_MS", DEFAULT_CONFIG.readYourWritesTimeoutMs, 1),
    readCacheBytes: int(env, "READ_CACHE_BYTES", DEFAULT_CONFIG.readCacheBytes, 0),
    ...(env["LOG_LEVEL"] ? { logLevel: env["LOG_LEVEL"] } : {}),
    http: {
      headersTimeoutMs: int(env, "HTTP_HEADERS_TIMEOUT_MS", DEFAULT_HTTP_LIMITS.headersTimeoutMs, 1),
      requestTimeoutMs: int(env, "HTTP_REQUEST_TIMEOUT_MS", DEFAULT_HTTP_LIMITS.requestTimeoutMs, 1),
      keepAliveTimeoutMs: int(env, "HTTP_KEEP_ALIVE_TIMEOUT_MS", DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs, 1),
      idleTimeoutMs: int(env, "HTTP_IDLE_TIMEOUT_MS", DEFAULT_HTTP_LIMITS.idleTimeoutMs, 1),
      maxConnections: int(env, "HTTP_MAX_CONNECTIONS", DEFAULT_HTTP_LIMITS.maxConnections, 1),
    },
  };
}
