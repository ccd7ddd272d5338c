// How browsers and applications reach Gatehouse from outside the cluster: one origin, whose path
// prefixes go where the route table (../route-table.ts) says: `/api/kessel/` to the engine's HTTP
// port (inventory-api's HTTP/JSON checks), the rest (`/api/rbac/...`, `/console/`) to the management
// API. An Ingress with one path per prefix, or on OpenShift one Route per prefix (a Route has one
// path and one Service). The workspace cache and the engine's gRPC port stay in-cluster.
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { ExposeConfig } from "../config.js";
import { PUBLIC_ROUTES, type PublicRoute } from "../route-table.js";

/**
 * The name of the Route serving a prefix: `gatehouse` for `/` (the name it had when it was the only
 * one), `gatehouse-<prefix as words>` for the others (`/api/kessel/` → `gatehouse-api-kessel`).
 */
export function routeName(route: PublicRoute): string {
  const words = route.pathPrefix.split("/").filter(Boolean);
  return ["gatehouse", ...words].join("-");
}

export function exposure(
  expose: ExposeConfig,
  namespace: pulumi.Input<string>,
  labels: Record<string, string>,
  opts: pulumi.CustomResourceOptions,
  routes: readonly PublicRoute[] = PUBLIC_ROUTES,
): pulumi.CustomResource[] {
  if (expose.via === "route") return routes.map((route) => openShiftRoute(route, expose, namespace, labels, opts));
  return [
    new k8s.networking.v1.Ingress(
      "gatehouse",
      {
        metadata: { name: "gatehouse", namespace, labels },
        spec: {
          ...(expose.ingressClassName ? { ingressClassName: expose.ingressClassName } : {}),
          tls: [{ hosts: [expose.host], ...(expose.tlsSecretName ? { secretName: expose.tlsSecretName } : {}) }],
          rules: [
            {
              host: expose.host,
              // Prefix matching is by whole path elements and the longest prefix wins, whatever the order.
              http: {
                paths: routes.map((route) => ({
                  path: route.pathPrefix,
                  pathType: "Prefix",
                  backend: { service: { name: route.backend.service, port: { name: route.backend.port } } },
                })),
              },
            },
          ],
        },
      },
      opts,
    ),
  ];
}

function openShiftRoute(route: PublicRoute, expose: ExposeConfig, namespace: pulumi.Input<string>, labels: Record<string, string>, opts: pulumi.CustomResourceOptions): pulumi.CustomResource {
  const name = routeName(route);
  return new k8s.apiextensions.CustomResource(
    name,
    {
      apiVersion: "route.openshift.io/v1",
      kind: "Route",
      metadata: { name, namespace, labels },
      spec: {
        host: expose.host,
        // The router sends a request to the Route of the same host with the longest matching path;
        // `/` needs none (it matches what no other path does).
        ...(route.pathPrefix === "/" ? {} : { path: route.pathPrefix }),
        to: { kind: "Service", name: route.backend.service, weight: 100 },
        port: { targetPort: route.backend.port },
        // TLS ends at the router; plain HTTP is redirected, never served.
        tls: { termination: "edge", insecureEdgeTerminationPolicy: "Redirect" },
        wildcardPolicy: "None",
      },
    },
    opts,
  );
}

/** The public URL of the one origin (API, console and the HTTP/JSON checks). */
export function publicUrl(expose: ExposeConfig): string {
  return `https://${expose.host}`;
}
