import { ingressRules } from "../network-policies.js";
import { commonEnv, engineAuthnEnv, secretEnv } from "./env.js";
import { imageFor } from "./image.js";
import { grpcProbes } from "./probes.js";
import { ServiceComponent, type ServiceContext } from "./service-component.js";

export const AUTHZ_ENGINE_PORT = 9091;
export const AUTHZ_ENGINE_METRICS_PORT = 9000;

/** gRPC kessel.inventory.v1beta2 on 9091 with grpc.health.v1; metrics and HTTP health on 9000. */
export function authzEngine({ cfg, namespace, secretName, opts }: ServiceContext): ServiceComponent {
  const name = "authz-engine";
  return new ServiceComponent(
    {
      name,
      namespace,
      environment: cfg.environment,
      image: imageFor(cfg, name),
      settings: cfg.services[name],
      ports: [
        { name: "grpc", port: AUTHZ_ENGINE_PORT, appProtocol: "grpc" },
        { name: "metrics", port: AUTHZ_ENGINE_METRICS_PORT, appProtocol: "http" },
      ],
      metrics: { port: "metrics", path: "/metrics" },
      probes: grpcProbes(AUTHZ_ENGINE_PORT, "metrics"),
      env: [
        ...commonEnv(cfg, AUTHZ_ENGINE_PORT),
        { name: "METRICS_PORT", value: String(AUTHZ_ENGINE_METRICS_PORT) },
        // The engine's entry point currently reads the AUTHZ_-prefixed names (its metrics default is
        // another port); both are set so probes and scrapes hit the port the process listens on.
        { name: "AUTHZ_GRPC_PORT", value: String(AUTHZ_ENGINE_PORT) },
        { name: "AUTHZ_METRICS_PORT", value: String(AUTHZ_ENGINE_METRICS_PORT) },
        secretEnv("DATABASE_URL", secretName, "databaseUrl"),
        secretEnv("REDIS_URL", secretName, "redisUrl"),
        ...engineAuthnEnv(cfg),
      ],
      ingress: ingressRules(cfg)[name],
    },
    opts,
  );
}
