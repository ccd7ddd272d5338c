// Probe sets. Liveness only asks "is the process serving at all"; readiness asks "may traffic come"
// (store reachable, graph caught up); the startup probe gives a slow first start room before
// liveness may restart the pod.
import type * as k8s from "@pulumi/kubernetes";

type Probe = k8s.types.input.core.v1.Probe;
export interface ProbeSet {
  liveness: Probe;
  readiness: Probe;
  startup: Probe;
}

const timing = { periodSeconds: 10, timeoutSeconds: 2 };
// Up to two minutes to open the ports: connecting to the store and checking migrations come first.
const startupTiming = { periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 60 };

/** HTTP `/livez` and `/readyz` on a named container port. */
export function httpProbes(port: string): ProbeSet {
  return {
    liveness: { httpGet: { path: "/livez", port }, ...timing, failureThreshold: 3 },
    readiness: { httpGet: { path: "/readyz", port }, ...timing, failureThreshold: 2 },
    startup: { httpGet: { path: "/livez", port }, ...startupTiming },
  };
}

/**
 * The authz-engine: readiness uses the standard `grpc.health.v1.Health` service on the gRPC port, which
 * reports SERVING only once the graph snapshot is loaded and the change feed is healthy. Liveness and
 * startup use the HTTP `/livez` of the engine's HTTP port, so a long snapshot load or a lagging feed keeps the
 * pod out of rotation but never gets it restarted.
 */
export function grpcProbes(grpcPort: number, httpPort: string, startBudgetSeconds: number): ProbeSet {
  const period = 5;
  return {
    liveness: { httpGet: { path: "/livez", port: httpPort }, ...timing, failureThreshold: 3 },
    readiness: { grpc: { port: grpcPort }, ...timing, failureThreshold: 2 },
    startup: { httpGet: { path: "/livez", port: httpPort }, periodSeconds: period, timeoutSeconds: 2, failureThreshold: Math.ceil(startBudgetSeconds / period) },
  };
}
