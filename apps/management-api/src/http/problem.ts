import type { FieldError } from "@gatehouse/problem";

export type { FieldError };

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

export const badRequest = (message: string, field = "detail", type?: string) => new ApiError(400, [{ message, field }], type ? { type } : {});
export const notFound = (message = "Not found.") => new ApiError(404, [{ message, field: "detail" }]);
export const workspaceNotFound = () => notFound("No Workspace matches the given query.");
export const forbidden = (message = "You do not have permission to perform this action.") => new ApiError(403, [{ message, field: "detail" }]);
export const conflict = (message: string, field = "detail") => new ApiError(409, [{ message, field }]);
