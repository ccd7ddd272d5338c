import { RbacError } from "./errors.js";

/** A parsed v1 permission `application:resource_type:verb` (resource and verb may be `*`). */
export interface V1Permission {
  readonly app: string;
  readonly resource: string;
  readonly verb: string;
}

const WILDCARD = "*";

/** Parses and validates a v1 permission string. The application is never a wildcard. */
export function parseV1Permission(permission: string): V1Permission {
  const parts = permission.split(":");
  if (parts.length !== 3 || parts.some((p) => p.trim() === "" || p !== p.trim())) {
    throw new RbacError("invalid-permission", `invalid v1 permission '${permission}': expected 'application:resource_type:verb' with three non-empty parts`);
  }
  const [app, resource, verb] = parts as [string, string, string];
  if (app === WILDCARD) {
    throw new RbacError("invalid-permission", `invalid v1 permission '${permission}': the application cannot be '*'`);
  }
  for (const part of parts) {
    if (part.includes(WILDCARD) && part !== WILDCARD) {
      throw new RbacError("invalid-permission", `invalid v1 permission '${permission}': '*' must be a whole part (no partial globs)`);
    }
  }
  return { app, resource, verb };
}

export function formatV1Permission(p: V1Permission): string {
  return `${p.app}:${p.resource}:${p.verb}`;
}

/** Normalises one name part: lower case, `-` `.` `:` and spaces become `_`, `*` becomes `all`. */
export function normalizeNamePart(part: string): string {
  if (part === WILDCARD) return "all";
  return part.toLowerCase().replace(/[-.: ]/g, "_");
}

/**
 * Base name of the role relation that stores a held v1 permission (`patch:system:read` →
 * `patch_system_read`, `inventory:*:*` → `inventory_all_all`); the stored relation is `t_<base>`.
 */
export function v1RelationName(permission: string | V1Permission): string {
  if (permission === "*:*:*") return "all_all_all";
  const p = typeof permission === "string" ? parseV1Permission(permission) : permission;
  return [p.app, p.resource, p.verb].map(normalizeNamePart).join("_");
}

/** The v2 verb of a v1 verb: read → view, write → edit, others unchanged. */
export function v2Verb(verb: string): string {
  const v = normalizeNamePart(verb);
  if (v === "read") return "view";
  if (v === "write") return "edit";
  return v;
}

/**
 * Conventional v2 permission name of a concrete v1 permission (`patch:system:read` →
 * `patch_system_view`). Schemas may name a permission differently (see asset types `v2`).
 */
export function v1ToV2PermissionName(permission: string | V1Permission): string {
  const p = typeof permission === "string" ? parseV1Permission(permission) : permission;
  if (p.resource === WILDCARD || p.verb === WILDCARD) {
    throw new RbacError("invalid-permission", `v1 permission '${formatV1Permission(p)}' is a wildcard; only concrete permissions have a v2 name`);
  }
  return [normalizeNamePart(p.app), normalizeNamePart(p.resource), v2Verb(p.verb)].join("_");
}

/**
 * The held-permission forms that grant a concrete `A:R:V`, most specific first:
 * `A:R:V`, `A:R:*`, `A:*:V`, `A:*:*`, `*:*:*`.
 */
export function wildcardCandidates(permission: string): string[] {
  const p = parseV1Permission(permission);
  if (p.resource === WILDCARD || p.verb === WILDCARD) {
    throw new RbacError("invalid-permission", `wildcardCandidates needs a concrete permission, got '${permission}'`);
  }
  return [`${p.app}:${p.resource}:${p.verb}`, `${p.app}:${p.resource}:*`, `${p.app}:*:${p.verb}`, `${p.app}:*:*`, "*:*:*"];
}

/** True when a role holding `held` permissions grants the concrete permission (wildcard rule). */
export function roleGrants(held: Iterable<string>, permission: string): boolean {
  const candidates = new Set(wildcardCandidates(permission));
  for (const h of held) if (candidates.has(h)) return true;
  return false;
}

/**
 * Validates a held permission: like parseV1Permission but also accepts the global `*:*:*`
 * that the wildcard rule names (held only, never checked).
 */
export function validateHeldPermission(permission: string): string {
  if (permission === "*:*:*") return permission;
  parseV1Permission(permission);
  return permission;
}

/**
 * Whether a v1 permission gives more than read access to user access management itself (an
 * `rbac` permission whose verb is not `read`, wildcards included: `rbac:*:*`, `rbac:group:write`).
 * insights-rbac lets only organisation administrators change a group holding such a permission,
 * so a User Access administrator cannot widen their own group or make new administrators.
 * Compared part by part as stored, without validation: a malformed entry escalates nothing.
 */
export function grantsUserAccessAboveRead(permission: string): boolean {
  const parts = permission.split(":");
  return parts.length === 3 && parts[0] === "rbac" && parts[2] !== "read";
}
