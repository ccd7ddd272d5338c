import { isAuthError } from "@gatehouse/auth";
import { authRefusal, writeProblem } from "@gatehouse/problem";
import type { ErrorRequestHandler, Request } from "express";
import { WorkspaceCacheError, type WorkspaceCacheErrorCode } from "../errors.js";

// The one place where errors become HTTP, through the problem+json writer the management API uses.
const STATUS: Record<WorkspaceCacheErrorCode, number> = {
  "invalid-request": 400,
  "org-not-found": 404,
  "source-unavailable": 503,
  "invalid-config": 500,
};

export function problemHandler(onInternal: (err: unknown, req: Request) => void): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (isAuthError(err)) {
      const refusal = authRefusal(err);
      if (refusal.status >= 500) onInternal(err, req);
      writeProblem(res, refusal.status, refusal.errors, refusal.headers ? { headers: refusal.headers } : {});
      return;
    }
    const known = err instanceof WorkspaceCacheError ? err : null;
    const status = known ? STATUS[known.code] : 500;
    if (!known || status >= 500) onInternal(err, req);
    // A store outage is answered as the management API answers it: retryable soon.
    const headers = status === 503 ? { "retry-after": "1" } : undefined;
    writeProblem(res, status, [{ message: known ? known.message : "Unexpected error occurred.", field: "detail" }], headers ? { headers } : {});
  };
}
