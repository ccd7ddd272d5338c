import { Router } from "express";
import { accessPage, principalAccess } from "../commands/v1-access.js";
import { getV1Role, getV1RoleAccess, groupV1Roles, listV1Roles } from "../commands/v1-roles.js";
import type { Services } from "../commands/services.js";
import { contextOf } from "../http/identity.js";
import { offsetEnvelope, parseOffsetPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";
import { parseQuery } from "../http/validate.js";
import { v1AccessQuery, v1GroupRolesQuery, v1PageQuery, v1RoleListQuery } from "../schemas/v1-queries.js";

const ROLE_PAGE_MAX = 1000;

function slice<T>(items: T[], page: { limit: number; offset: number }): T[] {
  return items.slice(page.offset, page.limit === -1 ? undefined : page.offset + page.limit);
}

/** insights-rbac's read-only v1 access and roles endpoints. */
export function v1Routes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });
  router.get(
    "/access/",
    route(async (req, res) => {
      const query = parseQuery(v1AccessQuery, req);
      const entries = await principalAccess(services, contextOf(res), query);
      const page = accessPage(query, entries.length);
      sendJson(res, 200, offsetEnvelope(req, page, entries.length, entries.slice(page.offset, page.offset + page.limit)));
    }),
  );
  router.get(
    "/roles/",
    route(async (req, res) => {
      const query = parseQuery(v1RoleListQuery, req);
      const page = parseOffsetPage(query, ROLE_PAGE_MAX);
      const roles = await listV1Roles(services, contextOf(res), query);
      sendJson(res, 200, offsetEnvelope(req, page, roles.length, slice(roles, page)));
    }),
  );
  router.get(
    "/roles/:uuid/",
    route(async (req, res) => {
      sendJson(res, 200, await getV1Role(services, contextOf(res), String(req.params["uuid"])));
    }),
  );
  router.get(
    "/roles/:uuid/access/",
    route(async (req, res) => {
      const query = parseQuery(v1PageQuery, req);
      const entries = await getV1RoleAccess(services, contextOf(res), String(req.params["uuid"]));
      const page = parseOffsetPage(query, ROLE_PAGE_MAX);
      sendJson(res, 200, offsetEnvelope(req, page, entries.length, slice(entries, page)));
    }),
  );
  router.get(
    "/groups/:uuid/roles/",
    route(async (req, res) => {
      const query = parseQuery(v1GroupRolesQuery, req);
      const roles = await groupV1Roles(services, contextOf(res), String(req.params["uuid"]), query);
      const page = parseOffsetPage(query, ROLE_PAGE_MAX);
      sendJson(res, 200, offsetEnvelope(req, page, roles.length, slice(roles, page)));
    }),
  );
  return router;
}
