// How users reach the management API and the console (`/api/rbac/...` and `/console/` are both served
// by the management API) from outside the cluster: an Ingress, or on OpenShift a Route. The engine
// and the workspace cache stay in-cluster. The NetworkPolicy admits the ingress namespace's pods.
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { ExposeConfig } from "../config.js";

/** The Service the Ingress or Route sends traffic to, and its named port. */
const BACKEND = { service: "management-api", port: "http" } as const;

export function exposure(expose: ExposeConfig, namespace: pulumi.Input<string>, labels: Record<string, string>, opts: pulumi.CustomResourceOptions): pulumi.CustomResource {
  const metadata = { name: "gatehouse", namespace, labels };
  if (expose.via === "route") {
    return new k8s.apiextensions.CustomResource(
      "gatehouse",
      {
        apiVersion: "route.openshift.io/v1",
        kind: "Route",
        metadata,
        spec: {
          host: expose.host,
          to: { kind: "Service", name: BACKEND.service, weight: 100 },
          port: { targetPort: BACKEND.port },
          // TLS ends at the router; plain HTTP is redirected, never served.
          tls: { termination: "edge", insecureEdgeTerminationPolicy: "Redirect" },
          wildcardPolicy: "None",
        },
      },
      opts,
    );
  }
  return new k8s.networking.v1.Ingress(
    "gatehouse",
    {
      metadata,
      spec: {
        ...(expose.ingressClassName ? { ingressClassName: expose.ingressClassName } : {}),
        tls: [{ hosts: [expose.host], ...(expose.tlsSecretName ? { secretName: expose.tlsSecretName } : {}) }],
        rules: [
          {
            host: expose.host,
            http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: BACKEND.service, port: { name: BACKEND.port } } } }] },
          },
        ],
      },
    },
    opts,
  );
}

/** The public URL of the API and console. */
export function publicUrl(expose: ExposeConfig): string {
  return `https://${expose.host}`;
}
