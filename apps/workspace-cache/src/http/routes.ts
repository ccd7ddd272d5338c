import { Router } from "express";
import type { Authenticator } from "../authn.js";
import { WorkspaceCacheError } from "../errors.js";
import { type BuiltInWorkspaceType, type WorkspaceLookup, assertOrgId } from "../workspaces.js";

const PATH = "/api/rbac/v2/workspaces/";

function parseType(raw: unknown): BuiltInWorkspaceType {
  const value = typeof raw === "string" ? raw.trim().toLowerCase() : undefined;
  if (value === "root" || value === "default") return value;
  throw new WorkspaceCacheError("invalid-request", "Query parameter 'type' must be 'root' or 'default'; this service serves only the built-in workspaces.");
}

/**
 * `GET /api/rbac/v2/workspaces/?type=root|default`: the management API's list envelope with exactly
 * one workspace, as the SDKs parse it. Extra query parameters (`with_ancestry`, `limit`, `offset`) are ignored.
 */
export function workspaceRoutes(lookup: WorkspaceLookup, authenticator: Authenticator): Router {
  const router = Router();
  router.get(PATH, async (req, res) => {
    const type = parseType(req.query["type"]);
    const orgHeader = assertOrgId(req.header("x-rh-rbac-org-id"));
    const orgId = await authenticator.authenticate(req.header("authorization"), orgHeader);
    const { workspaces, from } = await lookup.builtIn(orgId);
    const self = `${PATH}?type=${type}&limit=10&offset=0`;
    res.setHeader("x-gatehouse-cache", from === "cache" ? "hit" : "miss");
    res.json({
      meta: { count: 1, limit: 10, offset: 0 },
      links: { first: self, next: null, previous: null, last: self },
      data: [workspaces[type]],
    });
  });
  return router;
}
