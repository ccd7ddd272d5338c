// The Gatehouse deployment: a namespace, the connections Secret (or the ExternalSecret that makes
// it), the migrations Job, one component per service, the Ingress or Routes, and the monitoring
// objects. `deploy` is the whole program; `index.ts` only loads the stack's configuration and calls it.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { authzEngine } from "./components/authz-engine.js";
import { connections } from "./components/connections.js";
import { exposure } from "./components/exposure.js";
import { managementApi } from "./components/management-api.js";
import { migrationsJob } from "./components/migrations-job.js";
import { monitoring } from "./components/monitoring.js";
import type { ServiceComponent, ServiceContext } from "./components/service-component.js";
import { workspaceCache } from "./components/workspace-cache.js";
import type { GatehouseConfig, ServiceName } from "./config.js";
import { stackOutputs, type StackOutputs } from "./outputs.js";

export interface Deployed {
  provider: k8s.Provider;
  /** Absent when the namespace is provided by the platform (`createNamespace: false`). */
  namespace?: k8s.core.v1.Namespace;
  /** The Secret (Pulumi secrets) or the ExternalSecret; none when rendering without a secret store. */
  connections: pulumi.CustomResource[];
  migrations: k8s.batch.v1.Job;
  services: Record<ServiceName, ServiceComponent>;
  /** The Ingress, or one Route per public path prefix, when `expose` is configured (else none). */
  exposure: pulumi.CustomResource[];
  /** PrometheusRule and dashboard ConfigMap, when `monitoring` is on. */
  monitoring: pulumi.CustomResource[];
  outputs: StackOutputs;
}

export function deploy(cfg: GatehouseConfig): Deployed {
  // With `renderYamlTo` set, nothing touches a cluster: every object is written as YAML for kubectl.
  const provider = new k8s.Provider("gatehouse", cfg.renderYamlTo ? { renderYamlToDirectory: cfg.renderYamlTo } : {});
  const labels = { "app.kubernetes.io/part-of": "gatehouse", "gatehouse.io/environment": cfg.environment };
  const opts = { provider };

  const namespace = cfg.createNamespace ? new k8s.core.v1.Namespace("gatehouse", { metadata: { name: cfg.namespace, labels } }, opts) : undefined;
  // The Namespace's output (when created here) makes every object wait for it.
  const namespaceName = namespace ? namespace.metadata.name : pulumi.output(cfg.namespace);

  const conn = connections(cfg, namespaceName, labels, opts);
  const migrations = migrationsJob(cfg, namespaceName, conn.secretName, labels, { ...opts, dependsOn: conn.resources });
  const ctx: ServiceContext = {
    cfg,
    namespace: namespaceName,
    secretName: conn.secretName,
    hasReadReplica: conn.hasReadReplica,
    before: [migrations],
    opts: { providers: [provider] },
  };
  const services: Record<ServiceName, ServiceComponent> = {
    "management-api": managementApi(ctx),
    "authz-engine": authzEngine(ctx),
    "workspace-cache": workspaceCache(ctx),
  };
  const exposed = cfg.expose ? exposure(cfg.expose, namespaceName, labels, opts) : [];
  return {
    provider,
    ...(namespace ? { namespace } : {}),
    connections: conn.resources,
    migrations,
    services,
    exposure: exposed,
    monitoring: cfg.monitoring ? monitoring(namespaceName, labels, opts) : [],
    outputs: stackOutputs(cfg, namespaceName, services, conn),
  };
}

/** Every Kubernetes object the program creates (not the provider or the components). */
export function kubernetesObjects(d: Deployed): pulumi.CustomResource[] {
  return [...(d.namespace ? [d.namespace] : []), ...d.connections, d.migrations, ...Object.values(d.services).flatMap((s) => s.resources), ...d.exposure, ...d.monitoring];
}
