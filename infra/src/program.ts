// The Gatehouse deployment: a namespace, the connections Secret and one component per service.
// `deploy` is the whole program; `index.ts` only loads the stack's configuration and calls it.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { authzEngine } from "./components/authz-engine.js";
import { SECRET_KEYS } from "./components/env.js";
import { managementApi } from "./components/management-api.js";
import type { ServiceComponent, ServiceContext } from "./components/service-component.js";
import { workspaceCache } from "./components/workspace-cache.js";
import type { GatehouseConfig, ServiceName } from "./config.js";
import { stackOutputs, type StackOutputs } from "./outputs.js";

export interface Deployed {
  provider: k8s.Provider;
  /** Absent when the namespace is provided by the platform (`createNamespace: false`). */
  namespace?: k8s.core.v1.Namespace;
  /** Absent when rendering YAML: the Secret is then created out of band (see README). */
  secret?: k8s.core.v1.Secret;
  services: Record<ServiceName, ServiceComponent>;
  outputs: StackOutputs;
}

export function deploy(cfg: GatehouseConfig): Deployed {
  // With `renderYamlTo` set, nothing touches a cluster: every object is written as YAML for kubectl.
  const provider = new k8s.Provider("gatehouse", cfg.renderYamlTo ? { renderYamlToDirectory: cfg.renderYamlTo } : {});
  const labels = { "app.kubernetes.io/part-of": "gatehouse", "gatehouse.io/environment": cfg.environment };

  const namespace = cfg.createNamespace ? new k8s.core.v1.Namespace("gatehouse", { metadata: { name: cfg.namespace, labels } }, { provider }) : undefined;
  // The Namespace's output (when created here) makes every object wait for it.
  const namespaceName = namespace ? namespace.metadata.name : pulumi.output(cfg.namespace);

  // Auto-named, so a changed value replaces the Secret under a new name and rolls every Deployment.
  const secret = cfg.connections
    ? new k8s.core.v1.Secret(
        "gatehouse-connections",
        {
          metadata: { namespace: namespaceName, labels },
          type: "Opaque",
          stringData: { [SECRET_KEYS.databaseUrl]: cfg.connections.databaseUrl, [SECRET_KEYS.redisUrl]: cfg.connections.redisUrl },
        },
        { provider },
      )
    : undefined;

  const ctx: ServiceContext = {
    cfg,
    namespace: namespaceName,
    secretName: secret ? secret.metadata.name : cfg.secretName,
    opts: { providers: [provider] },
  };
  const services: Record<ServiceName, ServiceComponent> = {
    "management-api": managementApi(ctx),
    "authz-engine": authzEngine(ctx),
    "workspace-cache": workspaceCache(ctx),
  };
  return {
    provider,
    ...(namespace ? { namespace } : {}),
    ...(secret ? { secret } : {}),
    services,
    outputs: stackOutputs(cfg, namespaceName, services),
  };
}

/** Every Kubernetes object the program creates (not the provider or the components). */
export function kubernetesObjects(d: Deployed): pulumi.CustomResource[] {
  return [...(d.namespace ? [d.namespace] : []), ...(d.secret ? [d.secret] : []), ...Object.values(d.services).flatMap((s) => s.resources)];
}
