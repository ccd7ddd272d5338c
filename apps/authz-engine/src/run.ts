// The engine process: reads the environment (engineSettings), starts the engine, drains on SIGTERM/SIGINT (entered through main.ts).
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { ConfigError } from "@gatehouse/config";
import { createLogger, startTracing } from "@gatehouse/telemetry";
import type { EngineConfig } from "./config.js";
import { fileCheckpointStore } from "./graph/checkpoint.js";
import { buildServer } from "./server.js";
import { engineSettings } from "./settings.js";

let env: ReturnType<typeof engineSettings.parse>;
try {
  env = engineSettings.parse(process.env);
  // Half a TLS configuration must not quietly serve plaintext; oidc needs its issuer.
  if (Boolean(env.AUTHZ_TLS_CERT_FILE) !== Boolean(env.AUTHZ_TLS_KEY_FILE)) {
    throw new ConfigError("authz-engine", [{ variable: "AUTHZ_TLS_CERT_FILE", message: "AUTHZ_TLS_CERT_FILE and AUTHZ_TLS_KEY_FILE must be set together" }]);
  }
  if (env.AUTHZ_CHECKPOINT_DIR && env.AUTHZ_CHECKPOINT_IN_DATABASE) {
    throw new ConfigError("authz-engine", [{ variable: "AUTHZ_CHECKPOINT_IN_DATABASE", message: "cannot be combined with AUTHZ_CHECKPOINT_DIR" }]);
  }
  if (env.AUTHN_MODE === "oidc" && !env.AUTHN_OIDC_SERVER_URL) {
    throw new ConfigError("authz-engine", [{ variable: "AUTHN_OIDC_SERVER_URL", message: "is required when AUTHN_MODE is oidc" }]);
  }
} catch (error) {
  createLogger({ name: "authz-engine" }).fatal(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

const tracing = startTracing("authz-engine", env);
const logger = createLogger({ name: "authz-engine", level: env.LOG_LEVEL });
// AUTHN_MODE (what infra/ sets) decides; without it, an issuer URL turns OIDC on.
const oidc = (env.AUTHN_MODE ?? (env.AUTHN_OIDC_SERVER_URL ? "oidc" : "unauthenticated")) === "oidc";
const config: EngineConfig = {
  logger,
  environment: env.GATEHOUSE_ENV,
  ...(env.GATEHOUSE_ROLE_CONFIG ? { roleConfigDir: env.GATEHOUSE_ROLE_CONFIG } : {}),
  storeConfig: {
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    ...(env.DATABASE_READ_URL ? { readDatabaseUrl: env.DATABASE_READ_URL } : {}),
    ...(env.GATEHOUSE_DATA_DIR ? { dataDir: env.GATEHOUSE_DATA_DIR } : {}),
    migrations: env.GATEHOUSE_MIGRATE_ON_START ? "apply" : "verify",
  },
  domain: env.GATEHOUSE_DOMAIN,
  port: env.AUTHZ_GRPC_PORT,
  metricsPort: env.AUTHZ_METRICS_PORT,
  shutdownTimeoutMs: Math.max(1, env.SHUTDOWN_TIMEOUT_MS),
  reporters: env.AUTHZ_REPORTERS,
  http: { trustIdentityHeader: env.AUTHZ_HTTP_TRUST_IDENTITY_HEADER },
  streams: {
    maxPerConnection: env.AUTHZ_MAX_STREAMS_PER_CONNECTION,
    maxActive: env.AUTHZ_MAX_ACTIVE_STREAMS,
    idleTimeoutMs: env.AUTHZ_STREAM_IDLE_TIMEOUT_MS,
  },
  connections: { max: env.AUTHZ_MAX_CONNECTIONS, idleTimeoutMs: env.AUTHZ_CONNECTION_IDLE_TIMEOUT_MS, headersTimeoutMs: env.AUTHZ_HEADERS_TIMEOUT_MS, requestTimeoutMs: env.AUTHZ_REQUEST_TIMEOUT_MS },
  authn:
    oidc && env.AUTHN_OIDC_SERVER_URL
      ? {
          mode: "oidc",
          serverUrl: env.AUTHN_OIDC_SERVER_URL,
          ...(env.AUTHN_OIDC_CLIENT_ID ? { clientId: env.AUTHN_OIDC_CLIENT_ID } : {}),
          skipClientIdCheck: env.AUTHN_OIDC_SKIP_CLIENT_ID_CHECK,
          insecureClient: env.AUTHN_OIDC_INSECURE_CLIENT,
        }
      : { mode: "unauthenticated" },
  checkCacheBytes: env.AUTHZ_CHECK_CACHE_BYTES,
  threads: env.AUTHZ_THREADS ?? availableParallelism(),
  ...(env.AUTHZ_CHECKPOINT_DIR || env.AUTHZ_CHECKPOINT_IN_DATABASE
    ? {
        checkpoint: {
          store: env.AUTHZ_CHECKPOINT_DIR ? fileCheckpointStore(env.AUTHZ_CHECKPOINT_DIR) : ("database" as const),
          intervalMs: env.AUTHZ_CHECKPOINT_INTERVAL_SECONDS * 1000,
          retention: { intervalMs: env.GATEHOUSE_FEED_RETENTION_INTERVAL_SECONDS * 1000, marginRevisions: env.GATEHOUSE_FEED_RETENTION_MARGIN },
        },
      }
    : {}),
  ...(env.AUTHZ_TLS_CERT_FILE && env.AUTHZ_TLS_KEY_FILE ? { tls: { cert: readFileSync(env.AUTHZ_TLS_CERT_FILE), key: readFileSync(env.AUTHZ_TLS_KEY_FILE) } } : {}),
};

const server = buildServer(config);
server.start().catch((error: unknown) => {
  logger.fatal({ err: error }, "authz engine failed to start");
  process.exit(1);
});

// `on`, not `once`, with a guard: under the huge-pages launcher (main.ts) a Ctrl+C reaches this
// process twice (from the terminal and relayed), and a second signal must not cut the drain short.
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    server
      .stop()
      .then(() => tracing.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
  });
}
