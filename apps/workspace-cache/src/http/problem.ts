import type { ErrorRequestHandler, Request } from "express";
import { WorkspaceCacheError, type WorkspaceCacheErrorCode } from "../errors.js";

// The one place where errors become HTTP: problem+json as the management API writes it.
const STATUS: Record<WorkspaceCacheErrorCode, number> = {
  "invalid-request": 400,
  unauthenticated: 401,
  forbidden: 403,
  "org-not-found": 404,
  "source-unavailable": 503,
  "invalid-config": 500,
};
const TITLE: Record<number, string> = {
  400: "The request payload contains invalid syntax.",
  401: "Authentication credentials were not provided or are invalid.",
  403: "You do not have permission to perform this action.",
  404: "Not found.",
  500: "Unexpected error occurred.",
  503: "Service unavailable.",
};
const TYPE: Record<number, string> = {
  400: "invalid-request",
  401: "unauthenticated",
  403: "insufficient-permission",
  404: "not-found",
  500: "internal-error",
  503: "service-unavailable",
};

export function problemHandler(onInternal: (err: unknown, req: Request) => void): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = err instanceof WorkspaceCacheError ? err : null;
    const status = known ? STATUS[known.code] : 500;
    if (!known || status >= 500) onInternal(err, req);
    const detail = known ? known.message : (TITLE[500] as string);
    res
      .status(status)
      .type("application/problem+json")
      .json({
        status,
        title: TITLE[status] ?? "An error occurred.",
        detail,
        type: `http://project-kessel.org/problems/${TYPE[status] ?? "internal-error"}`,
        errors: [{ message: detail, field: "detail" }],
      });
  };
}
