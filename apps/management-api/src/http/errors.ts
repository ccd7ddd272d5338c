import { isAuthError, type AuthError } from "@gatehouse/auth";
import type { Logger } from "@gatehouse/telemetry";
import type { ErrorRequestHandler, Request, Response } from "express";
import { isStoreError, type StoreErrorCode } from "@gatehouse/store";
import { formatIssue, RoleConfigError } from "@gatehouse/role-config";
import { boundedImpact } from "../authz/config-impact.js";
import { describeElement, ReloadImpactError, ReloadRefusedError } from "../authz/reload.js";
import { ZodError } from "zod";
import { requestPath } from "./pagination.js";
import { authRefusal, PROBLEM_TYPE_PREFIX, problemBody, writeProblem } from "@gatehouse/problem";
import { DomainError, type DomainErrorKind } from "../domain/errors.js";
import { ApiError } from "./problem.js";
import { requestLogger } from "./request-log.js";
import { zodFieldErrors } from "./validate.js";

/** Problem type of a reload refused for the access it takes away. */
export const ROLE_CONFIG_IMPACT_TYPE = `${PROBLEM_TYPE_PREFIX}role-config-impact`;

/** Wire status of each store error code; anything unlisted is a 500. */
const STORE_STATUS: Partial<Record<StoreErrorCode, number>> = {
  "invalid-argument": 400,
  "not-found": 404,
  "cross-tenant": 404,
  "tenant-not-found": 404,
  "duplicate-name": 400,
  "depth-exceeded": 400,
  "unknown-parent": 400,
  "move-into-descendant": 400,
  immutable: 400,
  "not-empty": 400,
  "not-assignable": 400,
  "malformed-token": 400,
  "foreign-token": 400,
  "v2-activated": 403,
  conflict: 409,
  "already-exists": 409,
  unavailable: 503,
};

/** Wire status of each domain error kind: the one place a command's refusal becomes HTTP. */
const DOMAIN_STATUS: Record<DomainErrorKind, number> = { invalid: 400, forbidden: 403, "not-found": 404, conflict: 409, busy: 503, unavailable: 503, internal: 500 };

function fromDomainError(error: DomainError): ApiError {
  const status = DOMAIN_STATUS[error.kind];
  // insights-rbac answers a lost race with 503, Retry-After and a plain JSON body on every version.
  if (error.kind === "busy") return new ApiError(status, error.problems, { plainBody: { detail: error.message }, headers: { "retry-after": "1" } });
  return new ApiError(status, error.problems);
}

function fromAuthError(error: AuthError): ApiError {
  const refusal = authRefusal(error);
  switch (error.code) {
    case "missing-credentials":
    case "no-principal":
      // insights-rbac's middleware answers a missing identity with an empty 401.
      return new ApiError(refusal.status, refusal.errors, { emptyBody: true });
    case "missing-org-id":
    case "missing-client-id":
      return new ApiError(refusal.status, refusal.errors, { plainBody: { code: refusal.status, message: error.message } });
    default:
      return new ApiError(refusal.status, refusal.errors, refusal.headers ? { headers: refusal.headers } : {});
  }
}

/** Errors raised by express.json() and the raw body reader. */
function fromBodyParserError(error: unknown): ApiError | null {
  if (typeof error !== "object" || error === null || !("type" in error)) return null;
  switch ((error as { type: unknown }).type) {
    case "entity.parse.failed":
      return new ApiError(400, [{ message: "JSON parse error: the request body is not valid JSON.", field: "detail" }]);
    case "entity.utf8.invalid":
      return new ApiError(400, [{ message: "The request body is not valid UTF-8.", field: "detail" }]);
    case "entity.too.large":
      return new ApiError(413, [{ message: "The request body is too large.", field: "detail" }]);
    case "encoding.unsupported":
    case "charset.unsupported":
      return new ApiError(415, [{ message: "Unsupported request body encoding.", field: "detail" }]);
    case "request.aborted":
      return new ApiError(400, [{ message: "The request was aborted.", field: "detail" }]);
    default:
      return null;
  }
}

/**
 * Any other client error raised by express or its body readers (http-errors with a 4xx status,
 * e.g. a body that does not inflate under its Content-Encoding). Their messages may quote the
 * request, so only the status is kept.
 */
function fromHttpError(error: unknown): ApiError | null {
  if (typeof error !== "object" || error === null) return null;
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 400 || status > 499) return null;
  return new ApiError(status, [{ message: "The request could not be read.", field: "detail" }]);
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) return fromDomainError(error);
  if (error instanceof ZodError) return new ApiError(400, zodFieldErrors(error));
  if (isAuthError(error)) return fromAuthError(error);
  // Reloads of the role configuration: every problem, or every schema element still in use, is named.
  if (error instanceof RoleConfigError)
    return new ApiError(
      422,
      error.issues.map((i) => ({ message: formatIssue(i), field: "role_config" })),
    );
  // The impact comes first: the caller reloads again with the token once it has seen it.
  if (error instanceof ReloadImpactError) {
    const errors = [{ message: error.message, field: "accept" }];
    return new ApiError(409, errors, {
      headers: { "content-type": "application/problem+json; charset=utf-8" },
      plainBody: { ...problemBody(409, errors, { type: ROLE_CONFIG_IMPACT_TYPE }), accept_token: error.token, impact: boundedImpact(error.impact, 20) },
    });
  }
  if (error instanceof ReloadRefusedError)
    return new ApiError(409, [{ message: error.message, field: "role_config" }, ...error.inUse.map((e) => ({ message: `still used: ${describeElement(e)}`, field: "role_config" }))]);
  if (isStoreError(error)) {
    const status = STORE_STATUS[error.code] ?? 500;
    if (status === 500) return new ApiError(500, [{ message: "Unexpected error occurred.", field: "detail" }]);
    // insights-rbac answers lost serialization races with a plain JSON body.
    if (error.code === "conflict") return new ApiError(409, [{ message: error.message, field: "detail" }], { plainBody: { detail: "Too many concurrent updates. Please retry." } });
    if (error.code === "unavailable") return new ApiError(503, [{ message: error.message, field: "detail" }], { headers: { "retry-after": "1" } });
    const field = status === 404 ? "detail" : (error.field ?? "detail");
    const message = status === 404 ? "Not found." : error.message;
    return new ApiError(status, [{ message, field }]);
  }
  const parsed = fromBodyParserError(error) ?? fromHttpError(error);
  if (parsed) return parsed;
  return new ApiError(500, [{ message: "Unexpected error occurred.", field: "detail" }]);
}

export function sendError(req: Request, res: Response, error: ApiError): void {
  for (const [name, value] of Object.entries(error.options.headers ?? {})) res.setHeader(name, value);
  res.status(error.status);
  if (error.options.emptyBody) {
    res.end();
  } else if (error.options.plainBody !== undefined) {
    res.json(error.options.plainBody);
  } else if (requestPath(req).startsWith("/api/rbac/v1/")) {
    // v1 endpoints keep insights-rbac's v1 error shape.
    res.json({ errors: error.errors.map((e) => ({ detail: e.message, source: e.field, status: String(error.status) })) });
  } else {
    const changes = req.method === "PUT" || req.method === "PATCH" || req.method === "DELETE";
    writeProblem(res, error.status, error.errors, { ...(error.options.type ? { type: error.options.type } : {}), ...(changes ? { instance: requestPath(req) } : {}) });
  }
}

/** The one place where any thrown error becomes an HTTP answer. */
export function problemMiddleware(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const apiError = toApiError(error);
    if (apiError.status >= 500) requestLogger(req, logger).error({ err: error, path: req.path }, "request failed");
    sendError(req, res, apiError);
  };
}
