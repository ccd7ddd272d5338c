/** Stable codes of every failure the engine itself raises; grpc/errors.ts maps them to gRPC codes. */
export type EngineErrorCode =
  | "invalid-argument"
  | "unauthenticated"
  | "permission-denied"
  | "not-ready"
  | "freshness-timeout"
  | "invalid-consistency-token"
  | "unsupported-consistency"
  | "invalid-continuation-token"
  | "unknown-type"
  | "not-found"
  | "already-exists"
  | "failed-precondition"
  | "invalid-config"
  | "shutting-down"
  | "too-many-streams"
  | "stream-stalled"
  | "internal";

export class EngineError extends Error {
  override readonly name = "EngineError";
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    /** For validation failures: the proto field path (snake_case) and the violated rule. */
    readonly violation?: { field: string; rule: string },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function invalidArgument(field: string, rule: string, detail: string): EngineError {
  return new EngineError("invalid-argument", `invalid ${field}: ${detail} [${rule}]`, { field, rule });
}
