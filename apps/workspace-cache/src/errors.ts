/** Stable codes of every failure the workspace-cache service reports; mapped to HTTP in http/problem.ts (authentication refusals are `AuthError`s). */
export type WorkspaceCacheErrorCode =
  | "invalid-config"
  | "invalid-request" // bad query or header
  | "org-not-found" // no tenant for the organisation
  | "source-unavailable"; // the store failed and the cache had no answer

export class WorkspaceCacheError extends Error {
  override readonly name = "WorkspaceCacheError";
  constructor(
    readonly code: WorkspaceCacheErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
