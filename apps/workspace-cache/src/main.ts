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

const server = buildServer({
  port: env["PORT"] ? Number(env["PORT"]) : 8001,
  cache: env["REDIS_URL"] ? { kind: "redis", url: env["REDIS_URL"] } : { kind: "memory" },
  source: { store: { databaseUrl: env["DATABASE_URL"] || undefined, dataDir: env["GATEHOUSE_DATA_DIR"] || undefined, domain: env["GATEHOUSE_DOMAIN"] || undefined } },
  auth,
});
await server.start();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void server.stop().finally(() => process.exit(0)));
}
