// Stack outputs: where the services live and the `AUTHZ_*` settings client applications copy.
import * as pulumi from "@pulumi/pulumi";
import type { GatehouseConfig, ServiceName } from "./config.js";
import { AUTHZ_ENGINE_PORT } from "./components/authz-engine.js";
import type { Connections } from "./components/connections.js";
import { SECRET_KEYS } from "./components/env.js";
import { publicUrl } from "./components/exposure.js";
import { MANAGEMENT_API_PORT } from "./components/management-api.js";
import type { ServiceComponent } from "./components/service-component.js";
import { WORKSPACE_CACHE_PORT } from "./components/workspace-cache.js";

export interface AuthzClientSettings {
  AUTHZ_ENABLED: string;
  AUTHZ_URL: pulumi.Output<string>;
  AUTHZ_AUTH_ENABLED: string;
  AUTHZ_AUTH_OIDC_ISSUER?: string;
  AUTHZ_AUTH_CLIENT_ID?: string;
  AUTHZ_INSECURE: string;
}

export interface StackOutputs {
  namespace: pulumi.Output<string>;
  managementApiUrl: pulumi.Output<string>;
  workspaceCacheUrl: pulumi.Output<string>;
  /** Plain settings, readable with `pulumi stack output authzClientSettings`. */
  authzClientSettings: AuthzClientSettings;
  /** `AUTHZ_AUTH_CLIENT_SECRET`, kept apart so the plain settings above are not masked; always a secret. */
  authzClientSecret?: pulumi.Output<string>;
  /** With a secret store: where `AUTHZ_AUTH_CLIENT_SECRET` lives instead (the value never passes through Pulumi). */
  authzClientSecretRef?: { namespace: pulumi.Output<string>; secretName: pulumi.Input<string>; key: string };
  /** `https://<host>` of the API and console, when exposed by an Ingress or Route. */
  publicUrl?: string;
}

export function stackOutputs(cfg: GatehouseConfig, namespace: pulumi.Output<string>, services: Record<ServiceName, ServiceComponent>, conn: Connections): StackOutputs {
  const oidc = cfg.authn.mode === "oidc";
  const settings: AuthzClientSettings = {
    AUTHZ_ENABLED: "true",
    // gRPC target, host:port without a scheme.
    AUTHZ_URL: pulumi.interpolate`${services["authz-engine"].host}:${AUTHZ_ENGINE_PORT}`,
    AUTHZ_AUTH_ENABLED: String(oidc),
    // In-cluster traffic to the engine is plaintext gRPC.
    AUTHZ_INSECURE: "true",
  };
  if (oidc && cfg.authn.oidcServerUrl) settings.AUTHZ_AUTH_OIDC_ISSUER = cfg.authn.oidcServerUrl;
  if (cfg.authzClient) settings.AUTHZ_AUTH_CLIENT_ID = cfg.authzClient.clientId;
  const outputs: StackOutputs = {
    namespace,
    managementApiUrl: pulumi.interpolate`http://${services["management-api"].host}:${MANAGEMENT_API_PORT}`,
    workspaceCacheUrl: pulumi.interpolate`http://${services["workspace-cache"].host}:${WORKSPACE_CACHE_PORT}`,
    authzClientSettings: settings,
  };
  if (cfg.authzClient?.clientSecret) outputs.authzClientSecret = pulumi.secret(cfg.authzClient.clientSecret);
  if (conn.hasClientSecret) outputs.authzClientSecretRef = { namespace, secretName: conn.secretName, key: SECRET_KEYS.authzClientSecret };
  if (cfg.expose) outputs.publicUrl = publicUrl(cfg.expose);
  return outputs;
}
