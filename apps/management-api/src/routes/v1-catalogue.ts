import { readFileSync } from "node:fs";
import { Router } from "express";
import type { ManagementApiConfig } from "../config.js";
import type { Services } from "../commands/services.js";
import { listV1Principals } from "../commands/v1-principal-list.js";
import { listV1Permissions, v1PermissionOptions } from "../commands/v1-permissions.js";
import { contextOf } from "../http/identity.js";
import { methodNotAllowed } from "../http/method-not-allowed.js";
import { offsetEnvelope, parseLenientOffsetPage, parseOffsetPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";
import { parseQuery } from "../http/validate.js";
import { v1PermissionListQuery, v1PermissionOptionsQuery } from "../schemas/v1-queries.js";
import { v1PrincipalListQuery } from "./v1-list-queries.js";

const PERMISSION_PAGE_MAX = 1000;

/** v1 `/principals/` in upstream's v1 shapes (the v2 route answers the same path's detail reads). */
export function v1PrincipalListRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });
  router.get(
    "/principals/",
    route(async (req, res) => {
      const query = v1PrincipalListQuery(req);
      const page = parseLenientOffsetPage(query, PERMISSION_PAGE_MAX);
      const result = await listV1Principals(services, contextOf(res), query, page);
      sendJson(res, 200, offsetEnvelope(req, page, result.count, result.data));
    }),
  );
  return router;
}

/** v1 `/permissions/` and `/permissions/options/`: the active role configuration's catalogue. */
export function v1PermissionRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });
  router.get(
    "/permissions/",
    route(async (req, res) => {
      const query = parseQuery(v1PermissionListQuery, req);
      const page = parseOffsetPage(query, PERMISSION_PAGE_MAX);
      const records = await listV1Permissions(services, contextOf(res), query.filter, query.orderBy);
      const end = page.limit === -1 ? undefined : page.offset + page.limit;
      sendJson(res, 200, offsetEnvelope(req, page, records.length, records.slice(page.offset, end)));
    }),
  );
  router.get(
    "/permissions/options/",
    route(async (req, res) => {
      const query = parseQuery(v1PermissionOptionsQuery, req);
      const values = await v1PermissionOptions(services, contextOf(res), query.field, query.filter);
      // Without `limit`, upstream answers up to its maximum page.
      const page = parseOffsetPage({ limit: query.limit ?? String(PERMISSION_PAGE_MAX), offset: query.offset }, PERMISSION_PAGE_MAX);
      const end = page.limit === -1 ? undefined : page.offset + page.limit;
      sendJson(res, 200, offsetEnvelope(req, page, values.length, values.slice(page.offset, end)));
    }),
  );
  router.all(["/permissions/", "/permissions/options/"], (req, _res, next) => {
    next(req.method === "OPTIONS" ? undefined : methodNotAllowed(req.method, ["GET"]));
  });
  return router;
}

const V1_DOCUMENT = new URL("../../openapi/insights-rbac-v1.json", import.meta.url);
let v1Document: unknown;

/** `/status/` and `/openapi.json`, which insights-rbac answers without authentication. */
export function v1PublicRoutes(config: Pick<ManagementApiConfig, "buildCommit">): Router {
  const router = Router({ strict: true, caseSensitive: true });
  router.get("/status/", (_req, res) => {
    res.json({ api_version: 1, commit: config.buildCommit });
  });
  router.get("/openapi.json", (_req, res) => {
    v1Document ??= JSON.parse(readFileSync(V1_DOCUMENT, "utf8"));
    res.json(v1Document);
  });
  return router;
}
