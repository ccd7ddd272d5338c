/** Stable codes of every authentication failure; transports map them to wire errors. */
export type AuthErrorCode =
  | "missing-credentials"
  | "malformed-identity"
  | "no-principal"
  | "missing-org-id"
  | "missing-client-id"
  | "invalid-token"
  | "unknown-system-user"
  | "org-mismatch"
  | "discovery-failed"
  | "invalid-config";

export class AuthError extends Error {
  override readonly name = "AuthError";
  constructor(
    readonly code: AuthErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isAuthError(value: unknown): value is AuthError {
  return value instanceof AuthError;
}
