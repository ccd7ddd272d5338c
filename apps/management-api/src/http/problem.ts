/** One entry of a problem's `errors` list; `field` is the dotted request key or `detail`. */
export interface FieldError {
  message: string;
  field: string;
}

export const PROBLEM_TYPE_PREFIX = "http://project-kessel.org/problems/";

/**
 * An error the API answers on purpose. `plainBody` is for the few contract responses that are
 * not problem+json (e.g. the identity middleware's 400, the empty 401).
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly errors: FieldError[],
    readonly options: { type?: string; plainBody?: unknown; emptyBody?: boolean; headers?: Record<string, string> } = {},
  ) {
    super(errors[0]?.message ?? `HTTP ${status}`);
  }
}

export const badRequest = (message: string, field = "detail", type?: string) =>
  new ApiError(400, [{ message, field }], type ? { type } : {});
export const notFound = (message = "Not found.") => new ApiError(404, [{ message, field: "detail" }]);
export const workspaceNotFound = () => notFound("No Workspace matches the given query.");
export const forbidden = (message = "You do not have permission to perform this action.") =>
  new ApiError(403, [{ message, field: "detail" }]);
export const conflict = (message: string, field = "detail") => new ApiError(409, [{ message, field }]);

/** Fixed title per status, as insights-rbac's v2 exception handler answers. */
export function problemTitle(status: number): string {
  switch (status) {
    case 400:
      return "The request payload contains invalid syntax.";
    case 401:
      return "Authentication credentials were not provided or are invalid.";
    case 403:
      return "You do not have permission to perform this action.";
    case 404:
      return "Not found.";
    case 409:
      return "Conflict.";
    case 500:
      return "Unexpected error occurred.";
    default:
      return "An error occurred.";
  }
}

export function problemType(status: number): string {
  const slug =
    status === 400 || status === 413 || status === 415
      ? "invalid-request"
      : status === 401
        ? "unauthenticated"
        : status === 403
          ? "insufficient-permission"
          : status === 404
            ? "not-found"
            : status === 409
              ? "conflict"
              : "internal-error";
  return PROBLEM_TYPE_PREFIX + slug;
}
