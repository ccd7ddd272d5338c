import type { NextFunction, Request, Response } from "express";
import { ApiError } from "./problem.js";

/** Methods each v2 path answers; HEAD follows GET and OPTIONS is always allowed. */
const V2_METHODS: [RegExp, string[]][] = [
  [/^\/workspaces\/$/, ["GET", "POST"]],
  [/^\/workspaces\/query\/$/, ["POST"]],
  [/^\/workspaces\/[^/]+\/move\/$/, ["POST"]],
  [/^\/workspaces\/[^/]+\/$/, ["GET", "PUT", "PATCH", "DELETE"]],
  [/^\/roles\/$/, ["GET", "POST"]],
  [/^\/roles:batchDelete\/$/, ["POST"]],
  [/^\/roles\/[^/]+\/$/, ["GET", "PUT"]],
  [/^\/role-bindings\/$/, ["GET"]],
  [/^\/role-bindings:batchCreate\/$/, ["POST"]],
  [/^\/role-bindings\/by-subject\/$/, ["GET", "PUT"]],
  [/^\/principals\/$/, ["GET"]],
  [/^\/principals\/[^/]+\/$/, ["GET"]],
  // Gatehouse's own (the console's) endpoints.
  [/^\/access:explain\/$/, ["POST"]],
  [/^\/access:explain-self\/$/, ["POST"]],
  [/^\/access:organisation\/$/, ["GET"]],
  [/^\/access:permissions\/$/, ["GET"]],
  [/^\/access:parity\/$/, ["GET"]],
  [/^\/access:mode\/$/, ["GET"]],
];

/** Methods each v1 group path answers (upstream's GroupViewSet and its actions). */
const V1_METHODS: [RegExp, string[]][] = [
  [/^\/groups\/$/, ["GET", "POST"]],
  [/^\/groups\/[^/]+\/$/, ["GET", "PUT", "DELETE"]],
  [/^\/groups\/[^/]+\/principals\/$/, ["GET", "POST", "DELETE"]],
  [/^\/groups\/[^/]+\/roles\/$/, ["GET", "POST", "DELETE"]],
  [/^\/cross-account-requests\/$/, ["GET", "POST"]],
  [/^\/cross-account-requests\/[^/]+\/$/, ["GET", "PUT", "PATCH"]],
];

/**
 * A known path with a method it does not answer is a 405 with DRF's wording (after
 * authentication, as in insights-rbac), not a 404 or another route's 400.
 */
function methodTable(table: [RegExp, string[]][]) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const entry = table.find(([pattern]) => pattern.test(req.path));
    const method = req.method === "HEAD" ? "GET" : req.method;
    if (!entry || method === "OPTIONS" || entry[1].includes(method)) {
      next();
      return;
    }
    next(methodNotAllowed(req.method, entry[1]));
  };
}

export const v2MethodNotAllowed = methodTable(V2_METHODS);
export const v1MethodNotAllowed = methodTable(V1_METHODS);

/** DRF's 405 for `method` on a path that answers `allowed`. */
export function methodNotAllowed(method: string, allowed: readonly string[]): ApiError {
  return new ApiError(405, [{ message: `Method "${method}" not allowed.`, field: "detail" }], { headers: { allow: [...allowed, "HEAD", "OPTIONS"].join(", ") } });
}
