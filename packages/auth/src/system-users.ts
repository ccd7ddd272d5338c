import { AuthError } from "./errors.js";
import type { VerifiedToken } from "./oidc.js";

export interface SystemUserFlags {
  admin: boolean;
  isServiceAccount: boolean;
  allowAnyOrg: boolean;
}

/** Token subjects allowed to call as system users, keyed by `sub`. */
export type SystemUsers = ReadonlyMap<string, SystemUserFlags>;

const FLAG_KEYS = ["admin", "is_service_account", "allow_any_org"] as const;

/** Parses `{"<sub>": {"admin": bool, "is_service_account": bool, "allow_any_org": bool}}`. */
export function parseSystemUsers(json: string | undefined | null): SystemUsers {
  const users = new Map<string, SystemUserFlags>();
  if (json === undefined || json === null || json.trim() === "") return users;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (cause) {
    throw new AuthError("invalid-config", "SYSTEM_USERS is not valid JSON.", { cause });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new AuthError("invalid-config", "SYSTEM_USERS must be a JSON object keyed by token subject.");
  }
  for (const [sub, value] of Object.entries(parsed)) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new AuthError("invalid-config", `SYSTEM_USERS['${sub}'] must be an object.`);
    }
    const entry = value as Record<string, unknown>;
    for (const key of Object.keys(entry)) {
      if (!(FLAG_KEYS as readonly string[]).includes(key)) {
        throw new AuthError("invalid-config", `SYSTEM_USERS['${sub}'] has unknown flag '${key}'.`);
      }
    }
    for (const key of FLAG_KEYS) {
      if (entry[key] !== undefined && typeof entry[key] !== "boolean") {
        throw new AuthError("invalid-config", `SYSTEM_USERS['${sub}'].${key} must be a boolean.`);
      }
    }
    users.set(sub, {
      admin: entry["admin"] === true,
      isServiceAccount: entry["is_service_account"] === true,
      allowAnyOrg: entry["allow_any_org"] === true,
    });
  }
  return users;
}

/** A caller authenticated by a bearer token whose subject is a configured system user. */
export interface SystemPrincipal {
  orgId: string;
  accountNumber: string | null;
  userId: string;
  username: string;
  isOrgAdmin: boolean;
  isServiceAccount: boolean;
  allowAnyOrg: boolean;
}

/**
 * Applies the system-user rules to a verified token: the subject must be configured;
 * `x-rh-rbac-org-id` may choose the organisation only for `allow_any_org` users, and a
 * header that disagrees with the effective organisation is rejected.
 */
export function resolveSystemPrincipal(token: VerifiedToken, systemUsers: SystemUsers, headers: { orgId?: string | null; accountNumber?: string | null } = {}): SystemPrincipal {
  const flags = systemUsers.get(token.sub);
  if (!flags) throw new AuthError("unknown-system-user", "The token subject is not a configured system user.");
  const headerOrg = headers.orgId?.trim() || null;
  const orgId = flags.allowAnyOrg ? (headerOrg ?? token.orgId) : token.orgId;
  if (!orgId) throw new AuthError("missing-org-id", "An org_id must be provided for this system user.");
  if (headerOrg !== null && headerOrg !== orgId) {
    throw new AuthError("org-mismatch", "The x-rh-rbac-org-id header does not match the token's organisation.");
  }
  return {
    orgId,
    accountNumber: (flags.allowAnyOrg ? headers.accountNumber?.trim() || null : null) ?? token.accountNumber,
    userId: token.sub,
    username: token.username ?? token.clientId ?? token.sub,
    isOrgAdmin: flags.admin,
    isServiceAccount: flags.isServiceAccount,
    allowAnyOrg: flags.allowAnyOrg,
  };
}
