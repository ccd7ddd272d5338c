import type { ServiceDefinition, UntypedServiceImplementation } from "@grpc/grpc-js";
import type { EngineMetrics } from "./metrics.js";
import { DEFAULT_CHECK_CACHE_LIMITS, type Model } from "@gatehouse/evaluator";
import type { Logger } from "@gatehouse/telemetry";
import { EngineError } from "./errors.js";
import type { AuthnConfig } from "./grpc/authn.js";
import type { Reporters } from "./commands/write-policy.js";
import type { Store, StoreConfig } from "@gatehouse/store";
import type { CheckpointStore } from "./graph/checkpoint.js";
import type { ConnectionLimits } from "./grpc/listener.js";
import type { ThreadRole } from "./threads/worker-source.js";

export type { AuthnConfig };

export interface TlsConfig {
  /** PEM certificate chain and private key. */
  cert: string | Buffer;
  key: string | Buffer;
}

export interface EngineConfig {
  host?: string;
  /** gRPC port (default 9091; 0 picks a free one). */
  port?: number;
  /** Prometheus text on `GET /metrics` (plus `/livez`, `/readyz`); default 9092, 0 picks a free one. */
  metricsPort?: number;
  /** `<domain>` of principal ids (default "redhat"). */
  domain?: string;
  /** The authorization schema: a compiled model, zed text, or Gatehouse's own schema for an environment. */
  model?: Model;
  schemaText?: string;
  environment?: "stage" | "prod";
  /** A role-configuration directory (`configs/<env>` of an rbac-config checkout); its schema is used. */
  roleConfigDir?: string;
  /** The store relationships come from: an open one (left open by stop()), or settings to open one. */
  store?: Store;
  storeConfig?: StoreConfig;
  authn?: AuthnConfig;
  /**
   * With authn oidc: the callers that may ReportResource / DeleteResource, by client id (or sub),
   * with the resource types and tenants each may write. None → every write is refused.
   * Unauthenticated mode admits every write (local use).
   */
  reporters?: Reporters;
  /**
   * The HTTP/JSON interface (on metricsPort). `trustIdentityHeader`: with authn oidc, a request
   * without a bearer token may name its caller by x-rh-identity (behind a gateway that sets it, as
   * upstream's HTTP authenticator chain accepts); the gRPC port never trusts the header in oidc mode.
   */
  http?: { trustIdentityHeader?: boolean };
  /** TLS for the gRPC port; without it the port speaks plaintext HTTP/2 (h2c with prior knowledge). */
  tls?: TlsConfig;
  freshnessTimeoutMs?: number;
  list?: { defaultLimit?: number; maxLimit?: number };
  /** How long stop() lets in-flight calls and streams finish before cancelling them. */
  shutdownTimeoutMs?: number;
  /**
   * Bounds on server streams: concurrent streams per HTTP/2 connection (default 100), open streams
   * across the engine (default 1000; more are RESOURCE_EXHAUSTED), and how long a stream whose
   * client reads nothing is kept before it is reset (default 30 s).
   */
  streams?: { maxPerConnection?: number; maxActive?: number; idleTimeoutMs?: number };
  /**
   * Bounds on connections to the gRPC port (the metrics port takes `max`, `idleTimeoutMs` and
   * `headersTimeoutMs` too): concurrent connections (default 10000; at the cap the source holding
   * the most gives way), how long a connection with no call in progress is kept (default 120 s),
   * how long a header block (the TLS handshake and preface first) may take to arrive (default 20 s),
   * and how long a unary or server-streaming call may take to receive its request, or its client to
   * take a written answer (default 60 s; then DEADLINE_EXCEEDED, or the stream is reset).
   */
  connections?: Partial<ConnectionLimits>;
  logger?: Logger;
  /** Where the engine records its metrics (default: a new registry; the telemetry benchmark passes one without call metrics). */
  metrics?: EngineMetrics;
  /**
   * Graph checkpoints shared by the replicas: start from the newest usable one and replay the change
   * feed after it; write one every `intervalMs` (default 5 minutes; 0 = only read) once the graph moved on.
   * `"database"`: in the store's own database (table gh_checkpoints). `retention`: every
   * `intervalMs`, delete the change-feed rows more than `marginRevisions` before the oldest
   * checkpoint (docs/SCALING.md); absent or 0: never.
   */
  checkpoint?: { store: CheckpointStore | "database"; intervalMs?: number; retention?: { intervalMs: number; marginRevisions: number } };
  /**
   * Bytes the evaluator's check cache (per-subject closures and results kept between checks) may
   * hold per graph (default 8 MiB; 0 = none, every check starts cold). Bounded so memory does not
   * grow with the number of distinct subjects checked (docs/SCALING.md, "Memory under use: the check cache").
   */
  checkCacheBytes?: number;
  /**
   * The evaluation time of expiring grants, epoch ms (default `Date.now`). Tests pass their own
   * clock so an expiry is reached by moving it, not by waiting.
   */
  now?: () => number;
  /** More gRPC services on the same port (embedding; the benchmark's transport-floor handler). */
  extraServices?: Array<{ definition: ServiceDefinition; implementation: UntypedServiceImplementation }>;
  /**
   * The checks served on their HTTP/2 streams ahead of grpc-js (default true). False: grpc-js serves
   * every call (the parity test and the benchmark compare the two).
   */
  directChecks?: boolean;
  /**
   * Threads serving calls (default 1): each binds the gRPC and HTTP ports with SO_REUSEPORT (the
   * kernel spreads connections) and answers from one graph in shared memory; this thread loads it,
   * follows the change feed and posts each commit to the others (threads/, docs/SCALING.md).
   * 1 keeps the single-thread path as it is.
   */
  threads?: number;
  /** Set on the engine's other threads only (threads/worker.ts): where their graph comes from. */
  thread?: ThreadRole;
}

export interface ResolvedConfig {
  host: string;
  port: number;
  metricsPort: number;
  domain: string;
  authn: AuthnConfig;
  reporters: Reporters;
  tls: TlsConfig | undefined;
  freshnessTimeoutMs: number;
  listDefaultLimit: number;
  listMaxLimit: number;
  shutdownTimeoutMs: number;
  checkpointIntervalMs: number;
  checkCacheBytes: number;
  threads: number;
  streams: { maxPerConnection: number; maxActive: number; idleTimeoutMs: number };
  connections: ConnectionLimits;
}

const DOMAIN_PATTERN = /^[A-Za-z0-9._-]+$/;

function port(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < 0 || resolved > 65535) {
    throw new EngineError("invalid-config", `${name} must be an integer port between 0 and 65535, got ${String(value)}.`);
  }
  return resolved;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved <= 0) {
    throw new EngineError("invalid-config", `${name} must be a positive integer, got ${String(value)}.`);
  }
  return resolved;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < 0) throw new EngineError("invalid-config", `${name} must be a non-negative integer, got ${String(value)}.`);
  return resolved;
}

/** Validates the configuration up front so a bad value fails at start, not on the first call. */
export function resolveConfig(config: EngineConfig): ResolvedConfig {
  const domain = config.domain ?? "redhat";
  if (!DOMAIN_PATTERN.test(domain)) throw new EngineError("invalid-config", `domain '${domain}' is not a valid principal domain.`);
  const authn = config.authn ?? { mode: "unauthenticated" };
  if (authn.mode === "oidc" && !authn.serverUrl) throw new EngineError("invalid-config", "authn.oidc needs serverUrl.");
  if (authn.mode === "oidc" && !authn.clientId && !authn.skipClientIdCheck) {
    throw new EngineError("invalid-config", "authn.oidc needs clientId unless skipClientIdCheck is set.");
  }
  const listMaxLimit = positive(config.list?.maxLimit, 1000, "list.maxLimit");
  const listDefaultLimit = positive(config.list?.defaultLimit, Math.min(1000, listMaxLimit), "list.defaultLimit");
  if (listDefaultLimit > listMaxLimit) throw new EngineError("invalid-config", "list.defaultLimit exceeds list.maxLimit.");
  const sources = [config.model, config.schemaText].filter((v) => v !== undefined).length;
  if (sources > 1) throw new EngineError("invalid-config", "Give either model or schemaText, not both.");
  if (config.store && config.storeConfig) throw new EngineError("invalid-config", "Give either store or storeConfig, not both.");
  return {
    host: config.host ?? "0.0.0.0",
    port: port(config.port, 9091, "port"),
    metricsPort: port(config.metricsPort, 9092, "metricsPort"),
    domain,
    authn,
    reporters: config.reporters ?? new Map(),
    tls: config.tls,
    freshnessTimeoutMs: positive(config.freshnessTimeoutMs, 5000, "freshnessTimeoutMs"),
    listDefaultLimit,
    listMaxLimit,
    shutdownTimeoutMs: positive(config.shutdownTimeoutMs, 10_000, "shutdownTimeoutMs"),
    checkpointIntervalMs: nonNegative(config.checkpoint?.intervalMs, 300_000, "checkpoint.intervalMs"),
    checkCacheBytes: nonNegative(config.checkCacheBytes, DEFAULT_CHECK_CACHE_LIMITS.maxBytes, "checkCacheBytes"),
    threads: positive(config.threads, 1, "threads"),
    streams: {
      maxPerConnection: positive(config.streams?.maxPerConnection, 100, "streams.maxPerConnection"),
      maxActive: positive(config.streams?.maxActive, 1000, "streams.maxActive"),
      idleTimeoutMs: positive(config.streams?.idleTimeoutMs, 30_000, "streams.idleTimeoutMs"),
    },
    connections: {
      max: positive(config.connections?.max, 10_000, "connections.max"),
      idleTimeoutMs: positive(config.connections?.idleTimeoutMs, 120_000, "connections.idleTimeoutMs"),
      headersTimeoutMs: positive(config.connections?.headersTimeoutMs, 20_000, "connections.headersTimeoutMs"),
      requestTimeoutMs: positive(config.connections?.requestTimeoutMs, 60_000, "connections.requestTimeoutMs"),
    },
  };
}
