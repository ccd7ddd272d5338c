// Every rendered object is validated against the Kubernetes OpenAPI schemas (kubernetes-models, which
// compiles the published API schemas), custom resources against their published CRDs' schemas
// (test/schemas/), plus the cross-field rules the API server enforces that a schema cannot express.
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Job } from "kubernetes-models/batch/v1/Job";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import { describe, expect, it } from "vitest";
import { CRD_SCHEMAS, validateCustomResource } from "./support/crd-schemas.js";
import { PULUMI_SECRETS, runStack } from "./support/mocks.js";
import type { K8sObject } from "./support/objects.js";

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: K8sObject): { validate(): void };
}
const MODELS: ModelClass[] = [Namespace, Secret, ConfigMap, ServiceAccount, Service, Deployment, Job, HorizontalPodAutoscaler, PodDisruptionBudget, NetworkPolicy, Ingress];

function validate(obj: K8sObject): void {
  const Model = MODELS.find((m) => m.kind === obj.kind);
  if (!Model) return validateCustomResource(obj);
  expect(obj.apiVersion, obj.kind).toBe(Model.apiVersion);
  new Model(obj).validate();
}

/** Rules the API server checks beyond the schema. */
function apiServerRules(obj: K8sObject): void {
  if (obj.kind === "Job") expect(["Never", "OnFailure"]).toContain(obj.spec.template.spec.restartPolicy);
  if (obj.kind !== "Deployment") return;
  const template = obj.spec.template;
  for (const [k, v] of Object.entries(obj.spec.selector.matchLabels)) expect(template.metadata.labels[k], `selector ${k}`).toBe(v);
  for (const c of template.spec.containers) {
    const named = new Set(c.ports.map((p: K8sObject) => p.name));
    const numbers = new Set(c.ports.map((p: K8sObject) => p.containerPort));
    for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
      const port = probe.httpGet?.port ?? probe.grpc?.port;
      expect(typeof port === "string" ? named.has(port) : numbers.has(port), `probe port ${port}`).toBe(true);
    }
    const volumes = new Set(template.spec.volumes.map((v: K8sObject) => v.name));
    for (const m of c.volumeMounts) expect(volumes.has(m.name), `volume ${m.name}`).toBe(true);
    for (const p of c.ports) expect(p.name.length, `port name ${p.name}`).toBeLessThanOrEqual(15);
  }
}

const INGRESS = { "gatehouse:expose": JSON.stringify({ via: "ingress", host: "gatehouse.example.com", ingressClassName: "nginx", tlsSecretName: "gatehouse-tls" }) };
const VOLUME_CHECKPOINTS = { "gatehouse:checkpoints": JSON.stringify({ store: "volume", claimName: "gatehouse-checkpoints", intervalSeconds: 120 }) };

describe.each([
  ["stage", {}],
  ["prod", {}],
  ["prod rendered as YAML", { "gatehouse:renderYamlTo": "rendered" }],
  ["stage with Pulumi secrets, an Ingress and checkpoints on a volume", { ...PULUMI_SECRETS, ...INGRESS, ...VOLUME_CHECKPOINTS }],
] as const)("%s", (label, overrides) => {
  it("every object is valid against its Kubernetes or CRD schema", async () => {
    const run = await runStack(label.split(" ")[0]!, overrides);
    expect(run.objects.size).toBeGreaterThan(0);
    for (const [key, obj] of run.objects) {
      try {
        validate(obj);
        apiServerRules(obj);
      } catch (e) {
        throw new Error(`${key}: ${(e as Error).message}`);
      }
    }
  });
});

describe("the validator", () => {
  it("rejects a malformed Deployment (so the checks above can fail)", async () => {
    const run = await runStack("stage");
    const broken = structuredClone(run.objects.get("Deployment/authz-engine"));
    broken.spec.template.spec.containers[0].ports[0].containerPort = "9091";
    expect(() => validate(broken)).toThrow(/containerPort must be integer/);
    const unlabelled = structuredClone(run.objects.get("Deployment/authz-engine"));
    unlabelled.spec.template.metadata.labels = {};
    expect(() => apiServerRules(unlabelled)).toThrow(/selector/);
  });

  it("rejects custom resources that break their CRD schemas, and kinds it has no schema for", async () => {
    const run = await runStack("prod");
    const monitor = structuredClone(run.objects.get("ServiceMonitor/authz-engine"));
    monitor.spec.endpoints[0].scrapeInterval = "30s"; // the field is `interval`
    expect(() => validate(monitor)).toThrow(/must NOT have additional properties/);
    const route = structuredClone(run.objects.get("Route/gatehouse"));
    route.spec.tls.termination = "terminate-at-edge";
    expect(() => validate(route)).toThrow(/must be equal to one of the allowed values/);
    const rule = structuredClone(run.objects.get("PrometheusRule/gatehouse"));
    delete rule.spec.groups[0].name;
    expect(() => validate(rule)).toThrow(/must have required property 'name'/);
    const external = structuredClone(run.objects.get("ExternalSecret/gatehouse-connections"));
    external.spec.data[0].remoteRef = { property: "url" };
    expect(() => validate(external)).toThrow(/must have required property 'key'/);
    expect(() => validate({ apiVersion: "example.com/v1", kind: "Widget" })).toThrow(/no vendored CRD schema/);
  });

  it("has a vendored schema, with its source, for each custom resource kind the program creates", () => {
    expect([...CRD_SCHEMAS.keys()].sort()).toEqual([
      "external-secrets.io/v1/ExternalSecret",
      "monitoring.coreos.com/v1/PrometheusRule",
      "monitoring.coreos.com/v1/ServiceMonitor",
      "route.openshift.io/v1/Route",
    ]);
    for (const schema of CRD_SCHEMAS.values()) expect(schema.source).toMatch(/Apache-2\.0$/);
  });
});
