import { isUtf8 } from "node:buffer";
import { AuthError } from "./errors.js";

/** The caller as described by an `x-rh-identity` header. */
export interface RhIdentity {
  orgId: string;
  accountNumber: string | null;
  /** `User`, `ServiceAccount`, `Associate`, ... as sent; informative only. */
  type: string | null;
  /** External user id (null for service accounts). */
  userId: string | null;
  /** Lower-cased user name, or the service account's username/client id. */
  username: string;
  isOrgAdmin: boolean;
  isInternal: boolean;
  /** `identity.internal.cross_access`: an associate acting in the organisation through its approved cross-account requests. */
  crossAccess: boolean;
  isServiceAccount: boolean;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  clientId: string | null;
}

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function asString(value: unknown): string | null {
  if (typeof value === "string" && value.length > 0) {
    // A JSON \ud800 escape: refused, not stored as U+FFFD under an id that then means something else.
    if (/\p{Surrogate}/u.test(value)) throw new AuthError("malformed-identity", "The identity header contains an unpaired surrogate character.");
    return value;
  }
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

/** Base64 of JSON with optional missing padding (clients often strip it). */
function decodeHeader(header: string): Json {
  const trimmed = header.trim();
  if (trimmed.length === 0) throw new AuthError("missing-credentials", "The identity header is empty.");
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    throw new AuthError("malformed-identity", "The identity header is not valid base64.");
  }
  const padded = trimmed.replace(/=+$/, "").padEnd(Math.ceil(trimmed.replace(/=+$/, "").length / 4) * 4, "=");
  let parsed: unknown;
  try {
    const bytes = Buffer.from(padded, "base64");
    if (!isUtf8(bytes)) throw new Error("not UTF-8");
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch (cause) {
    throw new AuthError("malformed-identity", "The identity header is not base64-encoded UTF-8 JSON.", { cause });
  }
  const root = asObject(parsed);
  const identity = root ? asObject(root["identity"]) : null;
  if (!identity) throw new AuthError("malformed-identity", "The identity header has no 'identity' object.");
  return identity;
}

/**
 * Parses `x-rh-identity`. Whether the caller is a user or a service account follows the
 * presence of the `user` / `service_account` objects, not `type` (as insights-rbac does).
 */
export function parseIdentityHeader(header: string): RhIdentity {
  const identity = decodeHeader(header);
  const internal = asObject(identity["internal"]);
  const orgId = asString(identity["org_id"]) ?? asString(internal?.["org_id"]);
  if (!orgId) throw new AuthError("missing-org-id", "An org_id must be provided in the identity header.");
  const accountNumber = asString(identity["account_number"]);
  const type = asString(identity["type"]);
  const user = asObject(identity["user"]);
  const serviceAccount = asObject(identity["service_account"]);

  if (user) {
    const username = asString(user["username"]);
    if (!username) throw new AuthError("malformed-identity", "The identity header's user has no username.");
    return {
      orgId,
      accountNumber,
      type,
      userId: asString(user["user_id"]),
      username: username.toLowerCase(),
      isOrgAdmin: user["is_org_admin"] === true,
      isInternal: user["is_internal"] === true,
      crossAccess: internal?.["cross_access"] === true,
      isServiceAccount: false,
      email: asString(user["email"]),
      firstName: asString(user["first_name"]),
      lastName: asString(user["last_name"]),
      clientId: null,
    };
  }
  if (serviceAccount) {
    const clientId = asString(serviceAccount["client_id"]);
    if (!clientId) {
      throw new AuthError("missing-client-id", "A client_id must be provided for the service account in the identity header.");
    }
    return {
      orgId,
      accountNumber,
      type,
      // Service accounts are known to the relation graph by their client id.
      userId: asString(serviceAccount["user_id"]) ?? clientId,
      username: (asString(serviceAccount["username"]) ?? clientId).toLowerCase(),
      isOrgAdmin: false,
      isInternal: false,
      crossAccess: false,
      isServiceAccount: true,
      email: null,
      firstName: null,
      lastName: null,
      clientId,
    };
  }
  throw new AuthError("no-principal", "The identity header names neither a user nor a service account.");
}

/** Builds an `x-rh-identity` value; used by tests, local tooling and the CLI. */
export function encodeIdentityHeader(input: {
  orgId: string;
  userId?: string;
  username?: string;
  isOrgAdmin?: boolean;
  accountNumber?: string;
  serviceAccount?: { clientId: string; username?: string };
  email?: string;
  isInternal?: boolean;
  /** Sets `identity.internal.cross_access` (an associate acting through cross-account requests). */
  crossAccess?: boolean;
  firstName?: string;
  lastName?: string;
}): string {
  const identity: Json = { org_id: input.orgId, type: input.serviceAccount ? "ServiceAccount" : "User" };
  if (input.accountNumber) identity["account_number"] = input.accountNumber;
  if (input.serviceAccount) {
    identity["service_account"] = {
      client_id: input.serviceAccount.clientId,
      username: input.serviceAccount.username ?? input.serviceAccount.clientId,
    };
  } else {
    identity["user"] = {
      username: input.username ?? input.userId ?? "user",
      user_id: input.userId ?? input.username ?? "user",
      is_org_admin: input.isOrgAdmin ?? false,
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(input.isInternal !== undefined ? { is_internal: input.isInternal } : {}),
      ...(input.firstName !== undefined ? { first_name: input.firstName } : {}),
      ...(input.lastName !== undefined ? { last_name: input.lastName } : {}),
    };
  }
  if (input.crossAccess) identity["internal"] = { org_id: input.orgId, cross_access: true };
  return Buffer.from(JSON.stringify({ identity }), "utf8").toString("base64");
}
