import type { Metadata } from "@grpc/grpc-js";
import { LRUCache } from "lru-cache";
import { AuthError, createOidcVerifier, parseIdentityHeader, type OidcVerifier } from "@gatehouse/auth";
import { EngineError } from "../errors.js";

/** The authn block of the engine's configuration (specification §5.5). */
export type AuthnConfig =
  | { mode: "unauthenticated" }
  | {
      mode: "oidc";
      /** Issuer URL; keys come from its JWKS found by OIDC discovery. */
      serverUrl: string;
      clientId?: string;
      skipClientIdCheck?: boolean;
      /** Allow a plain-http issuer (local identity providers only). */
      insecureClient?: boolean;
      audience?: string;
    };

/** Who is calling, as far as the RPCs that act on "self" need to know. */
export interface CallerIdentity {
  /** The user id part of `<domain>/<user id>`. */
  userId: string;
  orgId: string | null;
  /** The token's client id (`azp` / `client_id`), when authenticated by a token. */
  clientId?: string | null;
}

export interface Authenticator {
  /** null: an anonymous caller the configuration admits; throws when the caller must be rejected. */
  authenticate(metadata: Metadata): CallerIdentity | null | Promise<CallerIdentity | null>;
}

function firstString(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === "string" ? value : value?.toString("utf8");
}

function bearerToken(metadata: Metadata): string | undefined {
  const header = firstString(metadata, "authorization");
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match?.[1]) throw new EngineError("unauthenticated", "The authorization metadata is not a bearer token.");
  return match[1];
}

/**
 * Verified tokens are remembered until they expire (at most a minute), so a client reusing its
 * access token costs one signature verification per minute, not one per call.
 */
class VerifiedTokenCache {
  // lru-cache: bounded by count, each entry with its own TTL (the token's remaining life, ≤ 1 min).
  private readonly entries: LRUCache<string, CallerIdentity>;
  constructor(capacity = 4096) {
    this.entries = new LRUCache({ max: capacity });
  }

  get(token: string, _now: number): CallerIdentity | undefined {
    return this.entries.get(token);
  }

  set(token: string, identity: CallerIdentity, expiresAtMs: number, now: number): void {
    const ttl = Math.min(expiresAtMs, now + 60_000) - now;
    if (ttl > 0) this.entries.set(token, identity, { ttl });
  }
}

function oidcAuthenticator(verifier: OidcVerifier): Authenticator {
  const cache = new VerifiedTokenCache();
  return {
    async authenticate(metadata) {
      const token = bearerToken(metadata);
      if (token === undefined) throw new AuthError("missing-credentials", "authz context missing: no bearer token");
      const now = Date.now();
      const cached = cache.get(token, now);
      if (cached) return cached;
      const verified = await verifier.verify(token);
      const identity: CallerIdentity = { userId: verified.sub, orgId: verified.orgId, clientId: verified.clientId };
      const exp = typeof verified.claims.exp === "number" ? verified.claims.exp * 1000 : now + 60_000;
      cache.set(token, identity, exp, now);
      return identity;
    },
  };
}

/** The caller an x-rh-identity header names (null without one, or naming no user). */
function identityHeaderCaller(metadata: Metadata): CallerIdentity | null {
  const header = firstString(metadata, "x-rh-identity");
  if (header === undefined) return null;
  const identity = parseIdentityHeader(header);
  const userId = identity.userId ?? identity.clientId;
  return userId ? { userId, orgId: identity.orgId } : null;
}

/** Local use: everyone is admitted; an x-rh-identity header, if sent, names "self". */
function unauthenticatedAuthenticator(): Authenticator {
  return { authenticate: identityHeaderCaller };
}

/**
 * Behind a gateway that authenticates users and sets x-rh-identity (what inventory-api's HTTP
 * authenticator chain accepts before OIDC): a bearer token is verified by `authenticator`; without
 * one, the header names the caller; without either, `authenticator` refuses. Only for a port the
 * gateway alone can reach: anyone able to connect directly could write the header.
 */
export function trustingIdentityHeader(authenticator: Authenticator): Authenticator {
  return {
    authenticate(metadata) {
      if (metadata.get("authorization").length === 0 && metadata.get("x-rh-identity").length > 0) {
        const caller = identityHeaderCaller(metadata);
        if (caller) return caller;
        throw new AuthError("no-principal", "the x-rh-identity header names no user");
      }
      return authenticator.authenticate(metadata);
    },
  };
}

/**
 * Health probes (Kessel GetLivez/GetReadyz, like grpc.health.v1) are answered without credentials:
 * kubelet and load-balancer probes carry no token, whatever the authn mode.
 */
export const probeAuthenticator: Authenticator = { authenticate: () => null };

export function createAuthenticator(config: AuthnConfig, verifier?: OidcVerifier): Authenticator {
  if (config.mode === "unauthenticated") return unauthenticatedAuthenticator();
  if (!config.serverUrl) throw new EngineError("invalid-config", "authn.oidc needs a server URL.");
  return oidcAuthenticator(
    verifier ??
      createOidcVerifier({
        issuerUrl: config.serverUrl,
        ...(config.clientId !== undefined ? { clientId: config.clientId } : {}),
        ...(config.audience !== undefined ? { audience: config.audience } : {}),
        skipClientIdCheck: config.skipClientIdCheck ?? false,
        insecure: config.insecureClient ?? false,
      }),
  );
}
