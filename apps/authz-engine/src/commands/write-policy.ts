// Who may write what through ReportResource / DeleteResource. A reporter is named by its token's
// client id (or subject), like system users on the management API: it may write the resource types
// it is registered for, in its own token's organisation unless it may act for any organisation.
import { EngineError } from "../errors.js";

export interface ReporterGrant {
  /** `<reporter>/<type>` definitions it may write, or every type. */
  resourceTypes: ReadonlySet<string> | "*";
  /** May write into any tenant; otherwise only into its token's `organization.id`. */
  allowAnyOrg: boolean;
}

/** Keyed by the token's client id (`azp` / `client_id`), falling back to its `sub`. */
export type Reporters = ReadonlyMap<string, ReporterGrant>;

/** The part of the caller's identity a write is decided on. */
export interface WriteCaller {
  userId: string;
  clientId?: string | null;
  orgId: string | null;
}

export interface WritePolicy {
  /** Throws `permission-denied` unless the caller may write `definition` in tenant `orgId`. */
  authorize(caller: WriteCaller | null, definition: string, orgId: string): void;
  /**
   * For a report into a workspace nobody has created yet (held until it appears) and for dropping
   * such a held report: throws `permission-denied` unless the caller may write `definition` at all,
   * and returns the tenant the held report is bound to (it is placed only if the workspace turns
   * out to be that tenant's), or null when the caller may write into any tenant.
   */
  heldOrg(caller: WriteCaller | null, definition: string): string | null;
  /**
   * KesselTupleService writes (CreateTuples, DeleteTuples, AcquireLock): replicated tuples carry no
   * tenant to check, so only a reporter allowed into any tenant may write them, and only the
   * resource types it is registered for (`"*"`: a delete filter naming no type needs every type).
   */
  authorizeReplication(caller: WriteCaller | null, definitions: readonly string[] | "*"): void;
  /**
   * ReadTuples: the resource types of the replicated partition the caller may read, i.e. those it
   * may replicate (`"*"`: all); throws `permission-denied` for a caller that may not replicate.
   */
  replicationScope(caller: WriteCaller | null): ReadonlySet<string> | "*";
}

/** Unauthenticated mode (local use): anyone may write, as anyone may check. */
export const openWritePolicy: WritePolicy = {
  authorize() {},
  // The caller's tenant when its credentials name one, as before write tenancy existed.
  heldOrg: (caller) => caller?.orgId ?? null,
  authorizeReplication() {},
  replicationScope: () => "*",
};

export function reporterWritePolicy(reporters: Reporters): WritePolicy {
  const replicationScope = (caller: WriteCaller | null): ReadonlySet<string> | "*" => {
    const grant = caller ? (reporters.get(caller.clientId ?? "") ?? reporters.get(caller.userId)) : undefined;
    if (!caller || !grant) throw new EngineError("permission-denied", "the caller is not a registered reporter");
    if (!grant.allowAnyOrg) throw new EngineError("permission-denied", "the caller may not replicate tuples (it is not allowed into every organisation)");
    return grant.resourceTypes;
  };
  return {
    authorize(caller, definition, orgId) {
      const grant = caller ? (reporters.get(caller.clientId ?? "") ?? reporters.get(caller.userId)) : undefined;
      if (!caller || !grant) throw new EngineError("permission-denied", "the caller is not a registered reporter");
      if (grant.resourceTypes !== "*" && !grant.resourceTypes.has(definition)) {
        throw new EngineError("permission-denied", "the caller may not report this resource type");
      }
      if (!grant.allowAnyOrg && caller.orgId !== orgId) {
        throw new EngineError("permission-denied", "the caller may not write into this organisation");
      }
    },
    heldOrg(caller, definition) {
      const grant = caller ? (reporters.get(caller.clientId ?? "") ?? reporters.get(caller.userId)) : undefined;
      if (!caller || !grant) throw new EngineError("permission-denied", "the caller is not a registered reporter");
      if (grant.resourceTypes !== "*" && !grant.resourceTypes.has(definition)) {
        throw new EngineError("permission-denied", "the caller may not report this resource type");
      }
      if (grant.allowAnyOrg) return null;
      if (!caller.orgId) throw new EngineError("permission-denied", "the caller may not write into this organisation");
      return caller.orgId;
    },
    authorizeReplication(caller, definitions) {
      const allowed = replicationScope(caller);
      if (allowed === "*") return;
      if (definitions === "*" || definitions.some((definition) => !allowed.has(definition))) {
        throw new EngineError("permission-denied", "the caller may not write tuples of this resource type");
      }
    },
    replicationScope,
  };
}

/**
 * `{"<client id or sub>": {"resource_types": ["hbi/host"] | "*", "allow_any_org": false}}`;
 * a malformed value fails at start, naming what is wrong.
 */
export function parseReporters(raw: string | undefined): Reporters {
  const reporters = new Map<string, ReporterGrant>();
  if (raw === undefined || raw.trim() === "") return reporters;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new EngineError("invalid-config", "AUTHZ_REPORTERS is not valid JSON.");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new EngineError("invalid-config", "AUTHZ_REPORTERS must be a JSON object.");
  for (const [name, value] of Object.entries(parsed)) {
    const entry = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
    const types = entry["resource_types"];
    const valid = types === "*" || (Array.isArray(types) && types.every((t) => typeof t === "string" && /^[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+$/.test(t)));
    if (!valid) throw new EngineError("invalid-config", `AUTHZ_REPORTERS.${name}.resource_types must be "*" or a list of <reporter>/<type> names.`);
    const anyOrg = entry["allow_any_org"] ?? false;
    if (typeof anyOrg !== "boolean") throw new EngineError("invalid-config", `AUTHZ_REPORTERS.${name}.allow_any_org must be true or false.`);
    reporters.set(name, { resourceTypes: types === "*" ? "*" : new Set(types as string[]), allowAnyOrg: anyOrg });
  }
  return reporters;
}
