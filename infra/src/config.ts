// Typed stack configuration, validated with zod like the apps' environment. Every problem in a stack's
// config is reported at once, each naming the key to set and what it expects, so a broken
// `Pulumi.<stack>.yaml` is fixed in one round trip instead of one per key.
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";

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

/**
 * What each serving thread past the first holds of its own (docs/SCALING.md, "Threads and replicas":
 * 130 MiB measured at 10M relationships after serving load: its V8 heap and code and what serving
 * adds; the graph itself is shared).
 */
export const ENGINE_THREAD_BYTES = 128 * 2 ** 20;

export interface EngineSizing {
  /** The measurement the sizing comes from: the smallest measured size at or above the stack's. */
  measured: EngineMeasurement;
  /** Container memory, requested and limited alike (the node reserves it). */
  memory: string;
  /** How long a start may take before liveness applies, and the rollout's deadline is twice that plus a minute. */
  startBudgetSeconds: number;
}

/**
 * An engine replica's memory and start budget for a graph of `relationships` served on `threads`
 * threads, from the smallest measured size at or above it. Memory: a reload (feed truncated, schema
 * change) loads a new graph while the old one still serves, so the need is the peak of a snapshot
 * start plus a second graph, times the headroom, plus each thread past the first
 * (`ENGINE_THREAD_BYTES`), in whole GiB. Start budget: twice a start from the whole snapshot (the
 * fallback when no checkpoint is usable). Undefined past the largest measured size (shard by
 * tenant instead, docs/SCALING.md).
 */
export function engineSizing(relationships: number, threads = 1): EngineSizing | undefined {
  const measured = ENGINE_MEASURED.find((m) => m.relationships >= relationships);
  if (!measured) return undefined;
  const need = (measured.snapshotPeakRssBytes + measured.graphBytes) * ENGINE_MEMORY_HEADROOM + (threads - 1) * ENGINE_THREAD_BYTES;
  const gib = Math.ceil(need / 2 ** 30);
  return { measured, memory: `${gib}Gi`, startBudgetSeconds: 2 * measured.snapshotStartSeconds };
}

/**
 * A service's resources before the stack's overrides: the engine's memory is sized for
 * `relationships` on the threads its CPU limit gives (`cpuLimit`: the stack's, if it sets one).
 */
export function defaultResources(name: ServiceName, relationships: number, cpuLimit?: string): ResourceSpec {
  const base = DEFAULT_RESOURCES[name];
  const sized = name === "authz-engine" ? engineSizing(relationships, engineThreads(cpuLimit ?? base.limits.cpu)) : undefined;
  if (!sized) return base;
  return { requests: { ...base.requests, memory: sized.memory }, limits: { ...base.limits, memory: sized.memory } };
}

const UNIT_BYTES: Record<string, number> = { "": 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/**
 * The engine's serving threads for a CPU limit: its whole cores, at least one ("2" → 2, "1500m" → 1).
 * Node's own count (os.availableParallelism) sees the node's cores, not the container's quota.
 */
export function engineThreads(cpuLimit: string): number {
  const match = /^([0-9.]+)(m?)$/.exec(cpuLimit);
  const cores = match ? Number(match[1]) / (match[2] === "m" ? 1000 : 1) : 1;
  return Math.max(1, Math.floor(cores));
}

/** Bytes of a Kubernetes quantity such as `6Gi` or `4G`; NaN if it is not one. */
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
    // Text that is not JSON is handed on as text: the schema then names the key and what it expects.
    getObject: (key) => {
      try {
        return config.getObject<unknown>(key);
      } catch {
        return config.get(key);
      }
    },
    getSecret: (key) => config.getSecret(key),
  };
}

/** The stack's keys by how Pulumi hands them over: scalars as text, objects parsed, secrets as secret outputs. */
const SCALAR_KEYS = [
  "environment",
  "namespace",
  "createNamespace",
  "domain",
  "logLevel",
  "imageRegistry",
  "imageTag",
  "monitoring",
  "trustIdentityHeader",
  "ingressNamespace",
  "monitoringNamespace",
  "secretName",
  "authzClientId",
  "renderYamlTo",
] as const;
const OBJECT_KEYS = ["imageDigests", "engine", "services", "expose", "checkpoints", "systemUsers", "reporters", "oidc", "authn", "tracing", "externalSecrets"] as const;
const SECRET_KEYS = ["databaseUrl", "redisUrl", "databaseReadUrl", "authzClientSecret"] as const;
type RawConfig = Record<(typeof SCALAR_KEYS)[number] | (typeof OBJECT_KEYS)[number] | (typeof SECRET_KEYS)[number], unknown>;

function readRaw(src: ConfigSource): RawConfig {
  return Object.fromEntries([
    ...SCALAR_KEYS.map((key) => [key, src.get(key)]),
    ...OBJECT_KEYS.map((key) => [key, src.getObject(key)]),
    ...SECRET_KEYS.map((key) => [key, src.getSecret(key)]),
  ]) as RawConfig;
}

export function loadConfig(source: ConfigSource = pulumiConfigSource(), stack = pulumi.getStack()): GatehouseConfig {
  const raw = readRaw(source);
  const result = stackSchema(stack, raw).safeParse(raw);
  if (!result.success) throw new ConfigError(stack, problemsOf(result.error));
  return result.data;
}

/** At most this many characters of a given value (or key) appear in a message. */
const MAX_SHOWN = 64;
const clip = (text: string) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);
/** A given value as a message may show it: text cut short, lists and objects only named. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object" && value !== null) return "an object";
  return `'${clip(String(value))}'`;
}

/** One line per problem: the key path under `gatehouse:`, then what it expects. */
function problemsOf(error: z.ZodError): string[] {
  const at = (path: readonly PropertyKey[]) => `${NAMESPACE}:${path.map((segment) => clip(String(segment))).join(".")}`;
  return error.issues.flatMap((issue) => (issue.code === "unrecognized_keys" ? issue.keys.map((key) => `${at([...issue.path, key])} ${issue.message}`) : [`${at(issue.path)} ${issue.message}`]));
}

/** The error of a value that is missing (`required`) or not `what`. */
const expected = (what: string, required = `is required (${what})`) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? required : `must be ${what}, got ${shown(issue.input)}`),
});

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)+$/;
const DURATION = /^([0-9]+(s|m|h))+$/;
const REPORTER_TYPE = /^[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+$/;
const HTTP_URL = /^https?:\/\/\S+$/;

const matching = (pattern: RegExp, what: string, required?: string) => z.string(expected(what, required)).regex(pattern, expected(what, required));
const objectName = matching(DNS_LABEL, "a Kubernetes object name (a DNS label)");
const httpUrl = (what = "an http(s) URL", required?: string) => matching(HTTP_URL, what, required);
/** A number given as text (a scalar key, or a quoted YAML value) is read as that number. */
const numeric = (value: unknown) => (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value);
const wholeNumber = (min: number) => {
  const error = expected(`an integer ≥ ${min}`);
  return z.number(error).int(error).min(min, error);
};
const integer = (min: number) => z.preprocess(numeric, wholeNumber(min));
/** true/false, as YAML booleans or as text (scalar keys arrive as text). */
const flag = (fallback: boolean) => z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), z.boolean(expected("true or false"))).default(fallback);
const secret = (required: string) => z.custom<pulumi.Output<string>>((value) => pulumi.Output.isInstance(value), { error: required });
/** A key that must not be set, for each of `reasons`. */
const forbidden = (reasons: string[]) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (value !== undefined) for (const message of reasons) ctx.addIssue({ code: "custom", message });
    })
    .transform(() => undefined);

/** An object with one entry per Gatehouse service, refusing any other name. */
function perService<T extends z.ZodType>(entry: T, what: string, required?: string) {
  const shape = { "management-api": entry, "authz-engine": entry, "workspace-cache": entry } satisfies Record<ServiceName, T>;
  const { error } = expected(what, required);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? `is not a Gatehouse service (expected ${SERVICE_NAMES.join(", ")})` : error(issue)),
  });
}

const quantities = z.record(z.string(), matching(QUANTITY, "a Kubernetes quantity such as '500m' or '1Gi'"), expected("an object of Kubernetes quantities {cpu, memory}"));

const serviceSchema = z
  .object(
    {
      replicas: integer(1),
      maxReplicas: integer(1),
      minAvailable: integer(0),
      imageTag: z.preprocess((value) => (typeof value === "number" ? String(value) : value), z.string(expected("an image tag")).min(1, expected("an image tag"))).optional(),
      resources: z.object({ requests: quantities.optional(), limits: quantities.optional() }, expected("an object {requests, limits}")).optional(),
    },
    expected("an object {replicas, maxReplicas, minAvailable, imageTag?, resources?}"),
  )
  // Between counts that are each valid (a refused count is reported once, by itself).
  .superRefine(
    (s, ctx) => {
      if (s.maxReplicas < s.replicas) ctx.addIssue({ code: "custom", path: ["maxReplicas"], message: `(${s.maxReplicas}) must be ≥ replicas (${s.replicas})` });
      // A budget that keeps every replica up blocks node drains forever.
      if (s.minAvailable >= s.replicas) {
        ctx.addIssue({ code: "custom", path: ["minAvailable"], message: `(${s.minAvailable}) must be below replicas (${s.replicas}), or node drains never finish` });
      }
    },
    { when: ({ issues }) => issues.length === 0 },
  );

const LARGEST_MEASURED = ENGINE_MEASURED[ENGINE_MEASURED.length - 1]!.relationships;
const engineSchema = z
  .object(
    {
      relationships: z
        .preprocess(
          numeric,
          wholeNumber(1).max(LARGEST_MEASURED, {
            error: (issue) => `(${String(issue.input)}) is above the largest size one replica was measured at (${LARGEST_MEASURED}): shard the engines by tenant (docs/SCALING.md)`,
          }),
        )
        .default(ENGINE_MEASURED[0]!.relationships),
    },
    expected("an object {relationships}"),
  )
  .prefault({});

const exposeSchema = z
  .object(
    {
      via: z.enum(["ingress", "route"], expected("'ingress' or 'route' (OpenShift)")),
      host: matching(DNS_NAME, "a DNS name such as gatehouse.example.com"),
      ingressClassName: objectName.optional(),
      tlsSecretName: objectName.optional(),
    },
    expected("an object {via, host, ingressClassName?, tlsSecretName?}"),
  )
  .superRefine((e, ctx) => {
    if (e.ingressClassName && e.via === "route") ctx.addIssue({ code: "custom", path: ["ingressClassName"], message: "applies to via: ingress only" });
  });

const checkpointsSchema = z
  .object(
    {
      store: z.enum(["database", "volume"], expected("'database' (table gh_checkpoints) or 'volume' (a ReadWriteMany claim the replicas share)")).default("database"),
      intervalSeconds: integer(0).default(300),
      claimName: objectName.optional(),
    },
    expected("an object {store, intervalSeconds, claimName}"),
  )
  .superRefine((c, ctx) => {
    if (c.store === "volume" && !c.claimName) ctx.addIssue({ code: "custom", path: ["claimName"], message: "is required with store: volume (a ReadWriteMany PersistentVolumeClaim)" });
  })
  .transform(({ store, intervalSeconds, claimName }): CheckpointConfig => (store === "volume" ? { store, claimName: claimName ?? "", intervalSeconds } : { store, intervalSeconds }))
  .prefault({});

const systemUsersSchema = z
  .record(
    z.string(),
    z.object({ admin: flag(false), is_service_account: flag(false), allow_any_org: flag(false) }, expected("an object {admin, is_service_account, allow_any_org}")),
    expected("an object keyed by token subject"),
  )
  .prefault({});

const reporterTypes = expected('"*" or a list of <reporter>/<type> names');
const reportersSchema = z
  .record(
    z.string(),
    z.object(
      {
        resource_types: z.union([z.literal("*"), z.array(matching(REPORTER_TYPE, "a <reporter>/<type> name such as hbi/host"), reporterTypes).min(1, reporterTypes)], reporterTypes),
        allow_any_org: flag(false),
      },
      expected("an object {resource_types, allow_any_org}"),
    ),
    expected("an object keyed by token client id or subject"),
  )
  .prefault({});

const oidcSchema = z.object(
  { issuerUrl: httpUrl("an http(s) URL", "is required when oidc is set (an http(s) URL)"), audience: z.string(expected("an audience")).optional() },
  expected("an object {issuerUrl, audience?}"),
);

const ratio = expected("a number from 0 to 1");
const tracingSchema = z
  .object(
    {
      otlpEndpoint: httpUrl("an http(s) URL (the OTLP/HTTP collector)").optional(),
      sampler: z.enum(TRACES_SAMPLERS, expected(`one of ${TRACES_SAMPLERS.join(", ")}`)).default(DEFAULT_TRACING.sampler),
      samplerRatio: z.preprocess(numeric, z.number(ratio).min(0, ratio).max(1, ratio)).default(DEFAULT_TRACING.samplerRatio),
    },
    expected("an object {otlpEndpoint, sampler, samplerRatio}"),
  )
  .prefault({});

const remoteRef = z.object(
  { key: z.string(expected("the entry's key in the store")).min(1, expected("the entry's key in the store")), property: z.string(expected("a property name")).optional() },
  expected("{key, property?} naming the value in the secret store", "is required ({key, property}: where the secret store holds it)"),
);

/** Engine authn: OIDC needs a server (and a client id unless its check is skipped); prod needs OIDC with a verified TLS client. */
const authnSchema = (prod: boolean) =>
  z
    .object(
      {
        mode: z.enum(["oidc", "none"], expected("'oidc' or 'none'")).default("oidc"),
        oidcServerUrl: httpUrl().optional(),
        clientId: z.string(expected("a client id")).optional(),
        skipClientIdCheck: flag(false),
        insecureClient: flag(false),
      },
      expected("an object {mode, oidcServerUrl, clientId, skipClientIdCheck, insecureClient}", "is required (mode: oidc with oidcServerUrl and clientId, or mode: none)"),
    )
    .superRefine((a, ctx) => {
      if (a.mode === "oidc" && !a.oidcServerUrl) ctx.addIssue({ code: "custom", path: ["oidcServerUrl"], message: "is required when authn.mode is oidc (an http(s) URL)" });
      if (a.mode === "oidc" && !a.clientId && !a.skipClientIdCheck) ctx.addIssue({ code: "custom", path: ["clientId"], message: "is required unless authn.skipClientIdCheck is true" });
      if (prod && (a.mode === "none" || a.insecureClient)) ctx.addIssue({ code: "custom", message: "must use mode oidc with insecureClient false in prod" });
    })
    .transform(
      ({ mode, oidcServerUrl, clientId, skipClientIdCheck, insecureClient }): AuthnConfig => ({
        mode,
        skipClientIdCheck,
        insecureClient,
        ...(mode === "oidc" && oidcServerUrl ? { oidcServerUrl } : {}),
        ...(mode === "oidc" && clientId ? { clientId } : {}),
      }),
    );

/**
 * The schema of one stack. Which keys it needs follows from three facts read first: prod or not,
 * connections from a secret store (`externalSecrets`) or not, rendering YAML or deploying.
 */
function stackSchema(stack: string, raw: RawConfig) {
  const prod = raw.environment === "prod";
  const store = raw.externalSecrets !== undefined;
  const rendering = raw.renderYamlTo !== undefined && raw.renderYamlTo !== "";
  const required = (key: string) => `is required (set it in Pulumi.${stack}.yaml or with \`pulumi config set ${NAMESPACE}:${key} <value>\`)`;
  const setting = (key: string) => z.preprocess((value) => (typeof value === "string" && value.trim() === "" ? undefined : value), z.string(expected("a value", required(key))));
  const requiredSecret = (key: string, example: string) => secret(`is required as a secret: \`pulumi config set --secret ${NAMESPACE}:${key} ${example}\``);
  const together = `is set together with ${NAMESPACE}:externalSecrets: the connections come from the secret store, remove it`;
  const optionalSecret = secret("must be a Pulumi secret").optional();
  const clientSecretProblems = [...(store ? [together] : []), ...(raw.authzClientId === undefined ? [`is set without ${NAMESPACE}:authzClientId`] : [])];
  const connectionsExpected = prod
    ? "is required in prod: the connection strings come from the secret store, never from values in the stack"
    : "is required (the secret store and the entries of each connection string)";
  const externalSecrets = z.object(
    {
      storeKind: z.enum(["ClusterSecretStore", "SecretStore"], expected("ClusterSecretStore or SecretStore")).default("ClusterSecretStore"),
      storeName: matching(DNS_LABEL, "the secret store's name (a Kubernetes object name)", "is required (the secret store's name)"),
      refreshInterval: matching(DURATION, "a duration such as 1h or 15m").default("1h"),
      databaseUrl: remoteRef,
      redisUrl: remoteRef,
      databaseReadUrl: remoteRef.optional(),
      authzClientSecret: remoteRef.optional(),
    },
    expected("an object {storeKind, storeName, refreshInterval, databaseUrl, redisUrl, ...}", connectionsExpected),
  );

  return (
    z
      .object({
        environment: z.enum(["stage", "prod"], expected("'stage' or 'prod'", required("environment"))),
        namespace: matching(DNS_LABEL, "a Kubernetes namespace name (a DNS label)").default(`gatehouse-${stack}`),
        createNamespace: flag(true),
        domain: setting("domain"),
        logLevel: z.string().default("info"),
        imageRegistry: setting("imageRegistry").transform((registry) => registry.replace(/\/+$/, "")),
        imageTag: setting("imageTag"),
        imageDigests: perService(matching(DIGEST, "an image digest sha256:<64 hex digits>").optional(), "an object keyed by service name")
          // A tag can be pushed again with other contents; prod runs exactly the images that were built.
          .superRefine(
            (digests, ctx) => {
              const missing = SERVICE_NAMES.filter((name) => !digests[name]);
              if (prod && missing.length > 0) {
                ctx.addIssue({ code: "custom", path: [`{${missing.join(",")}}`], message: `is required in prod (a tag is mutable): run scripts/build-images.sh --push --stack ${stack}` });
              }
            },
            // Also next to a malformed digest, which names its own problem.
            { when: ({ value }) => typeof value === "object" && value !== null && !Array.isArray(value) },
          )
          .prefault({}),
        engine: engineSchema,
        services: perService(serviceSchema, "an object keyed by service name", `is required (replicas, maxReplicas and minAvailable for each of ${SERVICE_NAMES.join(", ")})`),
        expose: exposeSchema.optional(),
        monitoring: flag(true),
        checkpoints: checkpointsSchema,
        systemUsers: systemUsersSchema,
        reporters: reportersSchema,
        // An unverified header next to token verification lets anyone who reaches the pods name any identity; prod relies on tokens alone.
        trustIdentityHeader: flag(false).refine((trusted) => !(trusted && prod && raw.oidc !== undefined), `must be false in prod when ${NAMESPACE}:oidc is configured`),
        oidc: oidcSchema.optional(),
        authn: authnSchema(prod),
        tracing: tracingSchema,
        ingressNamespace: z.string().default("ingress-nginx"),
        monitoringNamespace: z.string().default("monitoring"),
        secretName: z.string().default("gatehouse-connections"),
        externalSecrets: prod ? externalSecrets : externalSecrets.optional(),
        // Connection strings as Pulumi secrets: not with a secret store, not in prod, not needed when rendering YAML.
        databaseUrl: store ? forbidden([together]) : prod || rendering ? optionalSecret : requiredSecret("databaseUrl", "postgres://user:password@host:5432/gatehouse"),
        redisUrl: store ? forbidden([together]) : prod || rendering ? optionalSecret : requiredSecret("redisUrl", "redis://:password@host:6379"),
        databaseReadUrl: store ? forbidden([together]) : optionalSecret,
        authzClientId: z.string().optional(),
        authzClientSecret: clientSecretProblems.length > 0 ? forbidden(clientSecretProblems) : optionalSecret,
        renderYamlTo: z.preprocess((value) => (value === "" ? undefined : value), z.string().optional()),
      })
      // Less memory than the measured need for the graph it is sized for: a reload or a start would be
      // killed. Checked whenever the engine's size and the services are valid, whatever else is not.
      .superRefine(
        ({ engine, services }, ctx) => {
          const engineResources = services["authz-engine"].resources;
          const threads = engineThreads(engineResources?.limits?.["cpu"] ?? DEFAULT_RESOURCES["authz-engine"].limits.cpu);
          const sized = engineSizing(engine.relationships, threads);
          const limit = engineResources?.limits?.["memory"];
          if (sized && limit !== undefined && quantityBytes(limit) < quantityBytes(sized.memory)) {
            ctx.addIssue({
              code: "custom",
              path: ["services", "authz-engine", "resources", "limits", "memory"],
              message: `(${clip(limit)}) is below the ${sized.memory} measured to hold ${engine.relationships} relationships on ${threads} thread${threads === 1 ? "" : "s"} (engine.relationships, the CPU limit's whole cores; docs/SCALING.md)`,
            });
          }
        },
        { when: ({ issues }) => !issues.some((issue) => issue.path?.[0] === "engine" || issue.path?.[0] === "services") },
      )
      .transform(
        ({ imageTag, services, databaseUrl, redisUrl, databaseReadUrl, authzClientId, authzClientSecret, expose, oidc, externalSecrets, renderYamlTo, ...rest }): GatehouseConfig => ({
          stack,
          ...rest,
          services: Object.fromEntries(
            SERVICE_NAMES.map((name) => {
              const { resources, ...s } = services[name];
              const base = defaultResources(name, rest.engine.relationships, resources?.limits?.["cpu"]);
              const merged = resources ? { requests: { ...base.requests, ...resources.requests }, limits: { ...base.limits, ...resources.limits } } : base;
              return [name, { ...s, imageTag: s.imageTag ?? imageTag, resources: merged }];
            }),
          ) as Record<ServiceName, ServiceSettings>,
          ...(expose ? { expose } : {}),
          ...(oidc ? { oidc } : {}),
          ...(externalSecrets ? { externalSecrets } : {}),
          ...(!store && !prod && !rendering && databaseUrl && redisUrl ? { connections: { databaseUrl, redisUrl, ...(databaseReadUrl ? { databaseReadUrl } : {}) } } : {}),
          ...(authzClientId !== undefined ? { authzClient: { clientId: authzClientId, ...(authzClientSecret ? { clientSecret: authzClientSecret } : {}) } } : {}),
          ...(renderYamlTo ? { renderYamlTo } : {}),
        }),
      )
  );
}
