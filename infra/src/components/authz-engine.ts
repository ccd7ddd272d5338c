import { ingressRules } from "../network-policies.js";
import { commonEnv, engineAuthnEnv, secretEnv } from "./env.js";
import { imageFor } from "./image.js";
import { grpcProbes } from "./probes.js";
import { ServiceComponent, type ServiceContext } from "./service-component.js";

export const AUTHZ_ENGINE_PORT = 9091;
export const AUTHZ_ENGINE_METRICS_PORT = 9000;

/**
 * gRPC kessel.inventory.v1beta2 on 9091 with grpc.health.v1; on 9000 (port `http`) inventory-api's
 * HTTP/JSON interface under /api/kessel/ (browser access checks), metrics and HTTP health.
 */
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
        { name: "http", port: AUTHZ_ENGINE_METRICS_PORT, appProtocol: "http" },
      ],
      metrics: { port: "http", path: "/metrics" },
      probes: grpcProbes(AUTHZ_ENGINE_PORT, "http"),
      env: [
        // Only what the engine reads (its schema: apps/authz-engine/src/settings.ts): its ports are
        // AUTHZ_GRPC_PORT / AUTHZ_METRICS_PORT, not PORT, and it uses no Redis.
        ...commonEnv(cfg, name, AUTHZ_ENGINE_PORT).filter((e) => e.name !== "PORT"),
        { name: "AUTHZ_GRPC_PORT", value: String(AUTHZ_ENGINE_PORT) },
        { name: "AUTHZ_METRICS_PORT", value: String(AUTHZ_ENGINE_METRICS_PORT) },
        secretEnv("DATABASE_URL", secretName, "databaseUrl"),
        ...engineAuthnEnv(cfg),
      ],
      ingress: ingressRules(cfg)[name],
    },
    opts,
  );
}
