// What a real cluster needs beyond the Deployments: the Routes or Ingress, the prometheus-operator
// objects, migrations once per release before the new pods, engine graph checkpoints and its read
// replica, engine memory and start-up budget from docs/SCALING.md's measured figures, images by
// digest, and an infra README that names the images the Dockerfiles build.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { heapMiB } from "../src/components/authz-engine.js";
import { ConfigError, ENGINE_MEASURED, ENGINE_MEMORY_HEADROOM, ENGINE_THREAD_BYTES, SERVICE_NAMES, engineSizing, engineThreads, loadConfig } from "../src/config.js";
import { IMAGE_DIGESTS, PULUMI_SECRETS, releaseConfig, runStack, setupMocks, type Run } from "./support/mocks.js";
import { container, envOf, get, type K8sObject } from "./support/objects.js";
import { INFRA_DIR } from "./support/stack-config.js";

const BYTES: Record<string, number> = { Mi: 2 ** 20, Gi: 2 ** 30 };
const bytes = (quantity: string) => Number(/^\d+/.exec(quantity)![0]) * BYTES[/[A-Za-z]+$/.exec(quantity)![0]]!;

async function configProblems(stack: string, change: (c: Record<string, string | undefined>) => void): Promise<string[]> {
  const config: Record<string, string | undefined> = releaseConfig(stack);
  change(config);
  await setupMocks(stack, Object.fromEntries(Object.entries(config).filter((e): e is [string, string] => e[1] !== undefined)));
  try {
    loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

describe.each(["stage", "prod"])("stack %s", (stack) => {
  let run: Run;
  beforeAll(async () => {
    run = await runStack(stack);
  });

  it("exposes one origin through edge-TLS Routes: /api/kessel/ to the engine's HTTP port, the rest to the management API", () => {
    const host = stack === "prod" ? "gatehouse.apps.example.com" : "gatehouse.apps.stage.example.com";
    const edge = { tls: { termination: "edge", insecureEdgeTerminationPolicy: "Redirect" }, wildcardPolicy: "None" };
    expect(get(run, "Route", "gatehouse").spec).toEqual({ host, to: { kind: "Service", name: "management-api", weight: 100 }, port: { targetPort: "http" }, ...edge });
    expect(get(run, "Route", "gatehouse-api-kessel").spec).toEqual({ host, path: "/api/kessel/", to: { kind: "Service", name: "authz-engine", weight: 100 }, port: { targetPort: "http" }, ...edge });
    expect(get(run, "Service", "management-api").spec.ports.map((p: K8sObject) => p.name)).toContain("http");
    expect(get(run, "Service", "authz-engine").spec.ports.map((p: K8sObject) => p.name)).toContain("http");
    expect(run.deployed.outputs.publicUrl).toBe(`https://${host}`);
  });

  it.each(SERVICE_NAMES)("%s: a ServiceMonitor scrapes the Service's metrics port (named, so a new port changes nothing)", (name) => {
    const monitor = get(run, "ServiceMonitor", name);
    const service = get(run, "Service", name);
    for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels)) expect(service.metadata.labels[k], k).toBe(v);
    expect(monitor.spec.endpoints).toHaveLength(1);
    const endpoint = monitor.spec.endpoints[0];
    expect(service.spec.ports.find((p: K8sObject) => p.name === endpoint.port)?.port).toBe(Number(service.metadata.annotations["prometheus.io/port"]));
    expect(endpoint.path).toBe("/metrics");
    // The Prometheus reading ServiceMonitors may reach that port through the NetworkPolicy.
    const admitted = get(run, "NetworkPolicy", name).spec.ingress.filter((rule: K8sObject) => rule.ports.some((p: K8sObject) => p.port === Number(service.metadata.annotations["prometheus.io/port"])));
    expect(admitted.flatMap((rule: K8sObject) => rule.from.map((peer: K8sObject) => peer.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"]))).toContain(
      "openshift-user-workload-monitoring",
    );
    // The alert rules select `job="<service>"`: without a jobLabel the operator names the job after the Service.
    expect(monitor.spec.jobLabel).toBeUndefined();
    expect(service.metadata.name).toBe(name);
  });

  it("deploys the alert rules and the dashboard of infra/observability as they are", () => {
    const rules = parse(readFileSync(`${INFRA_DIR}observability/prometheus-rules.yaml`, "utf8"));
    expect(get(run, "PrometheusRule", "gatehouse").spec.groups).toEqual(rules.groups);
    const dashboard = get(run, "ConfigMap", "gatehouse-dashboard");
    expect(dashboard.metadata.labels["grafana_dashboard"]).toBe("1");
    expect(JSON.parse(dashboard.data["gatehouse.json"])).toEqual(JSON.parse(readFileSync(`${INFRA_DIR}observability/grafana-dashboard.json`, "utf8")));
  });

  it("runs the migrations once in a Job that every Deployment waits for; the pods themselves never migrate", () => {
    const job = get(run, "Job", "gatehouse-migrations-a1b2c3");
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe("Never");
    expect(job.metadata.annotations).toEqual({ "pulumi.com/replaceUnready": "true" });
    expect(pod.containers).toHaveLength(1);
    expect(pod.containers[0].image).toBe(`quay.io/gatehouse/management-api@${IMAGE_DIGESTS["management-api"]}`);
    expect(pod.containers[0].command).toEqual(["node", "dist/migrate.js"]);
    expect(pod.containers[0].env.find((e: K8sObject) => e.name === "DATABASE_URL").valueFrom.secretKeyRef).toEqual({ name: "gatehouse-connections", key: "database-url" });
    expect(pod.containers[0].securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true });
    for (const name of SERVICE_NAMES) {
      expect(run.deployed.services[name].waitsFor, name).toContain(run.deployed.migrations);
      expect(envOf(run, name).get("GATEHOUSE_MIGRATE_ON_START")?.value, name).toBe("false");
    }
  });

  it("the engine serves on one thread per whole core it is given, and is given whole cores", () => {
    const engine = get(run, "Deployment", "authz-engine").spec.template.spec.containers[0];
    expect(engine.resources.requests.cpu).toBe(engine.resources.limits.cpu);
    expect(envOf(run, "authz-engine").get("AUTHZ_THREADS")?.value).toBe(String(engineThreads(engine.resources.limits.cpu)));
    expect(engineThreads("2")).toBe(2);
    expect(engineThreads("1500m")).toBe(1);
    expect(engineThreads("500m")).toBe(1);
    expect(engineThreads("16")).toBe(16);
  });

  it("the engine keeps graph checkpoints in the database and reads snapshots and checkpoints on the replica", () => {
    const env = envOf(run, "authz-engine");
    expect(env.get("AUTHZ_CHECKPOINT_IN_DATABASE")?.value).toBe("true");
    // Prod holds 100M relationships per replica: a checkpoint there is a multi-second pause and a multi-GiB write (README).
    expect(env.get("AUTHZ_CHECKPOINT_INTERVAL_SECONDS")?.value).toBe(stack === "prod" ? "3600" : "300");
    expect(env.has("AUTHZ_CHECKPOINT_DIR")).toBe(false);
    expect(env.get("DATABASE_READ_URL")?.valueFrom.secretKeyRef).toEqual({ name: "gatehouse-connections", key: "database-read-url" });
    for (const other of ["management-api", "workspace-cache"] as const) expect(envOf(run, other).has("DATABASE_READ_URL"), other).toBe(false);
  });

  // Stage is sized for 10M relationships per replica, prod for 100M (the stack files' engine.relationships).
  const measured = ENGINE_MEASURED.find((m) => m.relationships === (stack === "prod" ? 100_000_000 : 10_000_000))!;

  it("the engine's memory covers the measured peak of a snapshot start plus a second graph during a reload, and each serving thread past the first, reserved, with the heap sized to it", () => {
    const { resources } = container(run, "authz-engine");
    const need = (measured.snapshotPeakRssBytes + measured.graphBytes) * ENGINE_MEMORY_HEADROOM + (engineThreads(resources.limits.cpu) - 1) * ENGINE_THREAD_BYTES;
    expect(bytes(resources.limits.memory)).toBeGreaterThanOrEqual(need);
    expect(bytes(resources.limits.memory) - 2 ** 30).toBeLessThan(need);
    expect(resources.requests.memory).toBe(resources.limits.memory);
    expect(envOf(run, "authz-engine").get("NODE_OPTIONS")?.value).toBe(`--max-old-space-size=${Math.floor((bytes(resources.limits.memory) * 0.75) / 2 ** 20)}`);
  });

  it("the engine's start-up budget and rollout deadline allow twice a start from the whole snapshot at its size", () => {
    const probe = container(run, "authz-engine").startupProbe;
    expect(probe.periodSeconds * probe.failureThreshold).toBeGreaterThanOrEqual(2 * measured.snapshotStartSeconds);
    expect(get(run, "Deployment", "authz-engine").spec.progressDeadlineSeconds).toBeGreaterThan(probe.periodSeconds * probe.failureThreshold);
  });

  it("every image is referenced by digest", () => {
    for (const name of SERVICE_NAMES) expect(container(run, name).image, name).toBe(`quay.io/gatehouse/${name}@${IMAGE_DIGESTS[name]}`);
  });
});

describe("the sizing figures are docs/SCALING.md's", () => {
  const scaling = readFileSync(`${INFRA_DIR}../docs/SCALING.md`, "utf8");
  it("snapshot start at 10M and peak RSS as measured", () => {
    const m = ENGINE_MEASURED.find((e) => e.relationships === 10_000_000)!;
    expect(scaling).toContain(`(${m.snapshotStartSeconds} s wall)`);
    expect(scaling).toContain(`| peak RSS of the process after the snapshot load | 464 MiB | **${(m.snapshotPeakRssBytes / 2 ** 20).toLocaleString("en")} MiB** |`);
    expect(scaling).toContain(`(${m.graphBytes / 2 ** 20} MiB)`);
  });

  it("the 100M run as measured", () => {
    const m = ENGINE_MEASURED.find((e) => e.relationships === 100_000_000)!;
    expect(scaling).toContain(`| peak RSS of the process after the snapshot load | **${(m.snapshotPeakRssBytes / 2 ** 20).toLocaleString("en", { maximumFractionDigits: 1 })} MiB** |`);
    expect(scaling).toContain(`held after load ${(m.graphBytes / 2 ** 20).toLocaleString("en", { maximumFractionDigits: 1 })} MiB`);
    expect(scaling).toContain(`ready from the snapshot | **${m.snapshotStartSeconds.toLocaleString("en")} s wall**`);
  });

  it("a serving thread's own memory as measured", () => {
    expect(scaling).toContain(`${ENGINE_THREAD_BYTES / 2 ** 20} MiB per thread past the first`);
  });

  it("sizes from the smallest measured size at or above the stack's, and none past the largest", () => {
    expect(engineSizing(1)!.measured.relationships).toBe(10_000_000);
    expect(engineSizing(10_000_001)!.measured.relationships).toBe(100_000_000);
    expect(engineSizing(100_000_001)).toBeUndefined();
  });

  it("heapMiB reads Kubernetes byte quantities and refuses anything else", () => {
    expect(heapMiB("6Gi")).toBe(4608);
    expect(heapMiB("512Mi")).toBe(384);
    expect(heapMiB("4G")).toBe(Math.floor((4e9 * 0.75) / 2 ** 20));
    expect(() => heapMiB("lots")).toThrow(/not a byte quantity/);
  });
});

describe("options", () => {
  it("an Ingress instead of Routes: class, TLS secret, /api/kessel/ to the engine's HTTP port and the rest to the management API", async () => {
    const run = await runStack("stage", { "gatehouse:expose": JSON.stringify({ via: "ingress", host: "gatehouse.example.com", ingressClassName: "nginx", tlsSecretName: "gatehouse-tls" }) });
    expect([...run.objects.keys()].filter((k) => k.startsWith("Route/"))).toEqual([]);
    expect(get(run, "Ingress", "gatehouse").spec).toEqual({
      ingressClassName: "nginx",
      tls: [{ hosts: ["gatehouse.example.com"], secretName: "gatehouse-tls" }],
      rules: [
        {
          host: "gatehouse.example.com",
          http: {
            paths: [
              { path: "/api/kessel/", pathType: "Prefix", backend: { service: { name: "authz-engine", port: { name: "http" } } } },
              { path: "/", pathType: "Prefix", backend: { service: { name: "management-api", port: { name: "http" } } } },
            ],
          },
        },
      ],
    });
  });

  it("without expose or monitoring: no Route, Ingress, ServiceMonitor, PrometheusRule or dashboard", async () => {
    const run = await runStack("stage", { "gatehouse:expose": undefined, "gatehouse:monitoring": "false" });
    expect([...run.objects.keys()].filter((k) => /^(Route|Ingress|ServiceMonitor|PrometheusRule|ConfigMap)\//.test(k))).toEqual([]);
    expect(run.deployed.outputs.publicUrl).toBeUndefined();
  });

  it("checkpoints on a shared volume: mounted from the claim, named by AUTHZ_CHECKPOINT_DIR", async () => {
    const run = await runStack("stage", { "gatehouse:checkpoints": JSON.stringify({ store: "volume", claimName: "gatehouse-checkpoints", intervalSeconds: 120 }) });
    const env = envOf(run, "authz-engine");
    expect(env.get("AUTHZ_CHECKPOINT_DIR")?.value).toBe("/var/lib/gatehouse/checkpoints");
    expect(env.get("AUTHZ_CHECKPOINT_INTERVAL_SECONDS")?.value).toBe("120");
    expect(env.has("AUTHZ_CHECKPOINT_IN_DATABASE")).toBe(false);
    expect(container(run, "authz-engine").volumeMounts).toContainEqual({ name: "checkpoints", mountPath: "/var/lib/gatehouse/checkpoints" });
    expect(get(run, "Deployment", "authz-engine").spec.template.spec.volumes).toContainEqual({ name: "checkpoints", persistentVolumeClaim: { claimName: "gatehouse-checkpoints" } });
  });

  it("stage without digests runs the tagged images; without a read replica the engine reads the primary", async () => {
    const run = await runStack("stage", { "gatehouse:imageDigests": undefined, ...PULUMI_SECRETS });
    for (const name of SERVICE_NAMES) expect(container(run, name).image, name).toBe(`quay.io/gatehouse/${name}:0.1.0`);
    expect(envOf(run, "authz-engine").has("DATABASE_READ_URL")).toBe(false);
  });
});

describe("refused configurations", () => {
  it.each<[string, string, (c: Record<string, string | undefined>) => void, RegExp]>([
    [
      "prod without image digests (a tag is mutable)",
      "prod",
      (c) => delete c["gatehouse:imageDigests"],
      /gatehouse:imageDigests\.\{management-api,authz-engine,workspace-cache\} is required in prod .*build-images\.sh/,
    ],
    ["a digest that is not sha256", "stage", (c) => (c["gatehouse:imageDigests"] = JSON.stringify({ "authz-engine": "latest" })), /gatehouse:imageDigests\.authz-engine must be an image digest/],
    ["prod with connection strings as Pulumi secrets", "prod", (c) => Object.assign(c, PULUMI_SECRETS), /gatehouse:externalSecrets is required in prod/],
    ["a secret store and Pulumi secrets together", "stage", (c) => (c["gatehouse:databaseUrl"] = "postgres://x"), /gatehouse:databaseUrl is set together with gatehouse:externalSecrets/],
    [
      "a secret store without a name or database key",
      "stage",
      (c) => (c["gatehouse:externalSecrets"] = JSON.stringify({ redisUrl: { key: "r" } })),
      /storeName is required[\s\S]*externalSecrets\.databaseUrl is required/,
    ],
    ["an unknown exposure", "stage", (c) => (c["gatehouse:expose"] = JSON.stringify({ via: "nodeport", host: "gatehouse.example.com" })), /gatehouse:expose\.via must be 'ingress' or 'route'/],
    ["a host that is not a DNS name", "stage", (c) => (c["gatehouse:expose"] = JSON.stringify({ via: "route", host: "https://x" })), /gatehouse:expose\.host must be a DNS name/],
    [
      "an engine sized past the largest measured replica",
      "prod",
      (c) => (c["gatehouse:engine"] = JSON.stringify({ relationships: 200_000_000 })),
      /gatehouse:engine\.relationships \(200000000\) is above the largest size one replica was measured at \(100000000\): shard/,
    ],
    [
      "engine memory below what its size was measured to need",
      "prod",
      (c) =>
        (c["gatehouse:services"] = JSON.stringify({
          ...JSON.parse(c["gatehouse:services"]!),
          "authz-engine": { replicas: 3, maxReplicas: 12, minAvailable: 2, resources: { limits: { memory: "6Gi" } } },
        })),
      /gatehouse:services\.authz-engine\.resources\.limits\.memory \(6Gi\) is below the \d+Gi measured to hold 100000000 relationships/,
    ],
    ["checkpoints on a volume without a claim", "stage", (c) => (c["gatehouse:checkpoints"] = JSON.stringify({ store: "volume" })), /gatehouse:checkpoints\.claimName is required with store: volume/],
  ])("refuses %s, naming the key", async (_label, stack, change, message) => {
    const problems = await configProblems(stack, change);
    expect(problems.join("\n")).toMatch(message);
  });
});

describe("infra/README.md", () => {
  it("names the runtime image the Dockerfiles build on, and no other Node image", () => {
    const readme = readFileSync(`${INFRA_DIR}README.md`, "utf8");
    const runtimes = new Set(SERVICE_NAMES.map((s) => /^FROM (\S+) AS runtime$/m.exec(readFileSync(`${INFRA_DIR}../apps/${s}/Dockerfile`, "utf8"))![1]));
    expect(runtimes.size).toBe(1);
    expect(readme).toContain(`\`${[...runtimes][0]}\``);
    expect(readme.match(/node:\d+[\w.-]*/g)?.filter((image) => !runtimes.has(image)) ?? []).toEqual([]);
  });
});
