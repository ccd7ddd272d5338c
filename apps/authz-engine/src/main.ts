// Process entry: reads the environment, starts the engine, stops gracefully on SIGTERM/SIGINT.
import { readFileSync } from "node:fs";
import { createLogger } from "@gatehouse/telemetry";
import type { EngineConfig } from "./config.js";
import { buildServer } from "./server.js";

const env = process.env;
const flag = (name: string): boolean => ["1", "true", "yes"].includes((env[name] ?? "").toLowerCase());
const int = (name: string): number | undefined => (env[name] ? Number(env[name]) : undefined);

const logger = createLogger({ name: "authz-engine" });
// Half a TLS configuration must not quietly serve plaintext.
if (Boolean(env["AUTHZ_TLS_CERT_FILE"]) !== Boolean(env["AUTHZ_TLS_KEY_FILE"])) {
  logger.fatal("AUTHZ_TLS_CERT_FILE and AUTHZ_TLS_KEY_FILE must be set together");
  process.exit(1);
}
const environment = env["GATEHOUSE_ENV"] === "prod" ? "prod" : "stage";
const config: EngineConfig = {
  logger,
  environment,
  ...(env["GATEHOUSE_ROLE_CONFIG"] ? { roleConfigDir: env["GATEHOUSE_ROLE_CONFIG"] } : {}),
  storeConfig: {
    ...(env["DATABASE_URL"] ? { databaseUrl: env["DATABASE_URL"] } : {}),
    ...(env["GATEHOUSE_DATA_DIR"] ? { dataDir: env["GATEHOUSE_DATA_DIR"] } : {}),
  },
  ...(env["GATEHOUSE_DOMAIN"] ? { domain: env["GATEHOUSE_DOMAIN"] } : {}),
  ...(int("AUTHZ_GRPC_PORT") !== undefined ? { port: int("AUTHZ_GRPC_PORT") } : {}),
  ...(int("AUTHZ_METRICS_PORT") !== undefined ? { metricsPort: int("AUTHZ_METRICS_PORT") } : {}),
  authn: env["AUTHN_OIDC_SERVER_URL"]
    ? {
        mode: "oidc",
        serverUrl: env["AUTHN_OIDC_SERVER_URL"],
        ...(env["AUTHN_OIDC_CLIENT_ID"] ? { clientId: env["AUTHN_OIDC_CLIENT_ID"] } : {}),
        skipClientIdCheck: flag("AUTHN_OIDC_SKIP_CLIENT_ID_CHECK"),
        insecureClient: flag("AUTHN_OIDC_INSECURE_CLIENT"),
      }
    : { mode: "unauthenticated" },
  ...(env["AUTHZ_TLS_CERT_FILE"] && env["AUTHZ_TLS_KEY_FILE"]
    ? { tls: { cert: readFileSync(env["AUTHZ_TLS_CERT_FILE"]), key: readFileSync(env["AUTHZ_TLS_KEY_FILE"]) } }
    : {}),
};

const server = buildServer(config);
server.start().catch((error: unknown) => {
  logger.fatal({ err: error }, "authz engine failed to start");
  process.exit(1);
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    logger.info({ signal }, "shutting down");
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
