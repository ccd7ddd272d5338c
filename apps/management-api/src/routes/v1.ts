import type { Request } from "express";
import { Router } from "express";
import { accessPage, principalAccess } from "../commands/v1-access.js";
import { getV1Role, getV1RoleAccess, groupV1Roles, listV1Roles } from "../commands/v1-roles.js";
import type { Services } from "../commands/services.js";
import { contextOf } from "../http/identity.js";
import { offsetEnvelope, parseOffsetPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";

/** A query parameter; when repeated, the last value (as Django's `QueryDict.get` upstream). */
export function param(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const last = value[value.length - 1];
    return typeof last === "string" ? last : undefined;
  }
  return undefined;
}

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
      const entries = await principalAccess(services, contextOf(res), {
        application: param(req, "application"),
        username: param(req, "username"),
        orderBy: param(req, "order_by"),
        status: param(req, "status"),
      });
      const page = accessPage({ limit: param(req, "limit"), offset: param(req, "offset") }, entries.length);
      sendJson(res, 200, offsetEnvelope(req, page, entries.length, entries.slice(page.offset, page.offset + page.limit)));
    }),
  );
  router.get(
    "/roles/",
    route(async (req, res) => {
      const page = parseOffsetPage({ limit: param(req, "limit"), offset: param(req, "offset") }, ROLE_PAGE_MAX);
      const roles = await listV1Roles(services, contextOf(res), {
        name: param(req, "name"),
        nameMatch: param(req, "name_match"),
        displayName: param(req, "display_name"),
        application: param(req, "application"),
        permission: param(req, "permission"),
        system: param(req, "system"),
        scope: param(req, "scope"),
        username: param(req, "username"),
        orderBy: param(req, "order_by"),
        addFields: param(req, "add_fields"),
      });
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
      const entries = await getV1RoleAccess(services, contextOf(res), String(req.params["uuid"]));
      const page = parseOffsetPage({ limit: param(req, "limit"), offset: param(req, "offset") }, ROLE_PAGE_MAX);
      sendJson(res, 200, offsetEnvelope(req, page, entries.length, slice(entries, page)));
    }),
  );
  router.get(
    "/groups/:uuid/roles/",
    route(async (req, res) => {
      const roles = await groupV1Roles(services, contextOf(res), String(req.params["uuid"]), {
        exclude: param(req, "exclude"),
        roleName: param(req, "role_name"),
        roleDisplayName: param(req, "role_display_name"),
        roleDescription: param(req, "role_description"),
        roleSystem: param(req, "role_system"),
        orderBy: param(req, "order_by"),
        scope: param(req, "scope"),
      });
      const page = parseOffsetPage({ limit: param(req, "limit"), offset: param(req, "offset") }, ROLE_PAGE_MAX);
      sendJson(res, 200, offsetEnvelope(req, page, roles.length, slice(roles, page)));
    }),
  );
  return router;
}
