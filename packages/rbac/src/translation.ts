import type { AssetType } from "./asset-types.js";
import { RbacError } from "./errors.js";

/** A v1-style authorization request as applications make it today. */
export interface V1Request {
  readonly org_id: string;
  /** The resource instance id (Pattern 1 and 2 detail checks); omit for list requests. */
  readonly resource?: string;
  /** The v1 verb (read, write, ...). */
  readonly operation: string;
  /** The user id of the principal. */
  readonly user: string;
  /** "list" asks which resources are accessible; default: detail when `resource` is set, else list. */
  readonly mode?: "detail" | "list";
  /** A read that exposes credentials or other highly sensitive data (uses CheckForUpdate). */
  readonly sensitive?: boolean;
}

export interface TranslationContext {
  readonly domain: string;
  readonly rootWorkspaceId?: string;
  readonly defaultWorkspaceId?: string;
}

export interface ResourceReference {
  resource_type: string;
  resource_id: string;
  reporter: { type: string };
}
export interface SubjectReference {
  resource: ResourceReference;
}
export interface CheckRequestJson {
  object: ResourceReference;
  relation: string;
  subject: SubjectReference;
}
export interface StreamedListObjectsRequestJson {
  object_type: { resource_type: string; reporter_type: string };
  relation: string;
  subject: SubjectReference;
}

/** The Kessel v1beta2 request a v1 request becomes (see "Request translation per pattern"). */
export type TranslatedRequest =
  | { rpc: "Check" | "CheckForUpdate"; pattern: number; request: CheckRequestJson }
  | { rpc: "StreamedListObjects"; pattern: number; request: StreamedListObjectsRequestJson };

const RBAC_REPORTER = "rbac";

export function principalSubject(domain: string, userId: string): SubjectReference {
  return { resource: { resource_type: "principal", resource_id: `${domain}/${userId}`, reporter: { type: RBAC_REPORTER } } };
}

function workspaceObject(id: string | undefined, which: string, pattern: number): ResourceReference {
  if (!id) {
    throw new RbacError("missing-context", `Pattern ${pattern} checks at the ${which} Workspace: its id is required for the org`);
  }
  return { resource_type: "workspace", resource_id: id, reporter: { type: RBAC_REPORTER } };
}

/**
 * Translates a v1-style request into the exact Check / CheckForUpdate / StreamedListObjects
 * request of the asset type's pattern.
 */
export function translateRequest(req: V1Request, assetType: AssetType, ctx: TranslationContext): TranslatedRequest {
  for (const field of ["org_id", "operation", "user"] as const) {
    if (typeof req[field] !== "string" || req[field].length === 0) {
      throw new RbacError("invalid-request", `v1 request needs a non-empty '${field}'`);
    }
  }
  if (!ctx.domain) throw new RbacError("missing-context", "the translation context needs a domain");
  const verb = assetType.verbs[req.operation];
  if (!verb) {
    throw new RbacError("unknown-verb", `asset type '${assetType.key}' has no operation '${req.operation}'`);
  }
  const relation = verb.relation;
  const subject = principalSubject(ctx.domain, req.user);
  // Writes and sensitive reads must be fully consistent: CheckForUpdate.
  const rpc = req.operation !== "read" || req.sensitive === true ? "CheckForUpdate" : "Check";
  const mode = req.mode ?? (req.resource ? "detail" : "list");
  const pattern = assetType.pattern;

  switch (pattern) {
    case 1:
    case 2: {
      const object = assetType.object;
      if (!object) throw new RbacError("invalid-request", `asset type '${assetType.key}' has no native object type`);
      if (mode === "detail") {
        if (!req.resource) throw new RbacError("invalid-request", "a detail request needs 'resource'");
        return {
          rpc,
          pattern,
          request: {
            object: { resource_type: object.resourceType, resource_id: req.resource, reporter: { type: object.reporterType } },
            relation,
            subject,
          },
        };
      }
      // Pattern 2 lists workspaces and filters the app's own query; Pattern 1 lists the objects.
      const objectType = pattern === 2 ? { resource_type: "workspace", reporter_type: RBAC_REPORTER } : { resource_type: object.resourceType, reporter_type: object.reporterType };
      return { rpc: "StreamedListObjects", pattern, request: { object_type: objectType, relation, subject } };
    }
    case 3:
      return { rpc, pattern, request: { object: workspaceObject(ctx.defaultWorkspaceId, "Default", 3), relation, subject } };
    case 4:
      return { rpc, pattern, request: { object: workspaceObject(ctx.rootWorkspaceId, "Root", 4), relation, subject } };
    case 5:
      return {
        rpc,
        pattern,
        request: {
          object: { resource_type: "tenant", resource_id: `${ctx.domain}/${req.org_id}`, reporter: { type: RBAC_REPORTER } },
          relation,
          subject,
        },
      };
  }
}
