/** Stable codes of every failure the workspace-cache service reports; mapped to HTTP in http/problem.ts. */
export type WorkspaceCacheErrorCode =
  | "invalid-config"
  | "invalid-request" // bad query or header
  | "unauthenticated" // missing or invalid bearer token
  | "forbidden" // token valid but not allowed for this organisation
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
