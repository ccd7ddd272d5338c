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
