import type { SubjectReference } from "@gatehouse/proto";
import { AuthzClientError } from "./errors.js";
import { principalSubject } from "./references.js";

/** Longer headers are refused before decoding (the platform's own limit is far below). */
const MAX_HEADER_LENGTH = 16 * 1024;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/**
 * The subject of a request from its `x-rh-identity` header (base64 JSON): a User's
 * `identity.user.user_id`, or a ServiceAccount's `identity.service_account.user_id` (its
 * `client_id` when no user id is given), as the principal `<domain>/<user_id>`.
 * The header itself is never sent anywhere; only the subject reference leaves the process.
 */
export function subjectFromIdentityHeader(header: string, domain = "redhat"): SubjectReference {
  const refuse = (why: string) => new AuthzClientError("invalid-argument", `x-rh-identity ${why}.`);
  if (typeof header !== "string" || header.length === 0) throw refuse("is missing");
  if (header.length > MAX_HEADER_LENGTH) throw refuse(`is longer than ${MAX_HEADER_LENGTH} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
  } catch {
    throw refuse("is not base64-encoded JSON");
  }
  const identity = record(record(parsed)?.["identity"]);
  if (!identity) throw refuse("has no identity object");
  const user = record(identity["user"]);
  const serviceAccount = record(identity["service_account"]);
  const userId = nonEmpty(user?.["user_id"]) ?? nonEmpty(serviceAccount?.["user_id"]) ?? nonEmpty(serviceAccount?.["client_id"]);
  if (!userId) throw refuse("names no user id (identity.user.user_id or identity.service_account.user_id)");
  return principalSubject(userId, domain);
}
