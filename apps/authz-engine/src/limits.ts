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
// (\p{Surrogate} under /u matches only unpaired ones: a pair is one code point. String#isWellFormed needs lib es2024.)
const UNPAIRED_SURROGATE = /\p{Surrogate}/u;
export const isWellFormedText = (value: string): boolean => !UNPAIRED_SURROGATE.test(value);
export const UTF8_RULE = { rule: "string.utf8", detail: "value must be valid UTF-8 (no invalid bytes or unpaired surrogates)" } as const;
