import { setting } from "./schema.js";

// Variables several apps read, declared once so they mean the same everywhere.

/** Where the data lives and whose it is. */
export const storeSettings = {
  DATABASE_URL: setting.url("PostgreSQL connection string (`postgres://user@host:5432/db`)", { protocols: ["postgres", "postgresql"], unset: "embedded PGlite", secret: true }),
  GATEHOUSE_DATA_DIR: setting.string("PGlite data directory", { unset: "in-memory PGlite" }),
  GATEHOUSE_DOMAIN: setting.string("`<domain>` in tenant (`<domain>/<org_id>`) and principal (`<domain>/<user_id>`) ids", { default: "redhat" }),
  GATEHOUSE_ENV: setting.oneOf("role configuration environment", ["stage", "prod"], "stage"),
};

/** The role-configuration directory the services run on (management API, engine, `start`). */
export const roleConfigSettings = {
  GATEHOUSE_ROLE_CONFIG: setting.string(
    "a role-configuration directory in the rbac-config layout (`<checkout>/configs/stage`): its schema, permissions and roles are used; `start` then seeds no demo organisation unless `GATEHOUSE_SEED_DEMO=true`",
    { unset: "the built-in `GATEHOUSE_ENV` configuration" },
  ),
};

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** Logging and lifecycle. */
export const processSettings = {
  LOG_LEVEL: setting.oneOf("pino log level", LOG_LEVELS, "info"),
  SHUTDOWN_TIMEOUT_MS: setting.int("on SIGTERM, how long requests and streams in flight may take to finish before they are cut off", { default: 10_000, min: 0 }),
};

const TRACES_EXPORTERS = ["otlp", "console", "none"] as const;

/**
 * OpenTelemetry tracing: the standard OTEL_* variables (the SDK reads the rest of its own, e.g.
 * OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER, OTEL_RESOURCE_ATTRIBUTES). Nothing set: no tracing.
 */
export const tracingSettings = {
  OTEL_SDK_DISABLED: setting.bool("turn tracing off whatever else is set", false),
  OTEL_TRACES_EXPORTER: setting.custom<(typeof TRACES_EXPORTERS)[number] | undefined>(
    `where spans go (${TRACES_EXPORTERS.join(" | ")}); unset: \`otlp\` when an OTLP endpoint is set, otherwise none`,
    undefined,
    undefined,
    (v) => {
      if (!(TRACES_EXPORTERS as readonly string[]).includes(v)) throw new Error(`must be one of ${TRACES_EXPORTERS.join(", ")}`);
      return v as (typeof TRACES_EXPORTERS)[number];
    },
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: setting.url("OTLP/HTTP (protobuf) collector base URL; spans go to `<url>/v1/traces`", { protocols: ["http", "https"], unset: "no export" }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: setting.url("full OTLP/HTTP URL for spans (overrides the endpoint above)", { protocols: ["http", "https"], unset: "from OTEL_EXPORTER_OTLP_ENDPOINT" }),
  OTEL_SERVICE_NAME: setting.string("`service.name` of exported spans", { unset: "the app's name" }),
};

/** Bearer-token verification of the HTTP apps (OIDC discovery + JWKS). */
export const oidcSettings = {
  OIDC_ISSUER_URL: setting.url("issuer whose JWKS (found by OIDC discovery) verifies bearer tokens", { protocols: ["https", "http"], unset: "bearer tokens refused" }),
  OIDC_AUDIENCE: setting.string("required `aud` of bearer tokens", { unset: "not checked" }),
  OIDC_CLIENT_ID: setting.string("tokens must be issued to this client (`azp`, `client_id` or `aud`)", { unset: "not checked" }),
  OIDC_SKIP_CLIENT_ID_CHECK: setting.bool("skip the client id check", false),
  OIDC_INSECURE: setting.bool("allow a plain-http issuer (local development only)", false),
};
