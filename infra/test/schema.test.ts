// Every rendered object is validated against the Kubernetes OpenAPI schemas (kubernetes-models),
// plus the cross-field rules the API server enforces that a schema cannot express.
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import { describe, expect, it } from "vitest";
import { runStack } from "./support/mocks.js";
import type { K8sObject } from "./support/objects.js";

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: K8sObject): { validate(): void };
}
const MODELS: ModelClass[] = [Namespace, Secret, ServiceAccount, Service, Deployment, HorizontalPodAutoscaler, PodDisruptionBudget, NetworkPolicy];

function validate(obj: K8sObject): void {
  const Model = MODELS.find((m) => m.kind === obj.kind);
  if (!Model) throw new Error(`no schema model for kind ${obj.kind}`);
  expect(obj.apiVersion, obj.kind).toBe(Model.apiVersion);
  new Model(obj).validate();
}

/** Rules the API server checks beyond the schema. */
function apiServerRules(obj: K8sObject): void {
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

describe.each([
  ["stage", {}],
  ["prod", {}],
  ["prod rendered as YAML", { "gatehouse:renderYamlTo": "rendered", "gatehouse:databaseUrl": undefined, "gatehouse:redisUrl": undefined }],
] as const)("%s", (label, overrides) => {
  it("every object is valid against its Kubernetes schema", async () => {
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
});
