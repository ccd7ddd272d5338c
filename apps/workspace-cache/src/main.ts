// Process entry: reads the environment (workspaceCacheSettings), nothing else (see buildServer for the behaviour).
import { ConfigError, httpServerLimits } from "@gatehouse/config";
import { startTracing } from "@gatehouse/telemetry";
import type { AuthConfig } from "./authn.js";
import { buildServer } from "./server.js";
import { workspaceCacheSettings } from "./settings.js";

let env: ReturnType<typeof workspaceCacheSettings.parse>;
try {
  env = workspaceCacheSettings.parse(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

const tracing = startTracing("workspace-cache", env);

const auth: AuthConfig = env.OIDC_ISSUER_URL
  ? {
      mode: "oidc",
      issuerUrl: env.OIDC_ISSUER_URL,
      audience: env.OIDC_AUDIENCE,
      clientId: env.OIDC_CLIENT_ID,
      skipClientIdCheck: env.OIDC_SKIP_CLIENT_ID_CHECK,
      insecure: env.OIDC_INSECURE,
      systemUsers: env.SYSTEM_USERS,
    }
  : { mode: "disabled" };

const server = buildServer({
  http: httpServerLimits(env),
  port: env.PORT,
  host: env.HOST,
  cache: env.REDIS_URL ? { kind: "redis", url: env.REDIS_URL } : { kind: "memory" },
  source: {
    store: { databaseUrl: env.DATABASE_URL, dataDir: env.GATEHOUSE_DATA_DIR, domain: env.GATEHOUSE_DOMAIN, migrations: env.GATEHOUSE_MIGRATE_ON_START ? "apply" : "verify" },
  },
  auth,
  logLevel: env.LOG_LEVEL,
  shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
});
await server.start();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(
    signal,
    () =>
      void server
        .stop()
        .then(() => tracing.shutdown())
        .finally(() => process.exit(0)),
  );
}
