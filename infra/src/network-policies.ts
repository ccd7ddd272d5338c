// Who may call which port. Each service's NetworkPolicy admits only the peers listed here; everything
// else is denied because the policy selects the pods.
import type * as k8s from "@pulumi/kubernetes";
import type { GatehouseConfig, ServiceName } from "./config.js";
import type { IngressSpec } from "./components/service-component.js";
import { PUBLIC_ROUTES, type PublicRoute } from "./route-table.js";

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

/**
 * The ingress controller (or router) may reach exactly the ports the public route table sends paths
 * to: a NetworkPolicy cannot see paths, so each (service, port) some path prefix goes to is opened to
 * the ingress namespace, and no other.
 */
export function publicPorts(service: ServiceName, routes: readonly PublicRoute[] = PUBLIC_ROUTES): string[] {
  return [...new Set(routes.filter((r) => r.backend.service === service).map((r) => r.backend.port))];
}

export function ingressRules(cfg: GatehouseConfig, routes: readonly PublicRoute[] = PUBLIC_ROUTES): Record<ServiceName, IngressSpec[]> {
  const monitoring = namespace(cfg.monitoringNamespace);
  const fromIngress = (service: ServiceName): IngressSpec[] => {
    const ports = publicPorts(service, routes);
    return ports.length > 0 ? [{ ports, from: [namespace(cfg.ingressNamespace)] }] : [];
  };
  return {
    // Users arrive through the ingress controller (the route table's paths); applications call the
    // management API directly for workspace lookups.
    "management-api": [...fromIngress("management-api"), { ports: ["http"], from: [authzClients] }, { ports: ["http"], from: [monitoring] }],
    "authz-engine": [
      { ports: ["grpc"], from: [authzClients, gatehouse("management-api")] },
      // The HTTP/JSON checks (/api/kessel/v1beta2/checkself...) come from browsers through the ingress
      // controller and from applications; the same port serves /metrics to monitoring.
      ...fromIngress("authz-engine"),
      { ports: ["http"], from: [authzClients] },
      { ports: ["http"], from: [monitoring] },
    ],
    "workspace-cache": [...fromIngress("workspace-cache"), { ports: ["http"], from: [authzClients] }, { ports: ["http"], from: [monitoring] }],
  };
}
