// A broken stack configuration fails before any resource is created, naming every key to fix.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, engineSizing, loadConfig } from "../src/config.js";
import { PULUMI_SECRETS, SECRETS, releaseConfig, setupMocks } from "./support/mocks.js";
import { INFRA_DIR } from "./support/stack-config.js";

/** The stack's file and release values, the connections from the secret store or (`pulumi`) as Pulumi secrets. */
async function load(stack: string, change: (config: Record<string, string>) => void, connections: "store" | "pulumi" = "store") {
  const config = releaseConfig(stack);
  if (connections === "pulumi") {
    for (const [k, v] of Object.entries(PULUMI_SECRETS)) {
      if (v === undefined) delete config[k];
      else config[k] = v;
    }
  }
  change(config);
  const registered = await setupMocks(stack, config, Object.keys(SECRETS));
  return { result: () => loadConfig(), registered };
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}

const patch = (key: string, edit: (v: Record<string, unknown>) => void) => (c: Record<string, string>) => {
  const v = JSON.parse(c[key]!) as Record<string, unknown>;
  edit(v);
  c[key] = JSON.stringify(v);
};

describe("required keys", () => {
  it.each([
    ["gatehouse:environment", /gatehouse:environment is required .*Pulumi\.stage\.yaml.*pulumi config set gatehouse:environment/],
    ["gatehouse:imageTag", /gatehouse:imageTag is required/],
    ["gatehouse:imageRegistry", /gatehouse:imageRegistry is required/],
    ["gatehouse:domain", /gatehouse:domain is required/],
    ["gatehouse:services", /gatehouse:services is required/],
    ["gatehouse:authn", /gatehouse:authn is required/],
    ["gatehouse:databaseUrl", /gatehouse:databaseUrl is required as a secret: `pulumi config set --secret gatehouse:databaseUrl/],
    ["gatehouse:redisUrl", /gatehouse:redisUrl is required as a secret/],
  ])("missing %s fails with a message naming it", async (key, message) => {
    const { result } = await load("stage", (c) => delete c[key], "pulumi");
    const error = errorOf(result);
    expect(error.message).toMatch(/^Invalid configuration for stack 'stage' \(1 problem\):/);
    expect(error.message).toMatch(message);
    expect(error.problems).toHaveLength(1);
  });

  it("reports every problem at once", async () => {
    const { result } = await load(
      "stage",
      (c) => {
        delete c["gatehouse:imageTag"];
        delete c["gatehouse:databaseUrl"];
      },
      "pulumi",
    );
    expect(errorOf(result).problems.map((p) => p.split(" ")[0])).toEqual(["gatehouse:imageTag", "gatehouse:databaseUrl"]);
  });

  it("the program entry point fails the same way, before creating any resource", async () => {
    const { registered } = await load("prod", (c) => delete c["gatehouse:imageTag"]);
    const entry = await import("../src/index.js");
    await expect(entry.default()).rejects.toThrow(/gatehouse:imageTag is required/);
    expect(registered).toEqual([]);
  });

  it("the connection secrets are not needed when rendering YAML", async () => {
    const { result } = await load(
      "stage",
      (c) => {
        delete c["gatehouse:databaseUrl"];
        delete c["gatehouse:redisUrl"];
        c["gatehouse:renderYamlTo"] = "rendered/stage";
      },
      "pulumi",
    );
    expect(result().connections).toBeUndefined();
  });
});

describe("invalid values", () => {
  it.each<[string, (c: Record<string, string>) => void, RegExp]>([
    ["an unknown environment", (c) => (c["gatehouse:environment"] = "qa"), /gatehouse:environment must be 'stage' or 'prod', got 'qa'/],
    ["a service block missing", patch("gatehouse:services", (s) => delete s["authz-engine"]), /gatehouse:services\.authz-engine is required/],
    ["an unknown service", patch("gatehouse:services", (s) => (s["authz"] = { replicas: 1 })), /gatehouse:services\.authz is not a Gatehouse service/],
    [
      "a replica count that is not an integer",
      patch("gatehouse:services", (s) => ((s["workspace-cache"] as Record<string, unknown>)["replicas"] = "two")),
      /gatehouse:services\.workspace-cache\.replicas must be an integer ≥ 1, got 'two'/,
    ],
    [
      "a budget that would block node drains",
      patch("gatehouse:services", (s) => ((s["authz-engine"] as Record<string, unknown>)["minAvailable"] = 3)),
      /gatehouse:services\.authz-engine\.minAvailable \(3\) must be below replicas \(3\)/,
    ],
    [
      "maxReplicas below replicas",
      patch("gatehouse:services", (s) => ((s["management-api"] as Record<string, unknown>)["maxReplicas"] = 1)),
      /gatehouse:services\.management-api\.maxReplicas \(1\) must be ≥ replicas \(3\)/,
    ],
    [
      "a malformed resource quantity",
      patch("gatehouse:services", (s) => ((s["management-api"] as Record<string, unknown>)["resources"] = { limits: { memory: "lots" } })),
      /resources\.limits\.memory must be a Kubernetes quantity/,
    ],
    ["OIDC without a server URL", patch("gatehouse:authn", (a) => delete a["oidcServerUrl"]), /gatehouse:authn\.oidcServerUrl is required when authn\.mode is oidc/],
    ["OIDC without a client id", patch("gatehouse:authn", (a) => delete a["clientId"]), /gatehouse:authn\.clientId is required unless authn\.skipClientIdCheck is true/],
    ["authn turned off in prod", patch("gatehouse:authn", (a) => (a["mode"] = "none")), /gatehouse:authn must use mode oidc with insecureClient false in prod/],
    ["an insecure OIDC client in prod", patch("gatehouse:authn", (a) => (a["insecureClient"] = true)), /insecureClient false in prod/],
    ["a trusted identity header next to OIDC in prod", (c) => (c["gatehouse:trustIdentityHeader"] = "true"), /gatehouse:trustIdentityHeader must be false in prod when gatehouse:oidc is configured/],
    [
      "a reporter without resource types",
      patch("gatehouse:reporters", (r) => (r["hbi"] = { allow_any_org: true })),
      /gatehouse:reporters\.hbi\.resource_types is required \("\*" or a list of <reporter>\/<type> names\)/,
    ],
    [
      "a reporter type without its reporter",
      patch("gatehouse:reporters", (r) => (r["hbi"] = { resource_types: ["host"] })),
      /gatehouse:reporters\.hbi\.resource_types\.0 must be a <reporter>\/<type> name such as hbi\/host, got 'host'/,
    ],
    [
      "a reporter with an empty list of types",
      patch("gatehouse:reporters", (r) => (r["hbi"] = { resource_types: [] })),
      /gatehouse:reporters\.hbi\.resource_types must be "\*" or a list of <reporter>\/<type> names, got a list/,
    ],
    ["a non-boolean flag", patch("gatehouse:authn", (a) => (a["skipClientIdCheck"] = "maybe")), /gatehouse:authn\.skipClientIdCheck must be true or false/],
    [
      "a client secret without a client id",
      (c) => {
        c["gatehouse:authzClientSecret"] = SECRETS["gatehouse:authzClientSecret"];
        delete c["gatehouse:authzClientId"];
      },
      /gatehouse:authzClientSecret is set without gatehouse:authzClientId/,
    ],
  ])("rejects %s", async (_label, change, message) => {
    const { result } = await load("prod", change);
    expect(errorOf(result).message).toMatch(message);
  });

  it("accepts a trusted identity header next to OIDC outside prod", async () => {
    const { result } = await load("stage", (c) => (c["gatehouse:trustIdentityHeader"] = "true"));
    expect(result().trustIdentityHeader).toBe(true);
  });

  it("accepts authn mode none outside prod", async () => {
    const { result } = await load(
      "stage",
      patch("gatehouse:authn", (a) => (a["mode"] = "none")),
    );
    expect(result().authn).toEqual({ mode: "none", skipClientIdCheck: true, insecureClient: false });
  });

  it("accepts per-service resource and image tag overrides", async () => {
    const { result } = await load(
      "stage",
      patch("gatehouse:services", (s) => Object.assign(s["authz-engine"] as object, { imageTag: "0.2.0-rc1", resources: { limits: { memory: "4Gi" } } })),
    );
    const engine = result().services["authz-engine"];
    expect(engine.imageTag).toBe("0.2.0-rc1");
    expect(engine.resources.limits).toEqual({ cpu: "2", memory: "4Gi" });
    // Requests keep the size the stack's engine.relationships asks for (stage: 10M, 3Gi).
    expect(engine.resources.requests).toEqual({ cpu: "2", memory: "3Gi" });
  });

  it("sizes the engine's memory for the threads its CPU limit gives: each thread past the first adds its own", async () => {
    const withCpu = (cpu: string, memory?: string) =>
      patch("gatehouse:services", (s) => Object.assign(s["authz-engine"] as object, { resources: { limits: { cpu, ...(memory ? { memory } : {}) }, requests: { cpu } } }));
    // Stage (10M): (1,154 + 507.3 MiB) × 1.25 = 2,077 MiB, plus 15 × 128 MiB on 16 threads: 4Gi, not 3Gi.
    const sixteen = (await load("stage", withCpu("16"))).result().services["authz-engine"].resources;
    expect(sixteen.limits).toEqual({ cpu: "16", memory: "4Gi" });
    expect(sixteen.requests).toEqual({ cpu: "16", memory: "4Gi" });
    expect(engineSizing(10_000_000, 16)!.memory).toBe("4Gi");
    expect(engineSizing(10_000_000, 2)!.memory).toBe("3Gi");
    const tooSmall = await load("stage", withCpu("16", "3Gi"));
    expect(errorOf(tooSmall.result).problems.join("\n")).toMatch(
      /gatehouse:services\.authz-engine\.resources\.limits\.memory \(3Gi\) is below the 4Gi measured to hold 10000000 relationships on 16 threads/,
    );
  });
});

describe("tracing", () => {
  it("without a tracing block: the services' default sampler and no collector (nothing exported)", async () => {
    const { result } = await load("stage", (c) => delete c["gatehouse:tracing"]);
    expect(result().tracing).toEqual({ sampler: "parentbased_traceidratio", samplerRatio: 0.01 });
  });

  it("every deployment still names its service and sampler, and sets no endpoint", async () => {
    const { runStack } = await import("./support/mocks.js");
    const { envOf } = await import("./support/objects.js");
    const run = await runStack("stage", { "gatehouse:tracing": undefined });
    for (const service of ["management-api", "authz-engine", "workspace-cache"] as const) {
      const env = envOf(run, service);
      expect(env.get("OTEL_SERVICE_NAME")?.value, service).toBe(service);
      expect(env.get("OTEL_TRACES_SAMPLER")?.value, service).toBe("parentbased_traceidratio");
      expect(env.has("OTEL_EXPORTER_OTLP_ENDPOINT"), service).toBe(false);
    }
  });

  it("refuses a bad endpoint, sampler or ratio, naming each key", async () => {
    const { result } = await load(
      "prod",
      patch("gatehouse:tracing", (t) => Object.assign(t, { otlpEndpoint: "collector:4318", sampler: "sometimes", samplerRatio: 2 })),
    );
    expect(errorOf(result).problems.map((p) => p.split(" ")[0])).toEqual(["gatehouse:tracing.otlpEndpoint", "gatehouse:tracing.sampler", "gatehouse:tracing.samplerRatio"]);
  });
});

describe("bad configuration: the message names the key and what it expects, and nothing is rendered", () => {
  const services = (name: string, edit: (s: Record<string, unknown>) => void) => patch("gatehouse:services", (s) => edit(s[name] as Record<string, unknown>));
  it.each<[string, string, (c: Record<string, string>) => void, RegExp, ("store" | "pulumi")?]>([
    ["text that is not JSON where an object is expected", "prod", (c) => (c["gatehouse:authn"] = "{mode: oidc"), /gatehouse:authn must be an object \{mode, .*\}, got '\{mode: oidc'/],
    ["a list where an object is expected", "stage", (c) => (c["gatehouse:services"] = "[]"), /gatehouse:services must be an object keyed by service name, got a list/],
    ["text where a boolean is expected", "stage", (c) => (c["gatehouse:monitoring"] = "sometimes"), /gatehouse:monitoring must be true or false, got 'sometimes'/],
    [
      "a number where a list is expected",
      "prod",
      patch("gatehouse:reporters", (r) => (r["hbi"] = { resource_types: 7 })),
      /gatehouse:reporters\.hbi\.resource_types must be "\*" or a list .*, got '7'/,
    ],
    ["no replicas (out of range)", "prod", services("management-api", (s) => (s["replicas"] = 0)), /gatehouse:services\.management-api\.replicas must be an integer ≥ 1, got '0'/],
    ["a fractional replica count", "prod", services("workspace-cache", (s) => (s["maxReplicas"] = 4.5)), /gatehouse:services\.workspace-cache\.maxReplicas must be an integer ≥ 1, got '4\.5'/],
    ["a sampler ratio above 1 (out of range)", "prod", patch("gatehouse:tracing", (t) => (t["samplerRatio"] = 1.5)), /gatehouse:tracing\.samplerRatio must be a number from 0 to 1, got '1\.5'/],
    [
      "a negative checkpoint interval (out of range)",
      "stage",
      (c) => (c["gatehouse:checkpoints"] = JSON.stringify({ intervalSeconds: "-1" })),
      /gatehouse:checkpoints\.intervalSeconds must be an integer ≥ 0, got '-1'/,
    ],
    ["an engine sized at zero", "stage", (c) => (c["gatehouse:engine"] = JSON.stringify({ relationships: 0 })), /gatehouse:engine\.relationships must be an integer ≥ 1, got '0'/],
    ["an unknown stage", "stage", (c) => (c["gatehouse:environment"] = "qa"), /gatehouse:environment must be 'stage' or 'prod', got 'qa'/],
    ["a missing stage", "prod", (c) => delete c["gatehouse:environment"], /gatehouse:environment is required \(set it in Pulumi\.prod\.yaml/],
    ["a missing required secret", "stage", (c) => delete c["gatehouse:redisUrl"], /gatehouse:redisUrl is required as a secret: `pulumi config set --secret gatehouse:redisUrl/, "pulumi"],
    ["a missing secret store in prod", "prod", (c) => delete c["gatehouse:externalSecrets"], /gatehouse:externalSecrets is required in prod/],
    [
      "an unknown secret store kind",
      "prod",
      patch("gatehouse:externalSecrets", (e) => (e["storeKind"] = "Vault")),
      /gatehouse:externalSecrets\.storeKind must be ClusterSecretStore or SecretStore, got 'Vault'/,
    ],
    ["a store entry without its key", "prod", patch("gatehouse:externalSecrets", (e) => (e["redisUrl"] = { property: "url" })), /gatehouse:externalSecrets\.redisUrl\.key is required/],
    ["an unknown exposure", "prod", patch("gatehouse:expose", (e) => (e["via"] = "nodeport")), /gatehouse:expose\.via must be 'ingress' or 'route' \(OpenShift\), got 'nodeport'/],
    ["an ingress class on a Route", "prod", patch("gatehouse:expose", (e) => (e["ingressClassName"] = "nginx")), /gatehouse:expose\.ingressClassName applies to via: ingress only/],
    ["an unknown checkpoint store", "stage", (c) => (c["gatehouse:checkpoints"] = JSON.stringify({ store: "s3" })), /gatehouse:checkpoints\.store must be 'database' .* or 'volume' .*, got 's3'/],
    [
      "a namespace that is not a DNS label",
      "stage",
      (c) => (c["gatehouse:namespace"] = "Gatehouse_Stage"),
      /gatehouse:namespace must be a Kubernetes namespace name \(a DNS label\), got 'Gatehouse_Stage'/,
    ],
  ])("%s", async (_label, stack, change, message, connections = "store") => {
    const { registered } = await load(stack, change, connections);
    const entry = await import("../src/index.js");
    const error = await entry.default().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(message);
    expect(registered).toEqual([]);
  });

  it("never shows more than 64 characters of a given value or key", async () => {
    const { result } = await load("stage", (c) => {
      c["gatehouse:environment"] = "q".repeat(10_000);
      c["gatehouse:services"] = JSON.stringify({ ...JSON.parse(c["gatehouse:services"]!), ["k".repeat(10_000)]: { replicas: 1 } });
    });
    const error = errorOf(result);
    expect(error.problems).toEqual([
      `gatehouse:environment must be 'stage' or 'prod', got '${"q".repeat(64)}…'`,
      `gatehouse:services.${"k".repeat(64)}… is not a Gatehouse service (expected management-api, authz-engine, workspace-cache)`,
    ]);
  });

  it("checks across keys still run next to problems in unrelated keys", async () => {
    const { result } = await load("prod", (c) => {
      delete c["gatehouse:imageTag"];
      c["gatehouse:imageDigests"] = JSON.stringify({ "authz-engine": "latest" });
      c["gatehouse:services"] = JSON.stringify({
        ...JSON.parse(c["gatehouse:services"]!),
        "authz-engine": { replicas: 3, maxReplicas: 12, minAvailable: 2, resources: { limits: { memory: "6Gi" } } },
      });
    });
    expect(errorOf(result).problems.map((p) => p.split(" ")[0])).toEqual([
      "gatehouse:imageTag",
      "gatehouse:imageDigests.authz-engine",
      "gatehouse:imageDigests.{management-api,workspace-cache}",
      "gatehouse:services.authz-engine.resources.limits.memory",
    ]);
  });
});

describe("defaults", () => {
  it("an unset optional key takes its documented default", async () => {
    const optional = ["namespace", "createNamespace", "logLevel", "monitoring", "checkpoints", "engine", "tracing", "systemUsers", "reporters", "trustIdentityHeader"];
    const { result } = await load("stage", (c) => {
      for (const key of [...optional, "ingressNamespace", "monitoringNamespace", "secretName"]) delete c[`gatehouse:${key}`];
    });
    const cfg = result();
    expect({
      namespace: cfg.namespace,
      createNamespace: cfg.createNamespace,
      logLevel: cfg.logLevel,
      monitoring: cfg.monitoring,
      checkpoints: cfg.checkpoints,
      engine: cfg.engine,
      tracing: cfg.tracing,
      systemUsers: cfg.systemUsers,
      reporters: cfg.reporters,
      trustIdentityHeader: cfg.trustIdentityHeader,
      ingressNamespace: cfg.ingressNamespace,
      monitoringNamespace: cfg.monitoringNamespace,
      secretName: cfg.secretName,
    }).toStrictEqual({
      namespace: "gatehouse-stage",
      createNamespace: true,
      logLevel: "info",
      monitoring: true,
      checkpoints: { store: "database", intervalSeconds: 300 },
      engine: { relationships: 10_000_000 },
      tracing: { sampler: "parentbased_traceidratio", samplerRatio: 0.01 },
      systemUsers: {},
      reporters: {},
      trustIdentityHeader: false,
      ingressNamespace: "ingress-nginx",
      monitoringNamespace: "monitoring",
      secretName: "gatehouse-connections",
    });
  });

  it("scalar keys given as text are read as their types; a trailing slash leaves the registry", async () => {
    const { result } = await load("stage", (c) => {
      c["gatehouse:createNamespace"] = "false";
      c["gatehouse:imageRegistry"] = "quay.io/gatehouse//";
      c["gatehouse:checkpoints"] = JSON.stringify({ intervalSeconds: "120" });
      c["gatehouse:tracing"] = JSON.stringify({ samplerRatio: "0.5" });
    });
    const cfg = result();
    expect([cfg.createNamespace, cfg.imageRegistry, cfg.checkpoints, cfg.tracing.samplerRatio]).toEqual([false, "quay.io/gatehouse", { store: "database", intervalSeconds: 120 }, 0.5]);
  });
});

describe("infra/README.md", () => {
  it("shows an error exactly as the program reports it", async () => {
    const readme = readFileSync(`${INFRA_DIR}README.md`, "utf8");
    const example = /^Invalid configuration for stack 'prod' .*\n(?: {2}- .*\n)+/m.exec(readme)?.[0];
    const { result } = await load("prod", (c) => {
      delete c["gatehouse:imageDigests"];
      patch("gatehouse:services", (s) => ((s["management-api"] as Record<string, unknown>)["replicas"] = 0))(c);
    });
    expect(`${errorOf(result).message}\n`).toBe(example);
  });
});
