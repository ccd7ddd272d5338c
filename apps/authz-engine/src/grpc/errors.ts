// The one place where errors become gRPC statuses (contract §5.4).
import { status } from "@grpc/grpc-js";
import { isAuthError, type AuthErrorCode } from "@gatehouse/auth";
import { EvaluatorError, type EvaluatorErrorCode } from "@gatehouse/evaluator";
import { isStoreError, type StoreErrorCode } from "@gatehouse/store";
import { EngineError, type EngineErrorCode } from "../errors.js";
import { MAX_STATUS_MESSAGE } from "../limits.js";

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
  "permission-denied": status.PERMISSION_DENIED,
  "not-found": status.NOT_FOUND,
  "already-exists": status.ALREADY_EXISTS,
  "failed-precondition": status.FAILED_PRECONDITION,
  "not-ready": status.UNAVAILABLE,
  "shutting-down": status.UNAVAILABLE,
  "too-many-streams": status.RESOURCE_EXHAUSTED,
  "stream-stalled": status.CANCELLED,
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

/** Evaluator codes: bad names or ids in the request are the caller's; runaway recursion is a schema limit. */
function evaluatorStatus(code: EvaluatorErrorCode): status {
  if (code === "max-depth-exceeded") return status.RESOURCE_EXHAUSTED;
  if (
    code === "unknown-type" ||
    code === "unknown-relation" ||
    code === "unknown-permission" ||
    code === "invalid-object-id" ||
    code === "wildcard-subject" ||
    code === "invalid-relationship" ||
    code === "subject-type-not-allowed"
  ) {
    return status.INVALID_ARGUMENT;
  }
  return status.INTERNAL;
}

const STORE_CODES: Record<StoreErrorCode, status> = {
  "invalid-argument": status.INVALID_ARGUMENT,
  "malformed-token": status.INVALID_ARGUMENT,
  "foreign-token": status.INVALID_ARGUMENT,
  "not-found": status.NOT_FOUND,
  "tenant-not-found": status.NOT_FOUND,
  "cross-tenant": status.PERMISSION_DENIED,
  "duplicate-name": status.ALREADY_EXISTS,
  "depth-exceeded": status.FAILED_PRECONDITION,
  "unknown-parent": status.FAILED_PRECONDITION,
  "move-into-descendant": status.FAILED_PRECONDITION,
  immutable: status.FAILED_PRECONDITION,
  "not-empty": status.FAILED_PRECONDITION,
  "not-assignable": status.FAILED_PRECONDITION,
  "v2-activated": status.FAILED_PRECONDITION, // v1 role writes are HTTP only; listed for completeness
  conflict: status.ABORTED,
  "already-exists": status.ALREADY_EXISTS,
  timeout: status.UNAVAILABLE,
  "feed-truncated": status.INTERNAL, // the engine's own follower, never a client request
  unavailable: status.UNAVAILABLE,
  internal: status.INTERNAL,
};

/**
 * Messages may quote request values (ids, names); validation bounds them, and this bounds the
 * message itself, so no status header can grow past what clients accept.
 */
function bounded(message: string): string {
  return message.length <= MAX_STATUS_MESSAGE ? message : `${message.slice(0, MAX_STATUS_MESSAGE - 1)}…`;
}

function failureOf(error: unknown): GrpcFailure {
  if (error instanceof EngineError) return { code: ENGINE_CODES[error.code], message: error.message };
  if (isAuthError(error)) return { code: AUTH_CODES[error.code], message: error.message };
  if (error instanceof EvaluatorError) return { code: evaluatorStatus(error.code), message: error.message };
  if (isStoreError(error)) {
    const code = STORE_CODES[error.code];
    // Never leak database internals to callers.
    return { code, message: code === status.INTERNAL ? "internal error" : error.message };
  }
  return { code: status.INTERNAL, message: "internal error" };
}

export function toGrpcFailure(error: unknown): GrpcFailure {
  const failure = failureOf(error);
  return { code: failure.code, message: bounded(failure.message) };
}
