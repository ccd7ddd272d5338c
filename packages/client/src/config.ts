import { AuthzClientError } from "./errors.js";

/** The SDK's configuration, the typed form of the `AUTHZ_*` options. */
export type AuthzClientConfig =
  | { enabled: false }
  | {
      enabled: true;
      /** gRPC target of the check interface, `host:port`. */
      url: string;
      /** Base URL of the workspace lookup (`/api/rbac/v2/workspaces/`): workspace-cache or the management API. */
      workspaceUrl?: string;
      /** Plaintext gRPC and http:// issuer/lookup URLs allowed (local development and tests). */
      insecure: boolean;
      auth: { enabled: false } | { enabled: true; clientId: string; clientSecret: string; oidcIssuer: string };
      /** Principal domain: subjects become `<domain>/<user_id>` (default `redhat`). */
      domain?: string;
      /** Deadline of every call, ms (default 5,000). */
      timeoutMs?: number;
    };

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

function parseBool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = raw.trim().toLowerCase();
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new AuthzClientError("invalid-config", `${name} must be true or false, got '${raw}'.`);
}

function required(name: string, raw: string | undefined, why: string): string {
  const value = raw?.trim();
  if (!value) throw new AuthzClientError("invalid-config", `${name} is required ${why}.`);
  return value;
}

function httpUrl(name: string, raw: string, insecure: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (cause) {
    throw new AuthzClientError("invalid-config", `${name} must be a URL, got '${raw}'.`, { cause });
  }
  if (url.protocol === "https:" || (insecure && url.protocol === "http:")) return raw.replace(/\/+$/, "");
  throw new AuthzClientError("invalid-config", `${name} must use https:// (http:// only with AUTHZ_INSECURE=true), got '${raw}'.`);
}

/** Accepts `host:port`, or a URL form (`grpc://`, `http://`, `https://`) reduced to `host:port`. */
function grpcTarget(raw: string): string {
  const withoutScheme = raw.replace(/^(grpcs?|https?|dns):\/\/\/?/i, "").replace(/\/+$/, "");
  if (!/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(withoutScheme)) {
    throw new AuthzClientError("invalid-config", `AUTHZ_URL must be host:port (e.g. localhost:9091), got '${raw}'.`);
  }
  const port = Number(withoutScheme.slice(withoutScheme.lastIndexOf(":") + 1));
  if (port < 1 || port > 65_535) throw new AuthzClientError("invalid-config", `AUTHZ_URL has an invalid port in '${raw}'.`);
  return withoutScheme;
}

/**
 * Reads the specification's options: AUTHZ_ENABLED, AUTHZ_URL, AUTHZ_AUTH_ENABLED,
 * AUTHZ_AUTH_CLIENT_ID, AUTHZ_AUTH_CLIENT_SECRET, AUTHZ_AUTH_OIDC_ISSUER, AUTHZ_INSECURE,
 * plus AUTHZ_WORKSPACE_URL (the lookup's HTTP base; the specification names no option for it).
 * Every problem is an `invalid-config` error naming the option.
 */
export function loadClientConfig(env: Record<string, string | undefined> = process.env): AuthzClientConfig {
  const enabled = parseBool("AUTHZ_ENABLED", env["AUTHZ_ENABLED"], false);
  if (!enabled) return { enabled: false };
  const insecure = parseBool("AUTHZ_INSECURE", env["AUTHZ_INSECURE"], false);
  const url = grpcTarget(required("AUTHZ_URL", env["AUTHZ_URL"], "when AUTHZ_ENABLED=true"));
  const workspaceRaw = env["AUTHZ_WORKSPACE_URL"]?.trim();
  const authEnabled = parseBool("AUTHZ_AUTH_ENABLED", env["AUTHZ_AUTH_ENABLED"], false);
  const why = "when AUTHZ_AUTH_ENABLED=true";
  return {
    enabled: true,
    url,
    ...(workspaceRaw ? { workspaceUrl: httpUrl("AUTHZ_WORKSPACE_URL", workspaceRaw, insecure) } : {}),
    insecure,
    auth: authEnabled
      ? {
          enabled: true,
          clientId: required("AUTHZ_AUTH_CLIENT_ID", env["AUTHZ_AUTH_CLIENT_ID"], why),
          clientSecret: required("AUTHZ_AUTH_CLIENT_SECRET", env["AUTHZ_AUTH_CLIENT_SECRET"], why),
          oidcIssuer: httpUrl("AUTHZ_AUTH_OIDC_ISSUER", required("AUTHZ_AUTH_OIDC_ISSUER", env["AUTHZ_AUTH_OIDC_ISSUER"], why), insecure),
        }
      : { enabled: false },
  };
}

/** Validates a config built in code the same way as one read from the environment. */
export function validateClientConfig(config: AuthzClientConfig): AuthzClientConfig {
  if (!config.enabled) return config;
  const checked = loadClientConfig({
    AUTHZ_ENABLED: "true",
    AUTHZ_URL: config.url,
    AUTHZ_WORKSPACE_URL: config.workspaceUrl,
    AUTHZ_INSECURE: String(config.insecure),
    AUTHZ_AUTH_ENABLED: String(config.auth.enabled),
    ...(config.auth.enabled ? { AUTHZ_AUTH_CLIENT_ID: config.auth.clientId, AUTHZ_AUTH_CLIENT_SECRET: config.auth.clientSecret, AUTHZ_AUTH_OIDC_ISSUER: config.auth.oidcIssuer } : {}),
  });
  const timeoutMs = config.timeoutMs ?? 5_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new AuthzClientError("invalid-config", `timeoutMs must be a positive integer, got ${String(config.timeoutMs)}.`);
  const domain = config.domain ?? "redhat";
  if (!/^[A-Za-z0-9._-]+$/.test(domain)) throw new AuthzClientError("invalid-config", `domain '${domain}' is not valid.`);
  return { ...checked, domain, timeoutMs } as AuthzClientConfig;
}
