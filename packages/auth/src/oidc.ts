import { context, propagation } from "@opentelemetry/api";
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import { AuthError } from "./errors.js";

export interface OidcVerifierOptions {
  /** Issuer URL; discovery is read from `<issuerUrl>/.well-known/openid-configuration`. */
  issuerUrl: string;
  /** Required `aud` value, when set. */
  audience?: string | string[];
  /** The token must be issued to this client (`azp`, `client_id` or `aud`) unless `skipClientIdCheck`. */
  clientId?: string;
  skipClientIdCheck?: boolean;
  /** Allow plain-http issuers and JWKS endpoints (local development only). */
  insecure?: boolean;
  /** Clock skew tolerated on exp/nbf/iat, seconds (default 30). */
  clockToleranceSeconds?: number;
  /** How long fetched keys are trusted before a refetch, ms (default 10 min). */
  jwksCacheMaxAgeMs?: number;
  /** How long a successful discovery is reused, ms (default 1 h). */
  discoveryTtlMs?: number;
  /** Bound on one discovery or JWKS request, ms (default 5 s): a hanging issuer fails, it does not stall. */
  fetchTimeoutMs?: number;
  /** Discovery attempts per refresh, with a short backoff between them (default 3). */
  discoveryAttempts?: number;
  /**
   * After a failed discovery, requests fail at once for this long instead of each waiting on the
   * issuer again, ms (default 5 s).
   */
  discoveryFailureCooldownMs?: number;
}

export interface VerifiedToken {
  sub: string;
  issuer: string;
  clientId: string | null;
  username: string | null;
  /** `organization.id` claim (Red Hat SSO), when present. */
  orgId: string | null;
  accountNumber: string | null;
  /** The token carries the `org:admin:all` role. */
  isOrgAdmin: boolean;
  claims: JWTPayload;
}

export interface OidcVerifier {
  verify(token: string): Promise<VerifiedToken>;
}

interface Discovery {
  jwks: ReturnType<typeof createRemoteJWKSet>;
  issuer: string;
}

function claimString(claims: JWTPayload, key: string): string | null {
  const value = claims[key];
  return typeof value === "string" && value.length > 0 ? value : null;
}

/**
 * Adds the active span's W3C `traceparent` to an outgoing request, so the issuer's spans join the
 * request that needed the fetch. Without a registered propagator (tracing off) it adds nothing.
 */
function withTraceContext(headers: Headers): Headers {
  propagation.inject(context.active(), headers, { set: (carrier, key, value) => carrier.set(key, value) });
  return headers;
}

function checkUrl(raw: string, insecure: boolean, what: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (cause) {
    throw new AuthError("invalid-config", `The ${what} '${raw}' is not a URL.`, { cause });
  }
  if (url.protocol !== "https:" && !(insecure && url.protocol === "http:")) {
    throw new AuthError("invalid-config", `The ${what} must use https (set insecure for local http).`);
  }
  return url;
}

/**
 * Verifies bearer JWTs against the issuer's JWKS found by OIDC discovery. Discovery is
 * fetched lazily, shared by concurrent callers, cached, and retried after a failure.
 */
export function createOidcVerifier(options: OidcVerifierOptions): OidcVerifier {
  const insecure = options.insecure ?? false;
  const issuerUrl = options.issuerUrl.replace(/\/+$/, "");
  checkUrl(issuerUrl, insecure, "OIDC issuer URL");
  const discoveryTtlMs = options.discoveryTtlMs ?? 3_600_000;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 5_000;
  const attempts = Math.max(1, options.discoveryAttempts ?? 3);
  const failureCooldownMs = options.discoveryFailureCooldownMs ?? 5_000;

  async function fetchDiscovery(url: string): Promise<unknown> {
    let lastError: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 1_000)));
      try {
        // The timeout covers the body too: a server that sends headers and then stalls still fails.
        const response = await fetch(url, { headers: withTraceContext(new Headers({ accept: "application/json" })), signal: AbortSignal.timeout(fetchTimeoutMs) });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return await response.json();
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  async function discover(): Promise<Discovery> {
    const url = `${issuerUrl}/.well-known/openid-configuration`;
    let body: unknown;
    try {
      body = await fetchDiscovery(url);
    } catch (cause) {
      throw new AuthError("discovery-failed", `OIDC discovery at ${url} failed.`, { cause });
    }
    const doc = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    const jwksUri = doc["jwks_uri"];
    const issuer = doc["issuer"];
    if (typeof jwksUri !== "string" || typeof issuer !== "string") {
      throw new AuthError("discovery-failed", `OIDC discovery at ${url} lacks issuer or jwks_uri.`);
    }
    if (issuer.replace(/\/+$/, "") !== issuerUrl) {
      throw new AuthError("discovery-failed", `OIDC discovery names issuer '${issuer}', expected '${issuerUrl}'.`);
    }
    const jwks = createRemoteJWKSet(checkUrl(jwksUri, insecure, "JWKS URI"), {
      cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
      timeoutDuration: fetchTimeoutMs,
      [customFetch]: (url, init) => fetch(url, { ...init, headers: withTraceContext(init.headers) }),
    });
    return { jwks, issuer };
  }

  // One shared discovery per TTL. A failure is kept for the cooldown (callers fail fast), then
  // forgotten so the next call tries again.
  let cached: { promise: Promise<Discovery>; expiresAt: number } | null = null;
  function discovery(): Promise<Discovery> {
    if (cached && Date.now() < cached.expiresAt) return cached.promise;
    const entry = { promise: discover(), expiresAt: Number.POSITIVE_INFINITY };
    cached = entry;
    entry.promise.then(
      () => (entry.expiresAt = Date.now() + discoveryTtlMs),
      () => (entry.expiresAt = Date.now() + failureCooldownMs),
    );
    return entry.promise;
  }

  return {
    async verify(token: string): Promise<VerifiedToken> {
      if (token.length === 0) throw new AuthError("missing-credentials", "The bearer token is empty.");
      const { jwks, issuer } = await discovery();
      let claims: JWTPayload;
      const clockTolerance = options.clockToleranceSeconds ?? 30;
      try {
        const verified = await jwtVerify(token, jwks, {
          issuer,
          ...(options.audience !== undefined ? { audience: options.audience } : {}),
          clockTolerance,
        });
        claims = verified.payload;
      } catch (cause) {
        // The issuer's key endpoint timing out or unreachable is the issuer being unavailable, not a bad token.
        if (cause instanceof joseErrors.JWKSTimeout || !(cause instanceof joseErrors.JOSEError)) {
          throw new AuthError("discovery-failed", "The issuer's JWKS endpoint did not answer.", { cause });
        }
        const reason = cause instanceof joseErrors.JOSEError ? cause.code : "verification failed";
        throw new AuthError("invalid-token", `The bearer token is not valid (${reason}).`, { cause });
      }
      // jose only checks that iat is a number; a token minted in the future (beyond skew) is forged
      // or from a broken clock, and would outlive its apparent lifetime.
      if (typeof claims.iat === "number" && claims.iat > Date.now() / 1000 + clockTolerance) {
        throw new AuthError("invalid-token", "The bearer token is not valid (issued in the future).");
      }
      if (!claims.sub) throw new AuthError("invalid-token", "The bearer token has no 'sub' claim.");
      const clientId = claimString(claims, "client_id") ?? claimString(claims, "azp");
      if (options.clientId && !options.skipClientIdCheck) {
        const audiences = Array.isArray(claims.aud) ? claims.aud : claims.aud ? [claims.aud] : [];
        if (clientId !== options.clientId && !audiences.includes(options.clientId)) {
          throw new AuthError("invalid-token", "The bearer token was not issued to this client.");
        }
      }
      const organization = claims["organization"];
      const org = typeof organization === "object" && organization !== null ? (organization as Record<string, unknown>) : {};
      const orgId = typeof org["id"] === "string" || typeof org["id"] === "number" ? String(org["id"]) : null;
      const accountNumber = typeof org["account_number"] === "string" ? org["account_number"] : null;
      const roles = Array.isArray(claims["roles"]) ? (claims["roles"] as unknown[]) : [];
      return {
        sub: claims.sub,
        issuer,
        clientId,
        username: claimString(claims, "preferred_username"),
        orgId,
        accountNumber,
        isOrgAdmin: roles.includes("org:admin:all"),
        claims,
      };
    },
  };
}
