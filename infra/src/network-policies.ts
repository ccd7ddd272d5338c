// Who may call which port. Each service's NetworkPolicy admits only the peers listed here; everything
// else is denied because the policy selects the pods.
import type * as k8s from "@pulumi/kubernetes";
import type { GatehouseConfig, ServiceName } from "./config.js";
import type { IngressSpec } from "./components/service-component.js";

type Peer = k8s.types.input.networking.v1.NetworkPolicyPeer;

/** Label an application's pods carry to reach the authz-engine and workspace-cache (in any namespace). */
export const AUTHZ_CLIENT_LABEL = "gatehouse.io/authz-client";

export const authzClients: Peer = { namespaceSelector: {}, podSelector: { matchLabels: { [AUTHZ_CLIENT_LABEL]: "true" } } };

export function namespace(name: string): Peer {
  return { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": name } } };
}

/** Pods of another Gatehouse service in the same namespace. */
export function gatehouse(service: ServiceName): Peer {
  return { podSelector: { matchLabels: { "app.kubernetes.io/name": service, "app.kubernetes.io/part-of": "gatehouse" } } };
}

export function ingressRules(cfg: GatehouseConfig): Record<ServiceName, IngressSpec[]> {
  const monitoring = namespace(cfg.monitoringNamespace);
  return {
    // Users arrive through the ingress controller; applications call it directly for workspace lookups.
    "management-api": [
      { ports: ["http"], from: [namespace(cfg.ingressNamespace), authzClients] },
      { ports: ["http"], from: [monitoring] },
    ],
    "authz-engine": [
      { ports: ["grpc"], from: [authzClients, gatehouse("management-api")] },
      // The HTTP/JSON checks (/api/kessel/v1beta2/checkself...) come from browsers through the ingress
      // controller and from applications; the same port serves /metrics to monitoring.
      { ports: ["http"], from: [namespace(cfg.ingressNamespace), authzClients] },
      { ports: ["http"], from: [monitoring] },
    ],
    "workspace-cache": [
      { ports: ["http"], from: [authzClients] },
      { ports: ["http"], from: [monitoring] },
    ],
  };
}
