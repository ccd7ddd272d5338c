import { AuthError, parseIdentityHeader, resolveSystemPrincipal, type OidcVerifier, type SystemUsers } from "@gatehouse/auth";
import type { Store, Tenant } from "@gatehouse/store";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { LRUCache } from "lru-cache";

export type { Caller, RequestContext } from "../domain/context.js";
import type { Caller, RequestContext } from "../domain/context.js";

export interface IdentityOptions {
  trustIdentityHeader: boolean;
  verifier?: OidcVerifier;
  systemUsers: SystemUsers;
}

function header(req: Request, name: string): string | null {
  const value = req.headers[name];
  return typeof value === "string" ? value : null;
}

/**
 * A bearer token, when sent and an issuer is configured, is verified and decides who is calling:
 * an unverified x-rh-identity never overrides it. Otherwise x-rh-identity (when trusted); neither
 * → empty 401.
 */
export async function authenticate(req: Request, options: IdentityOptions): Promise<Caller> {
  const identityHeader = options.trustIdentityHeader ? header(req, "x-rh-identity") : null;
  const authorization = header(req, "authorization");
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1] ?? null;
  const orgHeader = header(req, "x-rh-rbac-org-id");
  const tokenDecides = bearer !== null && (options.verifier !== undefined || identityHeader === null || identityHeader.trim() === "");

  if (!tokenDecides && identityHeader !== null) {
    const identity = parseIdentityHeader(identityHeader);
    if (orgHeader !== null && orgHeader.trim() !== identity.orgId) {
      throw new AuthError("org-mismatch", "The x-rh-rbac-org-id header does not match the caller's organisation.");
    }
    // insights-rbac admits cross-account access only for internal users with a Red Hat address.
    if (identity.crossAccess && !(identity.isInternal && identity.email?.endsWith("@redhat.com"))) {
      throw new AuthError("no-principal", "Cross-account access is only for Red Hat associates.");
    }
    return {
      orgId: identity.orgId,
      userId: identity.userId ?? identity.username,
      username: identity.username,
      // A cross-account associate holds only what its requests grant, whatever the header claims.
      isOrgAdmin: identity.isOrgAdmin && !identity.crossAccess,
      isServiceAccount: identity.isServiceAccount,
      email: identity.email,
      isInternal: identity.isInternal,
      crossAccess: identity.crossAccess,
      firstName: identity.firstName,
      lastName: identity.lastName,
      isSystemUser: false,
    };
  }
  if (bearer !== null) {
    if (!options.verifier) throw new AuthError("invalid-token", "Bearer tokens are not accepted: no OIDC issuer is configured.");
    const token = await options.verifier.verify(bearer);
    const principal = resolveSystemPrincipal(token, options.systemUsers, {
      orgId: orgHeader,
      accountNumber: header(req, "x-rh-rbac-account"),
    });
    return {
      orgId: principal.orgId,
      userId: principal.userId,
      username: principal.username,
      isOrgAdmin: principal.isOrgAdmin,
      isServiceAccount: principal.isServiceAccount,
      isSystemUser: true,
    };
  }
  throw new AuthError("missing-credentials", "No credentials were provided.");
}

const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** An identity's e-mail the store accepts; another (overlong, control characters) is not recorded rather than failing the request. */
const recordableEmail = (email: string | null | undefined): email is string => typeof email === "string" && email.length > 0 && email.length <= 320 && !/[\u0000-\u001f\u007f]/.test(email);

/**
 * Resolves the caller and its tenant. The first request of an unknown organisation bootstraps
 * the tenant; every request records the caller as a principal (written only when it differs from
 * the stored one) so that default-group bindings, the admin one included, follow the identity at
 * once, on every replica: the stored principal is read per request, never cached.
 */
export function identityMiddleware(store: Store, options: IdentityOptions): RequestHandler {
  // Bounded (lru-cache): forgetting an entry only costs one idempotent bootstrap. Tenants never
  // change once bootstrapped; principals do (the admin flag), so they are not cached.
  const tenants = new LRUCache<string, Promise<{ tenant: Tenant; revision: number }>>({ max: 100_000 });

  const tenantOf = (orgId: string) => {
    let pending = tenants.get(orgId);
    if (!pending) {
      pending = store.tenants.bootstrap(orgId).then((written) => ({ tenant: written.value, revision: written.revision }));
      tenants.set(orgId, pending);
      pending.catch(() => tenants.delete(orgId));
    }
    return pending;
  };

  const principalRevision = async (caller: Caller) =>
    (
      await store.principals.record(caller.orgId, {
        userId: caller.userId,
        username: caller.username,
        type: caller.isServiceAccount ? "service-account" : "user",
        isOrgAdmin: caller.isOrgAdmin,
        ...(recordableEmail(caller.email) ? { email: caller.email } : {}),
      })
    ).revision;

  return (req: Request, res: Response, next: NextFunction) => {
    (async () => {
      const caller = await authenticate(req, options);
      if (!ORG_ID.test(caller.orgId)) {
        throw new AuthError("missing-org-id", "The org_id in the identity is not valid.");
      }
      const { tenant, revision } = await tenantOf(caller.orgId);
      // An associate acting through cross-account requests is not one of the organisation's principals.
      const upserted = caller.isSystemUser || caller.crossAccess ? 0 : await principalRevision(caller);
      const ctx: RequestContext = {
        caller,
        tenant,
        principalId: `${store.domain}/${caller.userId}`,
        minRevision: Math.max(revision, upserted),
      };
      res.locals["ctx"] = ctx;
    })().then(() => next(), next);
  };
}

export function contextOf(res: Response): RequestContext {
  const ctx = res.locals["ctx"] as RequestContext | undefined;
  if (!ctx) throw new Error("identity middleware did not run");
  return ctx;
}
