import { AuthError, type OidcVerifier, type SystemUsers, createOidcVerifier, resolveSystemPrincipal } from "@gatehouse/auth";
import { WorkspaceCacheError } from "./errors.js";

/** How callers prove who they are; the same rules as the management API's system users. */
export type AuthConfig =
  | {
      mode: "oidc";
      issuerUrl: string;
      audience?: string | string[];
      clientId?: string;
      skipClientIdCheck?: boolean;
      /** Allow an http:// issuer (local development and tests). */
      insecure?: boolean;
      systemUsers: SystemUsers;
    }
  /** Local all-in-one only: trusts `x-rh-rbac-org-id` without a token. */
  | { mode: "disabled" };

export interface Authenticator {
  /** Returns the organisation the caller may read, or throws an `AuthError`. */
  authenticate(authorization: string | undefined, orgIdHeader: string): Promise<string>;
}

export function createAuthenticator(config: AuthConfig): Authenticator {
  if (config.mode === "disabled") return { authenticate: async (_authorization, orgId) => orgId };
  let verifier: OidcVerifier;
  try {
    verifier = createOidcVerifier({
      issuerUrl: config.issuerUrl,
      audience: config.audience,
      clientId: config.clientId,
      skipClientIdCheck: config.skipClientIdCheck,
      insecure: config.insecure,
    });
  } catch (cause) {
    throw new WorkspaceCacheError("invalid-config", `Invalid OIDC configuration: ${(cause as Error).message}`, { cause });
  }
  return {
    async authenticate(authorization, orgIdHeader) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
      // Refusals stay AuthErrors: the shared problem writer answers them as the management API does.
      if (!match?.[1]) throw new AuthError("missing-credentials", "A bearer token is required.");
      const token = await verifier.verify(match[1]);
      return resolveSystemPrincipal(token, config.systemUsers, { orgId: orgIdHeader }).orgId;
    },
  };
}
