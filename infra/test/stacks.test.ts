// Every object of every component, per stack, against the expectations table.
import { beforeAll, describe, expect, it } from "vitest";
import { defaultResources, SERVICE_NAMES } from "../src/config.js";
import { COMMON, SERVICES, STACKS } from "./support/expectations.js";
import { IMAGE_DIGESTS, runStack, type Run } from "./support/mocks.js";
import { container, describePeer, envOf, get, portNumber, type K8sObject } from "./support/objects.js";
import { readStackFile } from "./support/stack-config.js";

const KINDS = ["ServiceAccount", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "ServiceMonitor"];
/** Once per stack: the connections (from the secret store), the migrations Job, one Route per public path prefix, the alert rules and the dashboard. */
const SHARED = [
  "ExternalSecret/gatehouse-connections",
  "Job/gatehouse-migrations-a1b2c3",
  "Route/gatehouse",
  "Route/gatehouse-api-kessel",
  "PrometheusRule/gatehouse",
  "ConfigMap/gatehouse-dashboard",
];

describe.each(STACKS)("stack $stack", ({ stack, values }) => {
  let run: Run;
  beforeAll(async () => {
    run = await runStack(stack);
  });
  const namespace = values["gatehouse:namespace"];
  const secretName = () => get(run, "ExternalSecret", "gatehouse-connections").spec.target.name;

  it("creates the namespace, the shared objects and seven objects per service, nothing else", () => {
    const expected = [`Namespace/${namespace}`, ...SHARED, ...SERVICE_NAMES.flatMap((s) => KINDS.map((k) => `${k}/${s}`))];
    expect([...run.objects.keys()].sort()).toEqual(expected.sort());
  });

  it("puts every object in the stack's namespace, labelled with the environment", () => {
    for (const [key, obj] of run.objects) {
      if (obj.kind === "Namespace") continue;
      expect(obj.metadata.namespace, key).toBe(namespace);
      expect(obj.metadata.labels["gatehouse.io/environment"], key).toBe(values["gatehouse:environment"]);
      expect(obj.metadata.labels["app.kubernetes.io/part-of"], key).toBe("gatehouse");
    }
  });

  describe.each(SERVICE_NAMES)("%s", (name) => {
    const exp = SERVICES[name];
    const setting = (field: string) => values[`gatehouse:services.${name}.${field}`];
    const selector = { "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "gatehouse" };

    it("Deployment: image, selector, ports, resources; the HPA owns the replica count", () => {
      const d = get(run, "Deployment", name);
      expect(d.spec.selector.matchLabels).toEqual(selector);
      expect(d.spec.template.metadata.labels).toMatchObject({ ...selector, "gatehouse.io/environment": values["gatehouse:environment"] });
      expect(d.spec.replicas).toBeUndefined();
      const c = container(run, name);
      expect(c.image).toBe(`${COMMON.imageRegistry}/${name}@${IMAGE_DIGESTS[name]}`);
      expect(Object.fromEntries(c.ports.map((p: K8sObject) => [p.name, p.containerPort]))).toEqual(exp.ports);
      expect(c.resources).toEqual(defaultResources(name, values["gatehouse:engine.relationships"] as number));
    });

    it("runs as non-root with a read-only root filesystem and a writable /tmp", () => {
      const pod = get(run, "Deployment", name).spec.template.spec;
      const c = container(run, name);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
      expect(c.volumeMounts[0]).toEqual({ name: "tmp", mountPath: "/tmp" });
      expect(pod.volumes[0]).toEqual({ name: "tmp", emptyDir: { sizeLimit: "64Mi" } });
    });

    it("drains on termination: a preStop sleep, then SIGTERM with time left for the app's 10 s drain", () => {
      const pod = get(run, "Deployment", name).spec.template.spec;
      const c = container(run, name);
      expect(c.lifecycle).toEqual({ preStop: { exec: { command: ["sleep", "5"] } } });
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(5 + 10 + 5);
    });

    it(`probes: ${exp.probes === "grpc" ? "gRPC health on the gRPC port" : "HTTP /livez and /readyz"}`, () => {
      const c = container(run, name);
      const servingPort = Object.values(exp.ports)[0]!;
      if (exp.probes === "http") {
        for (const [probe, path] of [
          ["livenessProbe", "/livez"],
          ["readinessProbe", "/readyz"],
          ["startupProbe", "/livez"],
        ] as const) {
          expect(c[probe].httpGet.path, probe).toBe(path);
          expect(portNumber(c, c[probe].httpGet.port), probe).toBe(servingPort);
        }
      } else {
        expect(c.readinessProbe.grpc).toEqual({ port: servingPort });
        for (const probe of ["livenessProbe", "startupProbe"] as const) {
          expect(c[probe].httpGet.path, probe).toBe("/livez");
          expect(portNumber(c, c[probe].httpGet.port), probe).toBe(exp.metricsPort);
        }
      }
    });

    it("env: stack values in plain text, connection strings only by Secret reference", () => {
      const env = envOf(run, name);
      expect(env.get("GATEHOUSE_ENV")?.value).toBe(values["gatehouse:environment"]);
      expect(env.get("GATEHOUSE_DOMAIN")?.value).toBe("redhat");
      expect(env.get("LOG_LEVEL")?.value).toBe(values["gatehouse:logLevel"]);
      if (exp.probes === "http") expect(env.get("PORT")?.value).toBe(String(Object.values(exp.ports)[0]));
      expect(env.has("DOMAIN")).toBe(false);
      // Every port a variable configures is one the container declares (probes and Services use those).
      const declared = Object.values(exp.ports).map(String);
      for (const e of env.values()) if (/PORT$/.test(e.name)) expect(declared, e.name).toContain(e.value);
      expect(JSON.parse(env.get("SYSTEM_USERS")?.value)).toEqual(readStackFile(stack)["gatehouse:systemUsers"]);
      const fromSecrets = [...env.values()].filter((e) => e.valueFrom);
      expect(Object.fromEntries(fromSecrets.map((e) => [e.name, e.valueFrom.secretKeyRef]))).toEqual(
        Object.fromEntries(Object.entries(exp.secretEnv).map(([k, key]) => [k, { name: secretName(), key }])),
      );
      if (exp.probes === "http") {
        expect(env.get("TRUST_IDENTITY_HEADER")?.value).toBe("false");
        expect(env.get("OIDC_ISSUER_URL")?.value).toBe(values["gatehouse:oidc.issuerUrl"]);
      }
    });

    it("env: the standard OTEL_* variables (service name, the stack's collector, the sampler)", () => {
      const env = envOf(run, name);
      const otel = Object.fromEntries([...env.values()].filter((e) => e.name.startsWith("OTEL_")).map((e) => [e.name, e.value]));
      expect(otel).toEqual({
        OTEL_SERVICE_NAME: name,
        OTEL_EXPORTER_OTLP_ENDPOINT: COMMON.otlpEndpoint,
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.01",
      });
    });

    it("Service: selects the pods, exposes the named ports, carries the scrape annotations", () => {
      const svc = get(run, "Service", name);
      expect(svc.spec.selector).toEqual(selector);
      expect(Object.fromEntries(svc.spec.ports.map((p: K8sObject) => [p.name, [p.port, p.targetPort]]))).toEqual(Object.fromEntries(Object.entries(exp.ports).map(([n, p]) => [n, [p, n]])));
      const scrape = { "prometheus.io/scrape": "true", "prometheus.io/port": String(exp.metricsPort), "prometheus.io/path": "/metrics" };
      expect(svc.metadata.annotations).toEqual(scrape);
      expect(get(run, "Deployment", name).spec.template.metadata.annotations).toEqual(scrape);
    });

    it("HorizontalPodAutoscaler and PodDisruptionBudget follow the stack's numbers", () => {
      const hpa = get(run, "HorizontalPodAutoscaler", name);
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name });
      expect(hpa.spec.minReplicas).toBe(setting("replicas"));
      expect(hpa.spec.maxReplicas).toBe(setting("maxReplicas"));
      expect(hpa.spec.metrics[0].resource.name).toBe("cpu");
      const pdb = get(run, "PodDisruptionBudget", name);
      expect(pdb.spec).toEqual({ minAvailable: setting("minAvailable"), selector: { matchLabels: selector } });
    });

    it("ServiceAccount: used by the pods, no API token mounted", () => {
      const sa = get(run, "ServiceAccount", name);
      const pod = get(run, "Deployment", name).spec.template.spec;
      expect(sa.automountServiceAccountToken).toBe(false);
      expect(pod.serviceAccountName).toBe(sa.metadata.name);
      expect(pod.automountServiceAccountToken).toBe(false);
    });

    it("NetworkPolicy: isolates the pods and admits only the expected callers on each port", () => {
      const np = get(run, "NetworkPolicy", name);
      expect(np.spec.podSelector).toEqual({ matchLabels: selector });
      expect(np.spec.policyTypes).toEqual(["Ingress"]);
      const callers: Record<number, string[]> = {};
      for (const rule of np.spec.ingress) {
        // A rule without peers or ports would admit everyone or every port.
        expect(rule.from?.length).toBeGreaterThan(0);
        expect(rule.ports?.length).toBeGreaterThan(0);
        for (const p of rule.ports) (callers[p.port] ??= []).push(...rule.from.map(describePeer));
      }
      const sorted = (m: Record<number, string[]>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, [...v].sort()]));
      expect(sorted(callers)).toEqual(sorted(exp.callers));
    });
  });

  it("the authz-engine receives the stack's OIDC authn block", () => {
    const env = envOf(run, "authz-engine");
    const plain = (k: string) => env.get(k)?.value;
    expect(plain("AUTHN_MODE")).toBe("oidc");
    expect(plain("AUTHN_OIDC_SERVER_URL")).toBe(values["gatehouse:authn.oidcServerUrl"]);
    expect(plain("AUTHN_OIDC_CLIENT_ID")).toBe(COMMON.authnClientId);
    expect(plain("AUTHN_OIDC_SKIP_CLIENT_ID_CHECK")).toBe(String(values["gatehouse:authn.skipClientIdCheck"]));
    expect(plain("AUTHN_OIDC_INSECURE_CLIENT")).toBe("false");
    expect(JSON.parse(plain("AUTHZ_REPORTERS"))).toEqual({ "service-account-inventory": { resource_types: ["hbi/host"], allow_any_org: true } });
    expect([plain("AUTHZ_METRICS_PORT"), plain("AUTHZ_GRPC_PORT")]).toEqual(["9000", "9091"]);
    // Nothing the engine does not read.
    for (const unread of ["METRICS_PORT", "PORT", "REDIS_URL"]) expect(env.has(unread), unread).toBe(false);
  });
});

describe("stage and prod", () => {
  const runs: Record<string, Run> = {};
  beforeAll(async () => {
    runs["stage"] = await runStack("stage");
    runs["prod"] = await runStack("prod");
  });

  it.each(SERVICE_NAMES)("%s: prod runs more replicas and tolerates fewer disrupted pods", (name) => {
    const hpa = (s: string) => get(runs[s]!, "HorizontalPodAutoscaler", name).spec;
    const pdb = (s: string) => get(runs[s]!, "PodDisruptionBudget", name).spec.minAvailable as number;
    expect(hpa("prod").minReplicas).toBeGreaterThan(hpa("stage").minReplicas);
    expect(hpa("prod").maxReplicas).toBeGreaterThan(hpa("stage").maxReplicas);
    expect(pdb("prod")).toBeGreaterThan(pdb("stage"));
    // Stricter also relative to size: a larger share of prod's pods must stay up.
    expect(pdb("prod") / hpa("prod").minReplicas).toBeGreaterThan(pdb("stage") / hpa("stage").minReplicas);
  });
});

describe("a namespace provided by the platform", () => {
  it("creates no Namespace and still places every object in it", async () => {
    const run = await runStack("prod", { "gatehouse:createNamespace": "false" });
    expect([...run.objects.keys()].filter((k) => k.startsWith("Namespace/"))).toEqual([]);
    expect(run.objects.size).toBe(SHARED.length + SERVICE_NAMES.length * KINDS.length);
    for (const [key, obj] of run.objects) expect(obj.metadata.namespace, key).toBe("gatehouse-prod");
  });
});
