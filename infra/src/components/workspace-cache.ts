import { ingressRules } from "../network-policies.js";
import { commonEnv, httpAuthEnv, secretEnv } from "./env.js";
import { imageFor } from "./image.js";
import { httpProbes } from "./probes.js";
import { ServiceComponent, type ServiceContext } from "./service-component.js";

export const WORKSPACE_CACHE_PORT = 8001;

/** Root/default workspace lookups and list results cached in Redis; `/metrics` on the same port. */
export function workspaceCache({ cfg, namespace, secretName, before, opts }: ServiceContext): ServiceComponent {
  const name = "workspace-cache";
  return new ServiceComponent(
    {
      name,
      namespace,
      environment: cfg.environment,
      image: imageFor(cfg, name),
      settings: cfg.services[name],
      ports: [{ name: "http", port: WORKSPACE_CACHE_PORT, appProtocol: "http" }],
      metrics: { port: "http", path: "/metrics" },
      probes: httpProbes("http"),
      env: [...commonEnv(cfg, name, WORKSPACE_CACHE_PORT), secretEnv("DATABASE_URL", secretName, "databaseUrl"), secretEnv("REDIS_URL", secretName, "redisUrl"), ...httpAuthEnv(cfg)],
      ingress: ingressRules(cfg)[name],
      serviceMonitor: cfg.monitoring,
      before,
    },
    opts,
  );
}
