// Field length limits, after upstream inventory-api's model limits (its reporter/resource columns):
// every string a caller sends is bounded at validation, so no unbounded value reaches the graph,
// the store, a status message or a log line.
export const FIELD_LIMITS = {
  /** resource_type, reporter type, relation names. */
  name: 128,
  /** resource_id, local_resource_id, workspace_id. */
  id: 128,
  reporterInstanceId: 256,
  href: 512,
  /** Consistency and continuation tokens. */
  token: 1024,
} as const;

/** Longest status message the engine sends: grpc-js clients choke on very large status headers. */
export const MAX_STATUS_MESSAGE = 1024;

/**
 * What a string field must be besides short: well-formed Unicode. Invalid UTF-8 on the wire is
 * decoded to an unpaired surrogate (grpc/strict-utf8.ts), so this one test refuses both instead of
 * letting either become U+FFFD somewhere later.
 */
// String#isWellFormed (ES2024, native in Node 20+; typed here as the project's lib is ES2023) is
// several times cheaper than the regular expression it replaced, on every string of every request.
export const isWellFormedText = (value: string): boolean => (value as string & { isWellFormed(): boolean }).isWellFormed();
export const UTF8_RULE = { rule: "string.utf8", detail: "value must be valid UTF-8 (no invalid bytes or unpaired surrogates)" } as const;
