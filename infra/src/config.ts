// Typed stack configuration. Every problem in a stack's config is reported at once, each naming the
// key to set, so a broken `Pulumi.<stack>.yaml` is fixed in one round trip instead of one per key.
import * as pulumi from "@pulumi/pulumi";

export const NAMESPACE = "gatehouse";
export const SERVICE_NAMES = ["management-api", "authz-engine", "workspace-cache"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface ResourceSpec {
  requests: { cpu: string; memory: string };
  limits: { cpu: string; memory: string };
}

export interface ServiceSettings {
  /** Floor of the HorizontalPodAutoscaler (the Deployment leaves `replicas` to it). */
  replicas: number;
  maxReplicas: number;
  /** PodDisruptionBudget: pods that must stay up during voluntary disruptions (drains, upgrades). */
  minAvailable: number;
  imageTag: string;
  resources: ResourceSpec;
}

export interface SystemUser {
  admin: boolean;
  is_service_account: boolean;
  allow_any_org: boolean;
}

export interface Reporter {
  resource_types: string[] | "*";
  allow_any_org: boolean;
}

export interface AuthnConfig {
  mode: "oidc" | "none";
  oidcServerUrl?: string;
  clientId?: string;
  skipClientIdCheck: boolean;
  insecureClient: boolean;
}

/** The OpenTelemetry sampler names the services accept (OTEL_TRACES_SAMPLER). */
export const TRACES_SAMPLERS = ["parentbased_traceidratio", "parentbased_always_on", "parentbased_always_off", "traceidratio", "always_on", "always_off"] as const;

/** Tracing of every service: standard OTEL_* variables (exporting only when an endpoint is set). */
export interface TracingConfig {
  /** OTLP/HTTP collector base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); absent = no spans exported. */
  otlpEndpoint?: string;
  sampler: (typeof TRACES_SAMPLERS)[number];
  /** Share of new traces sampled by the `*traceidratio` samplers, 0 to 1. */
  samplerRatio: number;
}

/** The services' own default: follow the caller, 1 % of new traces (within 5 % of server CPU per Check). */
export const DEFAULT_TRACING: TracingConfig = { sampler: "parentbased_traceidratio", samplerRatio: 0.01 };

/** How users reach the management API and console from outside the cluster. */
export interface ExposeConfig {
  /** `ingress`: a networking.k8s.io Ingress; `route`: an OpenShift Route (edge TLS). */
  via: "ingress" | "route";
  host: string;
  /** Ingress only: the IngressClass; absent = the cluster's default class. */
  ingressClassName?: string;
  /** A Secret with the certificate (`tls.crt`/`tls.key`); absent = the router's or controller's default certificate. */
  tlsSecretName?: string;
}

/** Where the engines keep graph checkpoints, so a new replica starts from one instead of the whole snapshot. */
export type CheckpointConfig = { store: "database"; intervalSeconds: number } | { store: "volume"; claimName: string; intervalSeconds: number };

/** A value held in an external secret manager, as an external-secrets.io `remoteRef`. */
export interface RemoteRef {
  key: string;
  property?: string;
}

/** The connections Secret made by the External Secrets Operator from a secret store, instead of values in Pulumi config. */
export interface ExternalSecretsConfig {
  storeKind: "ClusterSecretStore" | "SecretStore";
  storeName: string;
  refreshInterval: string;
  databaseUrl: RemoteRef;
  redisUrl: RemoteRef;
  databaseReadUrl?: RemoteRef;
  authzClientSecret?: RemoteRef;
}

export interface GatehouseConfig {
  stack: string;
  environment: "stage" | "prod";
  namespace: string;
  /** False when the platform team provides the namespace (e.g. an OpenShift project). */
  createNamespace: boolean;
  domain: string;
  logLevel: string;
  imageRegistry: string;
  /** Image digests (`sha256:…`) per service, written by scripts/build-images.sh; required in prod. */
  imageDigests: Partial<Record<ServiceName, string>>;
  services: Record<ServiceName, ServiceSettings>;
  /** Ingress or Route for the management API and console; absent = in-cluster only. */
  expose?: ExposeConfig;
  /** ServiceMonitors, the PrometheusRule and the dashboard ConfigMap (prometheus-operator CRDs). */
  monitoring: boolean;
  checkpoints: CheckpointConfig;
  /** The graph one engine replica is sized for (`engine.relationships`): memory and start budget follow (`engineSizing`). */
  engine: { relationships: number };
  systemUsers: Record<string, SystemUser>;
  trustIdentityHeader: boolean;
  /** Bearer-token verification for the management API and workspace cache. */
  oidc?: { issuerUrl: string; audience?: string };
  /** The authz-engine's authn block. */
  authn: AuthnConfig;
  tracing: TracingConfig;
  /** Who may ReportResource / DeleteResource (`AUTHZ_REPORTERS`), keyed by token client id or subject. */
  reporters: Record<string, Reporter>;
  ingressNamespace: string;
  monitoringNamespace: string;
  /** Name of the Kubernetes Secret holding the connections when it is not created by this program. */
  secretName: string;
  /** Connection strings as Pulumi secrets (stage only; absent when rendering YAML or with externalSecrets). */
  connections?: { databaseUrl: pulumi.Output<string>; redisUrl: pulumi.Output<string>; databaseReadUrl?: pulumi.Output<string> };
  /** The connections from a secret store through an ExternalSecret (required in prod). */
  externalSecrets?: ExternalSecretsConfig;
  /** A client application's credentials, exported as `AUTHZ_AUTH_*` stack outputs (the secret stays secret). */
  authzClient?: { clientId: string; clientSecret?: pulumi.Output<string> };
  renderYamlTo?: string;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly stackName: string,
    readonly problems: string[],
  ) {
    super(`Invalid configuration for stack '${stackName}' (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

export const DEFAULT_RESOURCES: Record<ServiceName, ResourceSpec> = {
  "management-api": { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "512Mi" } },
  // The engine holds the whole relationship graph in memory: its memory comes from `engineSizing`
  // (the stack's `engine.relationships` and the figures measured at that size), not from here.
  // CPU: whole cores, requested as limited, one serving thread per core (AUTHZ_THREADS follows the
  // limit, `engineThreads`): threads share one graph, so cores are added to a replica before
  // replicas are added (docs/SCALING.md, "Threads and replicas").
  "authz-engine": { requests: { cpu: "2", memory: "6Gi" }, limits: { cpu: "2", memory: "6Gi" } },
  "workspace-cache": { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
};

/** One engine replica measured through Postgres at a size (docs/SCALING.md, `bench:scale`). */
export interface EngineMeasurement {
  relationships: number;
  /** Peak RSS of a start from the whole snapshot (the bulk load's high point). */
  snapshotPeakRssBytes: number;
  /** The graph held after the load (V8 heap + array buffers). */
  graphBytes: number;
  /** Wall time of a start from the whole snapshot, and the load average it was measured at. */
  snapshotStartSeconds: number;
  loadAverage: number;
}

/**
 * What one replica was measured to need, per size (docs/SCALING.md; a test checks the figures are
 * the document's). 10M: issue 20's quiet-machine start and issue 33's bulk-load memory; 100M:
 * issue 33's run, on a 2-core machine shared with other work (its wall time is mostly waiting for
 * a core, so a start budget taken from it is generous).
 */
export const ENGINE_MEASURED: readonly EngineMeasurement[] = [
  { relationships: 10_000_000, snapshotPeakRssBytes: 1154 * 2 ** 20, graphBytes: 507.3 * 2 ** 20, snapshotStartSeconds: 115, loadAverage: 6.7 },
  { relationships: 100_000_000, snapshotPeakRssBytes: 7870.2 * 2 ** 20, graphBytes: 4825.6 * 2 ** 20, snapshotStartSeconds: 1121, loadAverage: 27 },
];

/** Headroom over the measured need: the check cache (8 MiB), gRPC buffers, garbage between collections. */
export const ENGINE_MEMORY_HEADROOM = 1.25;

export interface EngineSizing {
  /** The measurement the sizing comes from: the smallest measured size at or above the stack's. */
  measured: EngineMeasurement;
  /** Container memory, requested and limited alike (the node reserves it). */
  memory: string;
  /** How long a start may take before liveness applies, and the rollout's deadline is twice that plus a minute. */
  startBudgetSeconds: number;
}

/**
 * An engine replica's memory and start budget for a graph of `relationships`, from the smallest
 * measured size at or above it. Memory: a reload (feed truncated, schema change) loads a new graph
 * while the old one still serves, so the need is the peak of a snapshot start plus a second graph,
 * times the headroom, in whole GiB. Start budget: twice a start from the whole snapshot (the
 * fallback when no checkpoint is usable). Undefined past the largest measured size (shard by
 * tenant instead, docs/SCALING.md).
 */
export function engineSizing(relationships: number): EngineSizing | undefined {
  const measured = ENGINE_MEASURED.find((m) => m.relationships >= relationships);
  if (!measured) return undefined;
  const gib = Math.ceil(((measured.snapshotPeakRssBytes + measured.graphBytes) * ENGINE_MEMORY_HEADROOM) / 2 ** 30);
  return { measured, memory: `${gib}Gi`, startBudgetSeconds: 2 * measured.snapshotStartSeconds };
}

/** A service's resources before the stack's overrides: the engine's memory is sized for `relationships`. */
export function defaultResources(name: ServiceName, relationships: number): ResourceSpec {
  const base = DEFAULT_RESOURCES[name];
  const sized = name === "authz-engine" ? engineSizing(relationships) : undefined;
  if (!sized) return base;
  return { requests: { ...base.requests, memory: sized.memory }, limits: { ...base.limits, memory: sized.memory } };
}

const UNIT_BYTES: Record<string, number> = { "": 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/** Bytes of a Kubernetes quantity such as `6Gi` or `4G`; NaN if it is not one. */
/**
 * The engine's serving threads for a CPU limit: its whole cores, at least one ("2" → 2, "1500m" → 1).
 * Node's own count (os.availableParallelism) sees the node's cores, not the container's quota.
 */
export function engineThreads(cpuLimit: string): number {
  const match = /^([0-9.]+)(m?)$/.exec(cpuLimit);
  const cores = match ? Number(match[1]) / (match[2] === "m" ? 1000 : 1) : 1;
  return Math.max(1, Math.floor(cores));
}

export function quantityBytes(quantity: string): number {
  const match = /^([0-9.]+)([a-zA-Z]*)$/.exec(quantity);
  return match ? Number(match[1]) * (UNIT_BYTES[match[2] ?? ""] ?? Number.NaN) : Number.NaN;
}

/** Where a raw value comes from: plain keys, JSON objects and secrets, as Pulumi config exposes them. */
export interface ConfigSource {
  get(key: string): string | undefined;
  getObject(key: string): unknown;
  getSecret(key: string): pulumi.Output<string> | undefined;
}

export function pulumiConfigSource(config = new pulumi.Config(NAMESPACE)): ConfigSource {
  return {
    get: (key) => config.get(key),
    getObject: (key) => {
      try {
        return config.getObject<unknown>(key);
      } catch {
        throw new ConfigError(pulumi.getStack(), [`${NAMESPACE}:${key} is not valid JSON/YAML`]);
      }
    },
    getSecret: (key) => config.getSecret(key),
  };
}

export function loadConfig(source: ConfigSource = pulumiConfigSource(), stack = pulumi.getStack()): GatehouseConfig {
  return new Reader(source, stack).read();
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)+$/;
const DURATION = /^([0-9]+(s|m|h))+$/;

class Reader {
  private readonly problems: string[] = [];
  constructor(
    private readonly src: ConfigSource,
    private readonly stack: string,
  ) {}

  read(): GatehouseConfig {
    const renderYamlTo = this.src.get("renderYamlTo") || undefined;
    const environment = this.requireString("environment");
    if (environment !== undefined && environment !== "stage" && environment !== "prod") {
      this.problem(`${NAMESPACE}:environment must be 'stage' or 'prod', got '${environment}'`);
    }
    const namespace = this.src.get("namespace") ?? `gatehouse-${this.stack}`;
    if (!DNS_LABEL.test(namespace)) this.problem(`${NAMESPACE}:namespace '${namespace}' is not a valid Kubernetes namespace name`);
    const imageTag = this.requireString("imageTag");
    const imageRegistry = this.requireString("imageRegistry");
    const domain = this.requireString("domain");
    const engine = this.engine();
    const cfg = {
      stack: this.stack,
      environment: environment as GatehouseConfig["environment"],
      namespace,
      createNamespace: this.bool(this.src.get("createNamespace"), "createNamespace", true),
      domain: domain ?? "",
      logLevel: this.src.get("logLevel") ?? "info",
      imageRegistry: (imageRegistry ?? "").replace(/\/+$/, ""),
      imageDigests: this.imageDigests(environment === "prod"),
      engine,
      services: this.services(imageTag ?? "", engine),
      monitoring: this.bool(this.src.get("monitoring"), "monitoring", true),
      checkpoints: this.checkpoints(),
      systemUsers: this.systemUsers(),
      trustIdentityHeader: this.bool(this.src.get("trustIdentityHeader"), "trustIdentityHeader", false),
      authn: this.authn(),
      tracing: this.tracing(),
      reporters: this.reporters(),
      ingressNamespace: this.src.get("ingressNamespace") ?? "ingress-nginx",
      monitoringNamespace: this.src.get("monitoringNamespace") ?? "monitoring",
      secretName: this.src.get("secretName") ?? "gatehouse-connections",
      ...this.optional("oidc", this.oidc()),
      ...this.optional("expose", this.expose()),
      ...this.secrets(environment === "prod", renderYamlTo !== undefined),
      ...this.optional("authzClient", this.authzClient()),
      ...this.optional("renderYamlTo", renderYamlTo),
    } satisfies GatehouseConfig;
    // An unverified header next to token verification lets anyone who reaches the pods name any
    // identity; prod must rely on tokens alone.
    if (cfg.environment === "prod" && cfg.trustIdentityHeader && cfg.oidc) {
      this.problem(`${NAMESPACE}:trustIdentityHeader must be false in prod when ${NAMESPACE}:oidc is configured`);
    }
    if (this.problems.length > 0) throw new ConfigError(this.stack, this.problems);
    return cfg;
  }

  private optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
    return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
  }

  private problem(message: string): void {
    this.problems.push(message);
  }

  private requireString(key: string): string | undefined {
    const value = this.src.get(key);
    if (value === undefined || value.trim() === "") {
      this.problem(`${NAMESPACE}:${key} is required (set it in Pulumi.${this.stack}.yaml or with \`pulumi config set ${NAMESPACE}:${key} <value>\`)`);
      return undefined;
    }
    return value;
  }

  private requireSecret(key: string, hint: string): pulumi.Output<string> | undefined {
    const value = this.src.getSecret(key);
    if (value === undefined) {
      this.problem(`${NAMESPACE}:${key} is required as a secret: \`pulumi config set --secret ${NAMESPACE}:${key} ${hint}\``);
    }
    return value;
  }

  private bool(raw: unknown, key: string, fallback: boolean): boolean {
    if (raw === undefined) return fallback;
    if (typeof raw === "boolean") return raw;
    if (raw === "true" || raw === "false") return raw === "true";
    this.problem(`${NAMESPACE}:${key} must be true or false, got '${String(raw)}'`);
    return fallback;
  }

  private int(raw: unknown, key: string, min: number): number {
    const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    if (raw === undefined) {
      this.problem(`${NAMESPACE}:${key} is required (an integer ≥ ${min})`);
      return min;
    }
    if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
      this.problem(`${NAMESPACE}:${key} must be an integer ≥ ${min}, got '${String(raw)}'`);
      return min;
    }
    return value;
  }

  private engine(): { relationships: number } {
    const raw = this.src.getObject("engine");
    if (raw !== undefined && !isObj(raw)) this.problem(`${NAMESPACE}:engine must be an object {relationships}`);
    const e = isObj(raw) ? raw : {};
    const relationships = e["relationships"] === undefined ? ENGINE_MEASURED[0]!.relationships : this.int(e["relationships"], "engine.relationships", 1);
    const largest = ENGINE_MEASURED[ENGINE_MEASURED.length - 1]!.relationships;
    if (relationships > largest) {
      this.problem(`${NAMESPACE}:engine.relationships (${relationships}) is above the largest size one replica was measured at (${largest}): shard the engines by tenant (docs/SCALING.md)`);
    }
    return { relationships: Math.min(relationships, largest) };
  }

  private services(imageTag: string, engine: { relationships: number }): Record<ServiceName, ServiceSettings> {
    const raw = this.src.getObject("services");
    if (raw === undefined) this.problem(`${NAMESPACE}:services is required (replicas, maxReplicas and minAvailable for each of ${SERVICE_NAMES.join(", ")})`);
    else if (!isObj(raw)) this.problem(`${NAMESPACE}:services must be an object keyed by service name`);
    const all = isObj(raw) ? raw : {};
    for (const key of Object.keys(all)) {
      if (!(SERVICE_NAMES as readonly string[]).includes(key)) this.problem(`${NAMESPACE}:services.${key} is not a Gatehouse service (expected ${SERVICE_NAMES.join(", ")})`);
    }
    const out = {} as Record<ServiceName, ServiceSettings>;
    for (const name of SERVICE_NAMES) {
      const s = all[name];
      if (raw !== undefined && !isObj(s)) this.problem(`${NAMESPACE}:services.${name} is required`);
      out[name] = this.service(name, isObj(s) ? s : {}, imageTag, raw !== undefined && isObj(s), defaultResources(name, engine.relationships));
    }
    // Less memory than the measured need for the graph it is sized for: a reload or a start would be killed.
    const sized = engineSizing(engine.relationships);
    const limit = out["authz-engine"].resources.limits.memory;
    if (sized && QUANTITY.test(limit) && quantityBytes(limit) < quantityBytes(sized.memory)) {
      this.problem(
        `${NAMESPACE}:services.authz-engine.resources.limits.memory (${limit}) is below the ${sized.memory} measured to hold ${engine.relationships} relationships (engine.relationships; docs/SCALING.md)`,
      );
    }
    return out;
  }

  private service(name: ServiceName, s: Obj, imageTag: string, report: boolean, base: ResourceSpec): ServiceSettings {
    const key = `services.${name}`;
    const before = this.problems.length;
    const replicas = this.int(s["replicas"], `${key}.replicas`, 1);
    const maxReplicas = this.int(s["maxReplicas"], `${key}.maxReplicas`, 1);
    const minAvailable = this.int(s["minAvailable"], `${key}.minAvailable`, 0);
    if (!report) this.problems.length = before; // the missing block itself is already reported
    if (report && maxReplicas < replicas) this.problem(`${NAMESPACE}:${key}.maxReplicas (${maxReplicas}) must be ≥ replicas (${replicas})`);
    // A budget that keeps every replica up blocks node drains forever.
    if (report && minAvailable >= replicas) {
      this.problem(`${NAMESPACE}:${key}.minAvailable (${minAvailable}) must be below replicas (${replicas}), or node drains never finish`);
    }
    const tag = s["imageTag"] === undefined ? imageTag : String(s["imageTag"]);
    return { replicas, maxReplicas, minAvailable, imageTag: tag, resources: this.resources(name, s["resources"], base) };
  }

  private resources(name: ServiceName, raw: unknown, base: ResourceSpec): ResourceSpec {
    if (raw === undefined) return base;
    const r = isObj(raw) ? raw : {};
    const merged: ResourceSpec = {
      requests: { ...base.requests, ...(isObj(r["requests"]) ? (r["requests"] as Obj) : {}) } as ResourceSpec["requests"],
      limits: { ...base.limits, ...(isObj(r["limits"]) ? (r["limits"] as Obj) : {}) } as ResourceSpec["limits"],
    };
    for (const [kind, values] of Object.entries(merged)) {
      for (const [res, q] of Object.entries(values as Obj)) {
        if (typeof q !== "string" || !QUANTITY.test(q)) {
          this.problem(`${NAMESPACE}:services.${name}.resources.${kind}.${res} must be a Kubernetes quantity such as '500m' or '1Gi', got '${String(q)}'`);
        }
      }
    }
    return merged;
  }

  private systemUsers(): Record<string, SystemUser> {
    const raw = this.src.getObject("systemUsers");
    if (raw === undefined) return {};
    if (!isObj(raw)) {
      this.problem(`${NAMESPACE}:systemUsers must be an object keyed by token subject`);
      return {};
    }
    const out: Record<string, SystemUser> = {};
    for (const [sub, flags] of Object.entries(raw)) {
      const f = isObj(flags) ? flags : {};
      if (!isObj(flags)) this.problem(`${NAMESPACE}:systemUsers.${sub} must be an object {admin, is_service_account, allow_any_org}`);
      out[sub] = {
        admin: this.bool(f["admin"], `systemUsers.${sub}.admin`, false),
        is_service_account: this.bool(f["is_service_account"], `systemUsers.${sub}.is_service_account`, false),
        allow_any_org: this.bool(f["allow_any_org"], `systemUsers.${sub}.allow_any_org`, false),
      };
    }
    return out;
  }

  private reporters(): Record<string, Reporter> {
    const raw = this.src.getObject("reporters");
    if (raw === undefined) return {};
    if (!isObj(raw)) {
      this.problem(`${NAMESPACE}:reporters must be an object keyed by token client id or subject`);
      return {};
    }
    const out: Record<string, Reporter> = {};
    for (const [name, entry] of Object.entries(raw)) {
      const e = isObj(entry) ? entry : {};
      const types = e["resource_types"];
      const valid = types === "*" || (Array.isArray(types) && types.length > 0 && types.every((t) => typeof t === "string" && /^[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+$/.test(t)));
      if (!valid) this.problem(`${NAMESPACE}:reporters.${name}.resource_types must be "*" or a list of <reporter>/<type> names`);
      out[name] = { resource_types: valid ? (types as string[] | "*") : [], allow_any_org: this.bool(e["allow_any_org"], `reporters.${name}.allow_any_org`, false) };
    }
    return out;
  }

  private authn(): AuthnConfig {
    const raw = this.src.getObject("authn");
    if (raw === undefined) {
      this.problem(`${NAMESPACE}:authn is required (mode: oidc with oidcServerUrl and clientId, or mode: none)`);
      return { mode: "none", skipClientIdCheck: false, insecureClient: false };
    }
    const a = isObj(raw) ? raw : {};
    const mode = a["mode"] ?? "oidc";
    if (mode !== "oidc" && mode !== "none") this.problem(`${NAMESPACE}:authn.mode must be 'oidc' or 'none', got '${String(mode)}'`);
    const out: AuthnConfig = {
      mode: mode === "none" ? "none" : "oidc",
      skipClientIdCheck: this.bool(a["skipClientIdCheck"], "authn.skipClientIdCheck", false),
      insecureClient: this.bool(a["insecureClient"], "authn.insecureClient", false),
    };
    if (out.mode === "oidc") {
      const url = a["oidcServerUrl"];
      if (typeof url !== "string" || !/^https?:\/\//.test(url)) this.problem(`${NAMESPACE}:authn.oidcServerUrl is required when authn.mode is oidc (an http(s) URL)`);
      else out.oidcServerUrl = url;
      const clientId = a["clientId"];
      if (typeof clientId === "string" && clientId !== "") out.clientId = clientId;
      else if (!out.skipClientIdCheck) this.problem(`${NAMESPACE}:authn.clientId is required unless authn.skipClientIdCheck is true`);
    }
    if (this.environmentIsProd() && (out.mode === "none" || out.insecureClient)) {
      this.problem(`${NAMESPACE}:authn must use mode oidc with insecureClient false in prod`);
    }
    return out;
  }

  private environmentIsProd(): boolean {
    return this.src.get("environment") === "prod";
  }

  private oidc(): GatehouseConfig["oidc"] {
    const raw = this.src.getObject("oidc");
    if (raw === undefined) return undefined;
    const o = isObj(raw) ? raw : {};
    const issuerUrl = o["issuerUrl"];
    if (typeof issuerUrl !== "string" || !/^https?:\/\//.test(issuerUrl)) {
      this.problem(`${NAMESPACE}:oidc.issuerUrl is required when oidc is set (an http(s) URL)`);
      return undefined;
    }
    return typeof o["audience"] === "string" ? { issuerUrl, audience: o["audience"] } : { issuerUrl };
  }

  private tracing(): TracingConfig {
    const raw = this.src.getObject("tracing");
    if (raw === undefined) return DEFAULT_TRACING;
    if (!isObj(raw)) {
      this.problem(`${NAMESPACE}:tracing must be an object {otlpEndpoint, sampler, samplerRatio}`);
      return DEFAULT_TRACING;
    }
    const out: TracingConfig = { ...DEFAULT_TRACING };
    const endpoint = raw["otlpEndpoint"];
    if (endpoint !== undefined) {
      if (typeof endpoint !== "string" || !/^https?:\/\/[^\s]+$/.test(endpoint)) this.problem(`${NAMESPACE}:tracing.otlpEndpoint must be an http(s) URL (the OTLP/HTTP collector)`);
      else out.otlpEndpoint = endpoint;
    }
    const sampler = raw["sampler"];
    if (sampler !== undefined) {
      if (!(TRACES_SAMPLERS as readonly unknown[]).includes(sampler)) this.problem(`${NAMESPACE}:tracing.sampler must be one of ${TRACES_SAMPLERS.join(", ")}`);
      else out.sampler = sampler as TracingConfig["sampler"];
    }
    const ratio = typeof raw["samplerRatio"] === "string" ? Number(raw["samplerRatio"]) : raw["samplerRatio"];
    if (ratio !== undefined) {
      if (typeof ratio !== "number" || !Number.isFinite(ratio) || ratio < 0 || ratio > 1) this.problem(`${NAMESPACE}:tracing.samplerRatio must be a number from 0 to 1`);
      else out.samplerRatio = ratio;
    }
    return out;
  }

  private imageDigests(prod: boolean): GatehouseConfig["imageDigests"] {
    const raw = this.src.getObject("imageDigests");
    const all = isObj(raw) ? raw : {};
    if (raw !== undefined && !isObj(raw)) this.problem(`${NAMESPACE}:imageDigests must be an object keyed by service name`);
    const out: GatehouseConfig["imageDigests"] = {};
    for (const [key, digest] of Object.entries(all)) {
      if (!(SERVICE_NAMES as readonly string[]).includes(key)) this.problem(`${NAMESPACE}:imageDigests.${key} is not a Gatehouse service (expected ${SERVICE_NAMES.join(", ")})`);
      else if (typeof digest !== "string" || !DIGEST.test(digest)) this.problem(`${NAMESPACE}:imageDigests.${key} must be an image digest sha256:<64 hex digits>`);
      else out[key as ServiceName] = digest;
    }
    // A tag can be pushed again with other contents; prod runs exactly the images that were built.
    if (prod) {
      const missing = SERVICE_NAMES.filter((s) => !out[s] && !(s in all));
      if (missing.length > 0) {
        this.problem(`${NAMESPACE}:imageDigests.{${missing.join(",")}} is required in prod (a tag is mutable): run scripts/build-images.sh --push --stack ${this.stack}`);
      }
    }
    return out;
  }

  private expose(): ExposeConfig | undefined {
    const raw = this.src.getObject("expose");
    if (raw === undefined) return undefined;
    const e = isObj(raw) ? raw : {};
    const via = e["via"];
    const host = e["host"];
    if (via !== "ingress" && via !== "route") this.problem(`${NAMESPACE}:expose.via must be 'ingress' or 'route' (OpenShift), got '${String(via)}'`);
    if (typeof host !== "string" || !DNS_NAME.test(host)) this.problem(`${NAMESPACE}:expose.host must be a DNS name such as gatehouse.example.com`);
    const out: ExposeConfig = { via: via === "route" ? "route" : "ingress", host: typeof host === "string" ? host : "" };
    for (const key of ["ingressClassName", "tlsSecretName"] as const) {
      const value = e[key];
      if (value === undefined) continue;
      if (typeof value !== "string" || !DNS_LABEL.test(value)) this.problem(`${NAMESPACE}:expose.${key} must be a Kubernetes object name`);
      else out[key] = value;
    }
    if (out.ingressClassName && out.via === "route") this.problem(`${NAMESPACE}:expose.ingressClassName applies to via: ingress only`);
    return out;
  }

  private checkpoints(): CheckpointConfig {
    const raw = this.src.getObject("checkpoints");
    const c = isObj(raw) ? raw : {};
    if (raw !== undefined && !isObj(raw)) this.problem(`${NAMESPACE}:checkpoints must be an object {store, intervalSeconds, claimName}`);
    const intervalSeconds = c["intervalSeconds"] === undefined ? 300 : this.int(c["intervalSeconds"], "checkpoints.intervalSeconds", 0);
    const store = c["store"] ?? "database";
    if (store === "database") return { store, intervalSeconds };
    if (store !== "volume") {
      this.problem(`${NAMESPACE}:checkpoints.store must be 'database' (table gh_checkpoints) or 'volume' (a ReadWriteMany claim the replicas share)`);
      return { store: "database", intervalSeconds };
    }
    const claimName = c["claimName"];
    if (typeof claimName !== "string" || !DNS_LABEL.test(claimName)) {
      this.problem(`${NAMESPACE}:checkpoints.claimName is required with store: volume (a ReadWriteMany PersistentVolumeClaim)`);
      return { store: "volume", claimName: "", intervalSeconds };
    }
    return { store: "volume", claimName, intervalSeconds };
  }

  /** Connection strings: from a secret store (ExternalSecret), or as Pulumi secrets (not in prod, not when rendering). */
  private secrets(prod: boolean, rendering: boolean): Pick<GatehouseConfig, "connections" | "externalSecrets"> {
    const raw = this.src.getObject("externalSecrets");
    if (raw !== undefined) {
      for (const key of ["databaseUrl", "redisUrl", "databaseReadUrl", "authzClientSecret"]) {
        if (this.src.getSecret(key) !== undefined) this.problem(`${NAMESPACE}:${key} is set together with ${NAMESPACE}:externalSecrets: the connections come from the secret store, remove it`);
      }
      const external = this.externalSecrets(raw);
      return external ? { externalSecrets: external } : {};
    }
    if (prod) {
      this.problem(`${NAMESPACE}:externalSecrets is required in prod: the connection strings come from the secret store, never from values in the stack`);
      return {};
    }
    if (rendering) return {};
    const databaseUrl = this.requireSecret("databaseUrl", "postgres://user:password@host:5432/gatehouse");
    const redisUrl = this.requireSecret("redisUrl", "redis://:password@host:6379");
    const databaseReadUrl = this.src.getSecret("databaseReadUrl");
    if (!databaseUrl || !redisUrl) return {};
    return { connections: { databaseUrl, redisUrl, ...(databaseReadUrl ? { databaseReadUrl } : {}) } };
  }

  private externalSecrets(raw: unknown): ExternalSecretsConfig | undefined {
    const before = this.problems.length;
    const e = isObj(raw) ? raw : {};
    if (!isObj(raw)) this.problem(`${NAMESPACE}:externalSecrets must be an object {storeKind, storeName, refreshInterval, databaseUrl, redisUrl, ...}`);
    const storeKind = e["storeKind"] ?? "ClusterSecretStore";
    if (storeKind !== "ClusterSecretStore" && storeKind !== "SecretStore") this.problem(`${NAMESPACE}:externalSecrets.storeKind must be ClusterSecretStore or SecretStore`);
    const storeName = e["storeName"];
    if (typeof storeName !== "string" || !DNS_LABEL.test(storeName)) this.problem(`${NAMESPACE}:externalSecrets.storeName is required (the secret store's name)`);
    const refreshInterval = e["refreshInterval"] ?? "1h";
    if (typeof refreshInterval !== "string" || !DURATION.test(refreshInterval)) this.problem(`${NAMESPACE}:externalSecrets.refreshInterval must be a duration such as 1h or 15m`);
    const ref = (key: string, required: boolean): RemoteRef | undefined => {
      const r = e[key];
      if (r === undefined) {
        if (required) this.problem(`${NAMESPACE}:externalSecrets.${key} is required ({key, property}: where the secret store holds it)`);
        return undefined;
      }
      const o = isObj(r) ? r : {};
      if (typeof o["key"] !== "string" || o["key"] === "" || (o["property"] !== undefined && typeof o["property"] !== "string")) {
        this.problem(`${NAMESPACE}:externalSecrets.${key} must be {key, property?} naming the value in the secret store`);
        return undefined;
      }
      return o["property"] === undefined ? { key: o["key"] } : { key: o["key"], property: o["property"] as string };
    };
    const databaseUrl = ref("databaseUrl", true);
    const redisUrl = ref("redisUrl", true);
    const databaseReadUrl = ref("databaseReadUrl", false);
    const authzClientSecret = ref("authzClientSecret", false);
    if (this.problems.length > before || !databaseUrl || !redisUrl) return undefined;
    return {
      storeKind: storeKind as ExternalSecretsConfig["storeKind"],
      storeName: storeName as string,
      refreshInterval: refreshInterval as string,
      databaseUrl,
      redisUrl,
      ...(databaseReadUrl ? { databaseReadUrl } : {}),
      ...(authzClientSecret ? { authzClientSecret } : {}),
    };
  }

  private authzClient(): GatehouseConfig["authzClient"] {
    const clientId = this.src.get("authzClientId");
    const clientSecret = this.src.getSecret("authzClientSecret");
    if (clientId === undefined) {
      if (clientSecret !== undefined) this.problem(`${NAMESPACE}:authzClientSecret is set without ${NAMESPACE}:authzClientId`);
      return undefined;
    }
    return clientSecret ? { clientId, clientSecret } : { clientId };
  }
}
