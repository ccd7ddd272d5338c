/** Stable codes of every failure the SDK reports. */
export type AuthzClientErrorCode =
  | "invalid-config" // AUTHZ_* options missing or malformed
  | "authz-disabled" // AUTHZ_ENABLED=false: no call is made; the application must decide
  | "invalid-argument" // bad helper input, or the server said INVALID_ARGUMENT
  | "token-unavailable" // OIDC discovery or the token endpoint failed
  | "unauthenticated" // the server refused our token
  | "permission-denied" // the server refused this caller
  | "org-not-found" // no root/default workspace for the organisation
  | "deadline-exceeded"
  | "unavailable" // the server could not be reached
  | "invalid-response" // the server answered something the SDK cannot use
  | "internal";

export class AuthzClientError extends Error {
  override readonly name = "AuthzClientError";
  constructor(
    readonly code: AuthzClientErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isAuthzClientError(err: unknown): err is AuthzClientError {
  return err instanceof AuthzClientError;
}
