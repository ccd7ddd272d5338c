// The one place where errors become gRPC statuses (contract §5.4).
import { status } from "@grpc/grpc-js";
import { isAuthError, type AuthErrorCode } from "@gatehouse/auth";
import { EngineError, type EngineErrorCode } from "../errors.js";

export interface GrpcFailure {
  code: status;
  message: string;
}

const ENGINE_CODES: Record<EngineErrorCode, status> = {
  "invalid-argument": status.INVALID_ARGUMENT,
  "invalid-consistency-token": status.INVALID_ARGUMENT,
  "invalid-continuation-token": status.INVALID_ARGUMENT,
  "unsupported-consistency": status.INVALID_ARGUMENT,
  "unknown-type": status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  "not-found": status.NOT_FOUND,
  "not-ready": status.UNAVAILABLE,
  "shutting-down": status.UNAVAILABLE,
  // The replica has not caught up with the requested revision in time: retryable.
  "freshness-timeout": status.UNAVAILABLE,
  "invalid-config": status.INTERNAL,
  internal: status.INTERNAL,
};

const AUTH_CODES: Record<AuthErrorCode, status> = {
  "missing-credentials": status.UNAUTHENTICATED,
  "malformed-identity": status.UNAUTHENTICATED,
  "no-principal": status.UNAUTHENTICATED,
  "missing-org-id": status.UNAUTHENTICATED,
  "missing-client-id": status.UNAUTHENTICATED,
  "invalid-token": status.UNAUTHENTICATED,
  "unknown-system-user": status.PERMISSION_DENIED,
  "org-mismatch": status.PERMISSION_DENIED,
  // The identity provider cannot be reached: the caller may retry.
  "discovery-failed": status.UNAVAILABLE,
  "invalid-config": status.INTERNAL,
};

/** Evaluator codes: bad names in the request are the caller's; runaway recursion is a schema limit. */
function evaluationStatus(code: string): status {
  if (code === "max-depth-exceeded") return status.RESOURCE_EXHAUSTED;
  if (code.startsWith("unknown-") || code.startsWith("invalid-")) return status.INVALID_ARGUMENT;
  return status.INTERNAL;
}

/** Store codes: a bad consistency token is the caller's; connectivity is retryable. */
function storeStatus(code: string): status {
  if (code.includes("token")) return status.INVALID_ARGUMENT;
  if (code === "not-found") return status.NOT_FOUND;
  if (code === "unavailable" || code.includes("connection") || code === "read-only") return status.UNAVAILABLE;
  return status.INTERNAL;
}

function codedError(error: unknown, name: string): string | null {
  if (error instanceof Error && error.name === name) {
    const code = (error as Error & { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return null;
}

export function toGrpcFailure(error: unknown): GrpcFailure {
  if (error instanceof EngineError) return { code: ENGINE_CODES[error.code], message: error.message };
  if (isAuthError(error)) return { code: AUTH_CODES[error.code], message: error.message };
  const evaluationCode = codedError(error, "EvaluationError");
  if (evaluationCode) return { code: evaluationStatus(evaluationCode), message: (error as Error).message };
  const storeCode = codedError(error, "StoreError");
  if (storeCode) {
    const code = storeStatus(storeCode);
    // Never leak database internals to callers.
    return { code, message: code === status.INTERNAL ? "internal error" : (error as Error).message };
  }
  return { code: status.INTERNAL, message: "internal error" };
}
