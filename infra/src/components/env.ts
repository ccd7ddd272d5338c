// Environment variables shared by the services: the deployment's configuration surface.
import type * as pulumi from "@pulumi/pulumi";
import type { GatehouseConfig, ServiceName } from "../config.js";
import type { EnvSpec } from "./service-component.js";

/** Keys of the connections Secret. */
export const SECRET_KEYS = { databaseUrl: "database-url", redisUrl: "redis-url", databaseReadUrl: "database-read-url", authzClientSecret: "authz-client-secret" } as const;

export function commonEnv(cfg: GatehouseConfig, service: ServiceName, port: number): EnvSpec[] {
  return [
    ...tracingEnv(cfg, service),
    { name: "NODE_ENV", value: "production" },
    { name: "GATEHOUSE_ENV", value: cfg.environment },
    { name: "GATEHOUSE_DOMAIN", value: cfg.domain },
    { name: "LOG_LEVEL", value: cfg.logLevel },
    { name: "PORT", value: String(port) },
    { name: "SYSTEM_USERS", value: JSON.stringify(cfg.systemUsers) },
    // The migrations Job applies them once per release, before these pods start (migrations-job.ts).
    { name: "GATEHOUSE_MIGRATE_ON_START", value: "false" },
  ];
}

/**
 * The standard OpenTelemetry variables, on every deployment: the service's name, the sampler (the
 * services' default unless the stack says otherwise) and, when the stack names a collector, its
 * endpoint, which is what switches span export on.
 */
export function tracingEnv(cfg: GatehouseConfig, service: ServiceName): EnvSpec[] {
  const env: EnvSpec[] = [
    { name: "OTEL_SERVICE_NAME", value: service },
    { name: "OTEL_TRACES_SAMPLER", value: cfg.tracing.sampler },
    { name: "OTEL_TRACES_SAMPLER_ARG", value: String(cfg.tracing.samplerRatio) },
  ];
  if (cfg.tracing.otlpEndpoint) env.push({ name: "OTEL_EXPORTER_OTLP_ENDPOINT", value: cfg.tracing.otlpEndpoint });
  return env;
}

export function secretEnv(name: string, secretName: pulumi.Input<string>, key: keyof typeof SECRET_KEYS): EnvSpec {
  return { name, secretName, secretKey: SECRET_KEYS[key] };
}

/** Bearer-token verification settings of the HTTP services. */
export function httpAuthEnv(cfg: GatehouseConfig): EnvSpec[] {
  const env: EnvSpec[] = [{ name: "TRUST_IDENTITY_HEADER", value: String(cfg.trustIdentityHeader) }];
  if (cfg.oidc) {
    env.push({ name: "OIDC_ISSUER_URL", value: cfg.oidc.issuerUrl });
    if (cfg.oidc.audience) env.push({ name: "OIDC_AUDIENCE", value: cfg.oidc.audience });
  }
  return env;
}

/** The authz-engine's authn block. */
export function engineAuthnEnv(cfg: GatehouseConfig): EnvSpec[] {
  const a = cfg.authn;
  const env: EnvSpec[] = [{ name: "AUTHN_MODE", value: a.mode }];
  if (Object.keys(cfg.reporters).length > 0) env.push({ name: "AUTHZ_REPORTERS", value: JSON.stringify(cfg.reporters) });
  if (a.mode === "oidc") {
    if (a.oidcServerUrl) env.push({ name: "AUTHN_OIDC_SERVER_URL", value: a.oidcServerUrl });
    if (a.clientId) env.push({ name: "AUTHN_OIDC_CLIENT_ID", value: a.clientId });
    env.push({ name: "AUTHN_OIDC_SKIP_CLIENT_ID_CHECK", value: String(a.skipClientIdCheck) });
    env.push({ name: "AUTHN_OIDC_INSECURE_CLIENT", value: String(a.insecureClient) });
  }
  return env;
}
