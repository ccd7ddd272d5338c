// The engine's environment variables: one zod schema (see @gatehouse/config), read by main.ts and
// rendered into the README table and .env.example.
import { defineConfig, feedRetentionSettings, hugePagesSettings, migrationSettings, processSettings, roleConfigSettings, setting, storeSettings, tracingSettings } from "@gatehouse/config";
import { parseReporters, type Reporters } from "./commands/write-policy.js";

export const engineSettings = defineConfig("authz-engine", {
  ...storeSettings,
  ...migrationSettings,
  DATABASE_READ_URL: setting.url("a read replica of DATABASE_URL: graph snapshots and database checkpoints are read there, the change feed is followed on the primary", {
    protocols: ["postgres", "postgresql"],
    unset: "everything on DATABASE_URL",
    secret: true,
  }),
  ...roleConfigSettings,
  AUTHZ_GRPC_PORT: setting.port("gRPC port", 9091),
  AUTHZ_METRICS_PORT: setting.port("HTTP port: inventory-api's HTTP/JSON interface under `/api/kessel/` (browser access checks), `/metrics`, `/livez`, `/readyz`", 9092),
  AUTHN_MODE: setting.custom<"unauthenticated" | "oidc" | undefined>(
    "`unauthenticated` (also `none`, as infra/ writes it) or `oidc` (bearer JWT in `authorization` metadata verified against AUTHN_OIDC_SERVER_URL's JWKS); unset: `oidc` when AUTHN_OIDC_SERVER_URL is set",
    undefined,
    undefined,
    (value) => {
      if (value === "none") return "unauthenticated";
      if (value !== "unauthenticated" && value !== "oidc") throw new Error("must be one of unauthenticated, none, oidc");
      return value;
    },
  ),
  AUTHN_OIDC_SERVER_URL: setting.url("issuer of the bearer tokens (OIDC discovery)", { protocols: ["https", "http"], unset: "unauthenticated (local)" }),
  AUTHN_OIDC_CLIENT_ID: setting.string("tokens must be issued to this client", { unset: "required unless the check is skipped" }),
  AUTHN_OIDC_SKIP_CLIENT_ID_CHECK: setting.bool("skip the client id check", false),
  AUTHN_OIDC_INSECURE_CLIENT: setting.bool("allow a plain-http issuer (local development only)", false),
  AUTHZ_HTTP_TRUST_IDENTITY_HEADER: setting.bool(
    "with AUTHN_MODE=oidc, the HTTP/JSON interface accepts `x-rh-identity` from requests without a bearer token (only behind a gateway that sets it; the gRPC port never does)",
    false,
  ),
  AUTHZ_REPORTERS: setting.custom<Reporters>(
    'JSON `{"<client id or sub>": {"resource_types": ["hbi/host"] | "*", "allow_any_org": false}}`: who may ReportResource / DeleteResource with AUTHN_MODE=oidc (none registered: every write refused)',
    new Map(),
    undefined,
    (value) => parseReporters(value),
  ),
  AUTHZ_MAX_STREAMS_PER_CONNECTION: setting.int("concurrent streams per HTTP/2 connection", { default: 100, min: 1 }),
  AUTHZ_MAX_ACTIVE_STREAMS: setting.int("open server streams across the engine; more are RESOURCE_EXHAUSTED", { default: 1000, min: 1 }),
  AUTHZ_STREAM_IDLE_TIMEOUT_MS: setting.int("a server stream whose client reads nothing for this long is reset, ms", { default: 30_000, min: 1 }),
  AUTHZ_MAX_CONNECTIONS: setting.int("concurrent connections on the gRPC port (and on the metrics port); at the cap the source holding the most gives way its oldest idle one", {
    default: 10_000,
    min: 1,
  }),
  AUTHZ_HEADERS_TIMEOUT_MS: setting.int("a header block (the TLS handshake and HTTP/2 preface first) must arrive within this, ms, or its connection is closed; also the metrics port's", {
    default: 20_000,
    min: 1,
  }),
  AUTHZ_CONNECTION_IDLE_TIMEOUT_MS: setting.int("a connection with no call in progress (one that never sends a byte included) is closed after this, ms; also the metrics port's idle timeout", {
    default: 120_000,
    min: 1,
  }),
  AUTHZ_REQUEST_TIMEOUT_MS: setting.int(
    "a unary or server-streaming call whose request has not fully arrived within this ends DEADLINE_EXCEEDED (and an answer its client does not take is reset), ms",
    { default: 60_000, min: 1 },
  ),
  AUTHZ_TLS_CERT_FILE: setting.string("PEM certificate chain for TLS on the gRPC port (with AUTHZ_TLS_KEY_FILE)", { unset: "plaintext h2c" }),
  AUTHZ_TLS_KEY_FILE: setting.string("PEM private key for TLS on the gRPC port (with AUTHZ_TLS_CERT_FILE)", { unset: "plaintext h2c" }),
  AUTHZ_CHECKPOINT_DIR: setting.string("directory (a volume shared by the replicas) of graph checkpoints: start from the newest, then replay the change feed", {
    unset: "every start reads the whole snapshot",
  }),
  AUTHZ_CHECKPOINT_IN_DATABASE: setting.bool("keep graph checkpoints in the database (table gh_checkpoints) instead of AUTHZ_CHECKPOINT_DIR", false),
  AUTHZ_CHECK_CACHE_BYTES: setting.int("bytes the evaluator's check cache (closures and results kept per subject between checks) may hold; bounds memory under distinct checks (0 = no cache)", {
    default: 8 * 2 ** 20,
    min: 0,
  }),
  AUTHZ_THREADS: setting.int("threads serving calls from one graph in shared memory, each on the same ports (SO_REUSEPORT); 1 = one thread, as before", {
    min: 1,
    max: 256,
    unset: "the cores the process may use (os.availableParallelism())",
  }),
  AUTHZ_CHECKPOINT_INTERVAL_SECONDS: setting.int("write a graph checkpoint this often when the graph changed (0 = only read them)", { default: 300, min: 0 }),
  ...feedRetentionSettings,
  ...hugePagesSettings,
  ...processSettings,
  ...tracingSettings,
});
