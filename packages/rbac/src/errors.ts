/** Stable error codes of @gatehouse/rbac (kebab-case; transports map them in one place). */
export type RbacErrorCode = "invalid-permission" | "invalid-facts" | "invalid-asset-types" | "unknown-asset-type" | "unknown-verb" | "invalid-request" | "missing-context" | "invalid-export";

/** The single error class of this package. */
export class RbacError extends Error {
  readonly code: RbacErrorCode;
  readonly details: readonly string[];

  constructor(code: RbacErrorCode, message: string, details: readonly string[] = []) {
    super(message);
    this.name = "RbacError";
    this.code = code;
    this.details = details;
  }
}
