import { AuthzClientError } from "./errors.js";

export interface TokenProviderOptions {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  /** Deadline of each discovery or token request, ms (default 5,000). */
  timeoutMs?: number;
  /** Injectable clock for tests. */
  now?: () => number;
}

export interface AccessToken {
  value: string;
  /** Epoch ms after which the issuer no longer honours it. */
  expiresAt: number;
}

export interface TokenProvider {
  /** A valid access token, fetched only when the cached one is missing or about to expire. */
  getToken(): Promise<string>;
  /** Forget the cached token (the server refused it); the next `getToken` fetches a new one. */
  invalidate(): void;
}

/** Refresh when less than this share of the lifetime (capped at 5 minutes) remains. */
function refreshMarginMs(lifetimeMs: number): number {
  return Math.min(5 * 60_000, Math.floor(lifetimeMs * 0.2));
}

async function fetchJson(url: string, init: RequestInit, timeoutMs: number, what: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
  } catch (cause) {
    throw new AuthzClientError("token-unavailable", `${what} at ${url} failed: ${(cause as Error).message}`, { cause });
  }
  const text = await response.text();
  if (response.status !== 200) {
    throw new AuthzClientError("token-unavailable", `${what} at ${url} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new AuthzClientError("token-unavailable", `${what} at ${url} did not return a JSON object.`);
}

/**
 * OAuth 2.0 client credentials (client_secret_post) against the token endpoint found by OIDC
 * discovery. Tokens are cached until shortly before expiry, and concurrent callers share one
 * refresh instead of each asking the issuer.
 */
export function createTokenProvider(options: TokenProviderOptions): TokenProvider {
  const issuer = options.issuerUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 5_000;
  const now = options.now ?? Date.now;
  let tokenEndpoint: Promise<string> | undefined;
  let cached: (AccessToken & { refreshAt: number }) | undefined;
  let inFlight: Promise<string> | undefined;

  const discover = async (): Promise<string> => {
    const doc = await fetchJson(`${issuer}/.well-known/openid-configuration`, { headers: { accept: "application/json" } }, timeoutMs, "OIDC discovery");
    const named = typeof doc["issuer"] === "string" ? doc["issuer"].replace(/\/+$/, "") : undefined;
    if (named !== issuer) throw new AuthzClientError("token-unavailable", `OIDC discovery names issuer '${String(doc["issuer"])}', expected '${issuer}'.`);
    const endpoint = doc["token_endpoint"];
    if (typeof endpoint !== "string" || endpoint.length === 0) throw new AuthzClientError("token-unavailable", "Token endpoint could not be discovered from the issuer URL.");
    return endpoint;
  };

  const fetchToken = async (): Promise<string> => {
    if (!tokenEndpoint) {
      tokenEndpoint = discover();
      tokenEndpoint.catch(() => (tokenEndpoint = undefined)); // retry discovery next time
    }
    const endpoint = await tokenEndpoint;
    const body = new URLSearchParams({ grant_type: "client_credentials", client_id: options.clientId, client_secret: options.clientSecret });
    const started = now();
    const doc = await fetchJson(
      endpoint,
      { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8", accept: "application/json" }, body },
      timeoutMs,
      "Token request",
    );
    const accessToken = doc["access_token"];
    const tokenType = doc["token_type"];
    const expiresIn = doc["expires_in"] ?? 3600;
    if (typeof accessToken !== "string" || accessToken.length === 0) throw new AuthzClientError("token-unavailable", "The token response has no access_token.");
    if (typeof tokenType !== "string" || tokenType.toLowerCase() !== "bearer") throw new AuthzClientError("token-unavailable", `Unsupported token_type '${String(tokenType)}'.`);
    if (typeof expiresIn !== "number" || !Number.isFinite(expiresIn) || expiresIn < 0) throw new AuthzClientError("token-unavailable", "The token response has an invalid expires_in.");
    const lifetimeMs = expiresIn * 1000;
    // Measured from when we asked, so network time never makes us hold an expired token.
    cached = { value: accessToken, expiresAt: started + lifetimeMs, refreshAt: started + lifetimeMs - refreshMarginMs(lifetimeMs) };
    return accessToken;
  };

  return {
    async getToken() {
      if (cached && now() < cached.refreshAt) return cached.value;
      if (!inFlight) {
        inFlight = fetchToken().finally(() => (inFlight = undefined));
      }
      return inFlight;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
