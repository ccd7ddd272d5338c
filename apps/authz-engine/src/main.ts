// Process entry: reads the environment, starts the engine, stops gracefully on SIGTERM/SIGINT.
import { readFileSync } from "node:fs";
import { createLogger } from "@gatehouse/telemetry";
import type { EngineConfig } from "./config.js";
import { parseReporters, type Reporters } from "./commands/write-policy.js";
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
// AUTHN_MODE (what infra/ sets) decides; without it, an issuer URL turns OIDC on.
const authnMode = env["AUTHN_MODE"] || (env["AUTHN_OIDC_SERVER_URL"] ? "oidc" : "none");
if (authnMode !== "oidc" && authnMode !== "none") {
  logger.fatal({ authnMode }, "AUTHN_MODE must be oidc or none");
  process.exit(1);
}
if (authnMode === "oidc" && !env["AUTHN_OIDC_SERVER_URL"]) {
  logger.fatal("AUTHN_MODE=oidc needs AUTHN_OIDC_SERVER_URL");
  process.exit(1);
}
let reporters: Reporters;
try {
  reporters = parseReporters(env["AUTHZ_REPORTERS"]);
} catch (error) {
  logger.fatal({ err: error }, "AUTHZ_REPORTERS is not valid");
  process.exit(1);
}
const config: EngineConfig = {
  logger,
  environment,
  storeConfig: {
    ...(env["DATABASE_URL"] ? { databaseUrl: env["DATABASE_URL"] } : {}),
    ...(env["GATEHOUSE_DATA_DIR"] ? { dataDir: env["GATEHOUSE_DATA_DIR"] } : {}),
  },
  ...(env["GATEHOUSE_DOMAIN"] ? { domain: env["GATEHOUSE_DOMAIN"] } : {}),
  ...(int("AUTHZ_GRPC_PORT") !== undefined ? { port: int("AUTHZ_GRPC_PORT") } : {}),
  ...(int("AUTHZ_METRICS_PORT") !== undefined ? { metricsPort: int("AUTHZ_METRICS_PORT") } : {}),
  reporters,
  authn:
    authnMode === "oidc"
    ? {
        mode: "oidc",
        serverUrl: env["AUTHN_OIDC_SERVER_URL"] ?? "",
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
