// Process entry: reads the environment, nothing else (see buildServer for the behaviour).
import { parseSystemUsers } from "@gatehouse/auth";
import { type AuthConfig } from "./authn.js";
import { buildServer } from "./server.js";

const env = process.env;
const flag = (value: string | undefined) => value === "true" || value === "1";

const auth: AuthConfig = env["OIDC_ISSUER_URL"]
  ? {
      mode: "oidc",
      issuerUrl: env["OIDC_ISSUER_URL"],
      audience: env["OIDC_AUDIENCE"] || undefined,
      clientId: env["OIDC_CLIENT_ID"] || undefined,
      skipClientIdCheck: flag(env["OIDC_SKIP_CLIENT_ID_CHECK"]),
      insecure: flag(env["OIDC_INSECURE"]),
      systemUsers: parseSystemUsers(env["SYSTEM_USERS"]),
    }
  : { mode: "disabled" };

const ms = (name: string): number | undefined => (env[name] ? Number(env[name]) : undefined);
const http = Object.fromEntries(
  Object.entries({
    headersTimeoutMs: ms("HTTP_HEADERS_TIMEOUT_MS"),
    requestTimeoutMs: ms("HTTP_REQUEST_TIMEOUT_MS"),
    keepAliveTimeoutMs: ms("HTTP_KEEP_ALIVE_TIMEOUT_MS"),
    idleTimeoutMs: ms("HTTP_IDLE_TIMEOUT_MS"),
    maxConnections: ms("HTTP_MAX_CONNECTIONS"),
  }).filter(([, value]) => value !== undefined && Number.isInteger(value) && value > 0),
);

const server = buildServer({
  http,
  port: env["PORT"] ? Number(env["PORT"]) : 8001,
  cache: env["REDIS_URL"] ? { kind: "redis", url: env["REDIS_URL"] } : { kind: "memory" },
  source: { store: { databaseUrl: env["DATABASE_URL"] || undefined, dataDir: env["GATEHOUSE_DATA_DIR"] || undefined, domain: env["GATEHOUSE_DOMAIN"] || undefined } },
  auth,
});
await server.start();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void server.stop().finally(() => process.exit(0)));
}
