// Everything the k6 scripts share: environment, the scenario definitions (the same JSON the Node
// driver reads), the generator's manifest, and a connected gRPC client per virtual user.
import encoding from "k6/encoding";
import type { Scenario } from "k6/options";
import grpc from "k6/net/grpc";
import { validateManifest, type Manifest } from "../../shared/manifest.ts";
import { scaleOf, userId, validateScenarioFile, type ScaleSpec, type ScenarioFile } from "../../shared/model.ts";
import { identityJson, principalSubject, PROTO_FILES } from "../../shared/requests.ts";

function positiveIntEnv(name: string): number | undefined {
  const text = __ENV[name];
  if (text === undefined || text === "") return undefined;
  if (!/^[1-9][0-9]{0,6}$/.test(text)) throw new Error(`${name} must be a positive integer.`);
  return Number(text);
}

function durationEnv(name: string): string | undefined {
  const text = __ENV[name];
  if (text === undefined || text === "") return undefined;
  if (!/^([0-9]+(ms|s|m|h))+$/.test(text)) throw new Error(`${name} must be a k6 duration such as 30s, 2m or 1m30s.`);
  return text;
}

/** Target stack and data; defaults match a local `gatehouse start` and a 100k generator run. */
export const env = {
  grpcTarget: __ENV["GRPC_TARGET"] ?? "127.0.0.1:9091",
  httpUrl: (__ENV["HTTP_URL"] ?? "http://127.0.0.1:8000").replace(/\/$/, ""),
  plaintext: (__ENV["GRPC_PLAINTEXT"] ?? "true") === "true",
  /** Bearer token for a deployed stack (OIDC); absent = local trusted x-rh-identity. */
  token: __ENV["TOKEN"],
  manifestPath: __ENV["MANIFEST"] ?? "../.data/100k-postgres/manifest.json",
  protoRoot: __ENV["PROTO_ROOT"] ?? "../../packages/proto/proto",
  /** Short durations and low rates (CI-sized). */
  smoke: __ENV["SMOKE"] === "true",
  /** Overrides of scenarios.json (and of SMOKE): arrival rate per second (check-mix), run duration, virtual users. */
  rate: positiveIntEnv("RATE"),
  duration: durationEnv("DURATION"),
  vus: positiveIntEnv("VUS"),
  /** Load before the measured scenario starts (connections, JIT, first lookups); never measured. */
  warmup: durationEnv("WARMUP") ?? (__ENV["SMOKE"] === "true" ? "5s" : "30s"),
};

export interface Loaded {
  file: ScenarioFile;
  manifest: Manifest;
  scale: ScaleSpec;
}

/**
 * Parses the texts each entry script reads with open(): open() resolves relative paths against
 * the entry script, so only files at the k6/ top level call it.
 */
export function load(scenariosText: string, manifestText: string): Loaded {
  const file = validateScenarioFile(JSON.parse(scenariosText));
  const manifest = validateManifest(JSON.parse(manifestText));
  return { file, manifest, scale: scaleOf(file, manifest.scaleName) };
}

export function measuredSubject(manifest: Manifest, i: number) {
  const measured = manifest.measured;
  return principalSubject(manifest.domain, userId(measured[i % measured.length] as number));
}

/**
 * The measured scenario preceded by a warm-up one running the same function at one virtual user;
 * the measured one starts when the warm-up ends.
 */
export function withWarmup(name: string, measured: Scenario): Record<string, Scenario> {
  return {
    warmup: { executor: "constant-vus", vus: 1, duration: env.warmup, gracefulStop: "0s" },
    [name]: { ...measured, startTime: env.warmup },
  };
}

/**
 * k6 threshold expressions from the shared definition. Errors count everywhere (warm-up included: a
 * cold server must not fail requests); latency limits apply to the measured scenario only (samples
 * carry k6's `scenario` tag) and not in smoke runs, whose seconds of load measure a cold start.
 */
export function thresholdsOf(metric: string, t: { p95Ms?: number; p99Ms?: number }, errorMetric: string, errorRate: number, measuredScenario: string): Record<string, string[]> {
  const latency: string[] = [];
  if (t.p95Ms !== undefined) latency.push(`p(95)<=${t.p95Ms}`);
  if (t.p99Ms !== undefined) latency.push(`p(99)<=${t.p99Ms}`);
  const errors = { [errorMetric]: [`rate<=${errorRate}`] };
  return env.smoke || latency.length === 0 ? errors : { ...errors, [`${metric}{scenario:${measuredScenario}}`]: latency };
}

const client = new grpc.Client();
client.load([env.protoRoot], ...PROTO_FILES);
let connected = false;

/** The VU's gRPC client, connected on first use (connect is not allowed in the init context). */
export function inventory(): grpc.Client {
  if (!connected) {
    client.connect(env.grpcTarget, { plaintext: env.plaintext });
    connected = true;
  }
  return client;
}

export function grpcParams(): grpc.Params {
  return env.token ? { metadata: { authorization: `Bearer ${env.token}` } } : {};
}

export function httpHeaders(org: string): Record<string, string> {
  if (env.token) return { authorization: `Bearer ${env.token}`, "content-type": "application/json" };
  return { "x-rh-identity": encoding.b64encode(identityJson(org, "lt-admin", true)), "content-type": "application/json" };
}

export const METHOD = (rpc: string): string => `kessel.inventory.v1beta2.KesselInventoryService/${rpc}`;
