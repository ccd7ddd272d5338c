/** Stable codes of every failure @gatehouse/cache reports. */
export type CacheErrorCode =
  | "cache-unavailable" // backend unreachable or refused the command
  | "cache-timeout" // backend did not answer within the deadline
  | "cache-closed" // used after close()
  | "invalid-key"
  | "invalid-value"
  | "invalid-config";

export class CacheError extends Error {
  override readonly name = "CacheError";
  constructor(
    readonly code: CacheErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isCacheError(err: unknown): err is CacheError {
  return err instanceof CacheError;
}
