// What the tests expect, as data. STACKS is the reviewed difference between stage and prod: the
// stack-files test fails if Pulumi.stage.yaml and Pulumi.prod.yaml differ anywhere not listed here.
import type { ServiceName } from "../../src/config.js";

export interface StackExpectation {
  stack: "stage" | "prod";
  /** Leaf paths of the stack file (`gatehouse:key.sub`) whose values differ between the stacks. */
  values: Record<string, string | number | boolean>;
}

const perService = (replicas: number, maxReplicas: number[], minAvailable: number) => ({
  "gatehouse:services.management-api.replicas": replicas,
  "gatehouse:services.management-api.maxReplicas": maxReplicas[0]!,
  "gatehouse:services.management-api.minAvailable": minAvailable,
  "gatehouse:services.authz-engine.replicas": replicas,
  "gatehouse:services.authz-engine.maxReplicas": maxReplicas[1]!,
  "gatehouse:services.authz-engine.minAvailable": minAvailable,
  "gatehouse:services.workspace-cache.replicas": replicas,
  "gatehouse:services.workspace-cache.maxReplicas": maxReplicas[2]!,
  "gatehouse:services.workspace-cache.minAvailable": minAvailable,
});

/** Each stack reads its own entries of the secret store. */
const secretStoreKeys = (stack: string) => ({
  "gatehouse:externalSecrets.databaseUrl.key": `gatehouse/${stack}/postgres`,
  "gatehouse:externalSecrets.databaseReadUrl.key": `gatehouse/${stack}/postgres`,
  "gatehouse:externalSecrets.redisUrl.key": `gatehouse/${stack}/redis`,
  "gatehouse:externalSecrets.authzClientSecret.key": `gatehouse/${stack}/oidc-client`,
});

export const STACKS: StackExpectation[] = [
  {
    stack: "stage",
    values: {
      "gatehouse:environment": "stage",
      "gatehouse:namespace": "gatehouse-stage",
      "gatehouse:logLevel": "debug",
      "gatehouse:oidc.issuerUrl": "https://sso.stage.redhat.com/auth/realms/redhat-external",
      "gatehouse:authn.oidcServerUrl": "https://sso.stage.redhat.com/auth/realms/redhat-external",
      "gatehouse:authn.skipClientIdCheck": true,
      "gatehouse:expose.host": "gatehouse.apps.stage.example.com",
      ...secretStoreKeys("stage"),
      ...perService(2, [4, 4, 3], 1),
      "gatehouse:engine.relationships": 10_000_000,
      "gatehouse:checkpoints.intervalSeconds": 300,
    },
  },
  {
    stack: "prod",
    values: {
      "gatehouse:environment": "prod",
      "gatehouse:namespace": "gatehouse-prod",
      "gatehouse:logLevel": "info",
      "gatehouse:oidc.issuerUrl": "https://sso.redhat.com/auth/realms/redhat-external",
      "gatehouse:authn.oidcServerUrl": "https://sso.redhat.com/auth/realms/redhat-external",
      "gatehouse:authn.skipClientIdCheck": false,
      "gatehouse:expose.host": "gatehouse.apps.example.com",
      ...secretStoreKeys("prod"),
      ...perService(3, [10, 12, 6], 2),
      "gatehouse:engine.relationships": 100_000_000,
      "gatehouse:checkpoints.intervalSeconds": 3600,
    },
  },
];

/** Same in both stacks. */
export const COMMON = {
  imageRegistry: "quay.io/gatehouse",
  imageTag: "0.1.0",
  ingressNamespace: "openshift-ingress",
  monitoringNamespace: "openshift-user-workload-monitoring",
  authnClientId: "gatehouse-authz",
  otlpEndpoint: "http://otel-collector.openshift-monitoring.svc.cluster.local:4318",
};

/** Who may reach a port: `namespace:<name>`, `authz-clients` (labelled pods, any namespace), `gatehouse:<service>`. */
export interface ServiceExpectation {
  ports: Record<string, number>;
  metricsPort: number;
  probes: "http" | "grpc";
  secretEnv: Record<string, string>;
  callers: Record<number, string[]>;
}

const monitoring = `namespace:${COMMON.monitoringNamespace}`;

export const SERVICES: Record<ServiceName, ServiceExpectation> = {
  "management-api": {
    ports: { http: 8000 },
    metricsPort: 8000,
    probes: "http",
    secretEnv: { DATABASE_URL: "database-url" },
    callers: { 8000: [`namespace:${COMMON.ingressNamespace}`, "authz-clients", monitoring] },
  },
  "authz-engine": {
    ports: { grpc: 9091, http: 9000 },
    metricsPort: 9000,
    probes: "grpc",
    secretEnv: { DATABASE_URL: "database-url", DATABASE_READ_URL: "database-read-url" },
    callers: { 9091: ["authz-clients", "gatehouse:management-api"], 9000: [`namespace:${COMMON.ingressNamespace}`, "authz-clients", monitoring] },
  },
  "workspace-cache": {
    ports: { http: 8001 },
    metricsPort: 8001,
    probes: "http",
    secretEnv: { DATABASE_URL: "database-url", REDIS_URL: "redis-url" },
    callers: { 8001: ["authz-clients", monitoring] },
  },
};
