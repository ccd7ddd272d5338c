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
