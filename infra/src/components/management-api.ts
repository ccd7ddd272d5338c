import { ingressRules } from "../network-policies.js";
import { commonEnv, httpAuthEnv, secretEnv } from "./env.js";
import { imageFor } from "./image.js";
import { httpProbes } from "./probes.js";
import { ServiceComponent, type ServiceContext } from "./service-component.js";

export const MANAGEMENT_API_PORT = 8000;

/** HTTP/JSON `/api/rbac/v2`; `/metrics` is served on the same port. */
export function managementApi({ cfg, namespace, secretName, before, opts }: ServiceContext): ServiceComponent {
  const name = "management-api";
  return new ServiceComponent(
    {
      name,
      namespace,
      environment: cfg.environment,
      image: imageFor(cfg, name),
      settings: cfg.services[name],
      ports: [{ name: "http", port: MANAGEMENT_API_PORT, appProtocol: "http" }],
      metrics: { port: "http", path: "/metrics" },
      probes: httpProbes("http"),
      env: [...commonEnv(cfg, name, MANAGEMENT_API_PORT), secretEnv("DATABASE_URL", secretName, "databaseUrl"), ...httpAuthEnv(cfg)],
      ingress: ingressRules(cfg)[name],
      serviceMonitor: cfg.monitoring,
      before,
    },
    opts,
  );
}
