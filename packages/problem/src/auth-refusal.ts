import type { AuthError, AuthErrorCode } from "@gatehouse/auth";
import type { FieldError } from "./problem.js";

/** What an HTTP service answers for a refused request: status, problem errors, extra headers. */
export interface Refusal {
  status: number;
  errors: FieldError[];
  headers?: Record<string, string>;
}

const STATUS: Record<AuthErrorCode, number> = {
  "missing-credentials": 401,
  "malformed-identity": 401,
  "no-principal": 401,
  "invalid-token": 401,
  "missing-org-id": 400,
  "missing-client-id": 400,
  "unknown-system-user": 403,
  "org-mismatch": 403,
  "discovery-failed": 503,
  "invalid-config": 500,
};

/**
 * The answer to an authentication failure, the same from every HTTP service. Discovery and
 * configuration messages name internal URLs, so they are replaced by fixed text.
 */
export function authRefusal(error: AuthError): Refusal {
  const status = STATUS[error.code];
  if (error.code === "discovery-failed") {
    return { status, errors: [{ message: "The identity provider is unavailable.", field: "detail" }], headers: { "retry-after": "5" } };
  }
  if (status >= 500) return { status, errors: [{ message: "Unexpected error occurred.", field: "detail" }] };
  return { status, errors: [{ message: error.message, field: "detail" }] };
}
