import { setting } from "./schema.js";

// Variables several apps read, declared once so they mean the same everywhere.

/** Where the data lives and whose it is. */
export const storeSettings = {
  DATABASE_URL: setting.url("PostgreSQL connection string (`postgres://user@host:5432/db`)", { protocols: ["postgres", "postgresql"], unset: "embedded PGlite", secret: true }),
  GATEHOUSE_DATA_DIR: setting.string("PGlite data directory", { unset: "in-memory PGlite" }),
  GATEHOUSE_DOMAIN: setting.string("`<domain>` in tenant (`<domain>/<org_id>`) and principal (`<domain>/<user_id>`) ids", { default: "redhat" }),
  GATEHOUSE_ENV: setting.oneOf("role configuration environment", ["stage", "prod"], "stage"),
};

/**
 * Database migrations at start. A deployment that runs them once per release, before the new pods
 * (infra/'s migrations Job), turns this off so no pod changes the schema the old ones still use.
 */
export const migrationSettings = {
  GATEHOUSE_MIGRATE_ON_START: setting.bool(
    "apply missing database migrations at start; false: apply none and refuse to start while any is missing (run `node dist/migrate.js` of the management API once per release first)",
    true,
  ),
};

/** Change-feed retention, run by the engines that know the graph checkpoints (docs/SCALING.md). */
export const feedRetentionSettings = {
  GATEHOUSE_FEED_RETENTION_INTERVAL_SECONDS: setting.int("delete change-feed rows no graph checkpoint needs this often (needs checkpoints; 0 = never)", { default: 600, min: 0 }),
  GATEHOUSE_FEED_RETENTION_MARGIN: setting.int("changes kept before the oldest graph checkpoint", { default: 10_000, min: 0 }),
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
/**
 * Read by the launcher of a process holding a graph (the engine, `gatehouse start`) before anything
 * else (`relaunchWithHugePages`): glibc reads GLIBC_TUNABLES only at process start.
 */
export const hugePagesSettings = {
  GATEHOUSE_HUGE_PAGES: setting.bool(
    "on Linux, when GLIBC_TUNABLES names no glibc.malloc.hugetlb value, restart the process once at start with glibc.malloc.hugetlb=1 added (huge pages for the graph's large arrays; glibc reads it only at process start)",
    true,
  ),
};

export const processSettings = {
  LOG_LEVEL: setting.oneOf("pino log level", LOG_LEVELS, "info"),
  SHUTDOWN_TIMEOUT_MS: setting.int("on SIGTERM, how long requests and streams in flight may take to finish before they are cut off", { default: 10_000, min: 0 }),
};

const TRACES_EXPORTERS = ["otlp", "console", "none"] as const;
/** The OpenTelemetry spec's sampler names (OTEL_TRACES_SAMPLER). */
const TRACES_SAMPLERS = ["parentbased_traceidratio", "parentbased_always_on", "parentbased_always_off", "traceidratio", "always_on", "always_off"] as const;
/** The defaults are @gatehouse/telemetry's (`DEFAULT_SAMPLING`), which applies them when these are unset. */
const SAMPLER_DEFAULT_TEXT = "parentbased_traceidratio";
const SAMPLER_ARG_DEFAULT_TEXT = "0.01";

/**
 * OpenTelemetry tracing: the standard OTEL_* variables (the SDK reads the rest of its own, e.g.
 * OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES). Nothing set: no tracing.
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
  OTEL_TRACES_SAMPLER: setting.custom<(typeof TRACES_SAMPLERS)[number] | undefined>(
    `which calls are traced (${TRACES_SAMPLERS.join(" | ")}): \`parentbased_*\` follow the caller's sampled flag when a \`traceparent\` arrives, the rest (and they, for calls without one) decide by themselves`,
    undefined,
    SAMPLER_DEFAULT_TEXT,
    (v) => {
      if (!(TRACES_SAMPLERS as readonly string[]).includes(v)) throw new Error(`must be one of ${TRACES_SAMPLERS.join(", ")}`);
      return v as (typeof TRACES_SAMPLERS)[number];
    },
  ),
  OTEL_TRACES_SAMPLER_ARG: setting.custom<number | undefined>("share of traces started here for the `*traceidratio` samplers, 0 to 1", undefined, SAMPLER_ARG_DEFAULT_TEXT, (v) => {
    const ratio = Number(v);
    if (v.trim() === "" || !Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new Error("must be a number from 0 to 1");
    return ratio;
  }),
};

/** Bearer-token verification of the HTTP apps (OIDC discovery + JWKS). */
export const oidcSettings = {
  OIDC_ISSUER_URL: setting.url("issuer whose JWKS (found by OIDC discovery) verifies bearer tokens", { protocols: ["https", "http"], unset: "bearer tokens refused" }),
  OIDC_AUDIENCE: setting.string("required `aud` of bearer tokens", { unset: "not checked" }),
  OIDC_CLIENT_ID: setting.string("tokens must be issued to this client (`azp`, `client_id` or `aud`)", { unset: "not checked" }),
  OIDC_SKIP_CLIENT_ID_CHECK: setting.bool("skip the client id check", false),
  OIDC_INSECURE: setting.bool("allow a plain-http issuer (local development only)", false),
};

/**
 * Bounds of the HTTP apps' servers (management API, workspace-cache): without them idle sockets pile
 * up until file descriptors run out. Node requires the headers timeout ≤ the request timeout.
 */
export const httpServerSettings = {
  HTTP_HEADERS_TIMEOUT_MS: setting.int("whole request headers must arrive within this, ms", { default: 20_000, min: 1 }),
  HTTP_REQUEST_TIMEOUT_MS: setting.int("a whole request (headers and body) must arrive within this, ms", { default: 60_000, min: 1 }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: setting.int("an idle keep-alive connection is closed after this, ms (keep it above load balancers' idle timeout)", { default: 65_000, min: 1 }),
  HTTP_IDLE_TIMEOUT_MS: setting.int("a socket with no traffic at all is closed after this, ms", { default: 120_000, min: 1 }),
  HTTP_MAX_CONNECTIONS: setting.int("concurrent connections; at the cap the source holding the most gives way its oldest idle one (a newcomer from it is refused when none is idle)", {
    default: 10_000,
    min: 1,
  }),
};

/** The HTTP server bounds from parsed `httpServerSettings` values. */
export function httpServerLimits(v: {
  HTTP_HEADERS_TIMEOUT_MS: number;
  HTTP_REQUEST_TIMEOUT_MS: number;
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number;
  HTTP_IDLE_TIMEOUT_MS: number;
  HTTP_MAX_CONNECTIONS: number;
}): { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; idleTimeoutMs: number; maxConnections: number } {
  return {
    headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    idleTimeoutMs: v.HTTP_IDLE_TIMEOUT_MS,
    maxConnections: v.HTTP_MAX_CONNECTIONS,
  };
}
