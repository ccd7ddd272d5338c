import { Router } from "express";
import { addGroupPrincipals, groupPrincipals, groupServiceAccountMembership, removeGroupPrincipals } from "../commands/group-members.js";
import { createGroup, deleteGroup, getGroup } from "../commands/groups.js";
import { listV1Groups } from "../commands/v1-group-list.js";
import { getPrincipal, listPrincipals } from "../commands/principals.js";
import type { Services } from "../commands/services.js";
import { contextOf } from "../http/identity.js";
import { offsetEnvelope, parseLenientOffsetPage, parseOffsetPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";
import { parseBody, parseQuery } from "../http/validate.js";
import { groupBody, groupListQuery, groupPrincipalsBody, groupPrincipalsDeleteQuery, groupPrincipalsListQuery } from "../schemas/groups.js";
import { principalListQuery } from "../schemas/principals.js";
import { v1GroupListQuery } from "./v1-list-queries.js";

export const PRINCIPAL_PAGE_MAX = 1000;

/** Read-only principals (v2, and the v1 path older clients use). */
export function principalRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });
  router.get(
    "/principals/",
    route(async (req, res) => {
      const query = parseQuery(principalListQuery, req);
      const page = parseOffsetPage(query, PRINCIPAL_PAGE_MAX);
      const result = await listPrincipals(services, contextOf(res), { username: query.username, type: query.type, orderBy: query.order_by }, page);
      sendJson(res, 200, offsetEnvelope(req, page, result.count, result.data));
    }),
  );
  router.get(
    "/principals/:id/",
    route(async (req, res) => {
      sendJson(res, 200, await getPrincipal(services, contextOf(res), String(req.params["id"])));
    }),
  );
  return router;
}

/** v1 group management: what a user needs to put principals into groups. */
export function groupRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });
  router.get(
    "/groups/",
    route(async (req, res) => {
      const query = parseQuery(groupListQuery, req);
      const page = parseOffsetPage(query, PRINCIPAL_PAGE_MAX);
      const result = await listV1Groups(services, contextOf(res), v1GroupListQuery(req), page);
      sendJson(res, 200, offsetEnvelope(req, page, result.count, result.data));
    }),
  );
  router.post(
    "/groups/",
    route(async (req, res) => {
      const written = await createGroup(services, contextOf(res), parseBody(groupBody, req));
      sendJson(res, 201, written.value, written.token);
    }),
  );
  router.get(
    "/groups/:uuid/",
    route(async (req, res) => {
      sendJson(res, 200, await getGroup(services, contextOf(res), String(req.params["uuid"])));
    }),
  );
  router.delete(
    "/groups/:uuid/",
    route(async (req, res) => {
      const written = await deleteGroup(services, contextOf(res), String(req.params["uuid"]));
      sendJson(res, 204, null, written.token);
    }),
  );
  router.get(
    "/groups/:uuid/principals/",
    route(async (req, res) => {
      const clientIds = req.query["service_account_client_ids"];
      if (clientIds !== undefined) {
        const others = Object.keys(req.query).filter((name) => name !== "service_account_client_ids");
        const report = await groupServiceAccountMembership(services, contextOf(res), String(req.params["uuid"]), typeof clientIds === "string" ? clientIds : "", others);
        sendJson(res, 200, { meta: { count: report.count }, links: {}, data: report.data });
        return;
      }
      const query = parseQuery(groupPrincipalsListQuery, req);
      // Upstream pages a group's members itself: a bad limit or offset falls back to 10 and 0.
      const page = parseLenientOffsetPage(query, PRINCIPAL_PAGE_MAX);
      const result = await groupPrincipals(
        services,
        contextOf(res),
        String(req.params["uuid"]),
        { principalType: query.principal_type, usernameOnly: query.username_only, adminOnly: query.admin_only, principalUsername: query.principal_username, orderBy: query.order_by },
        page,
      );
      sendJson(res, 200, offsetEnvelope(req, page, result.count, result.data));
    }),
  );
  router.post(
    "/groups/:uuid/principals/",
    route(async (req, res) => {
      const body = parseBody(groupPrincipalsBody, req);
      const written = await addGroupPrincipals(services, contextOf(res), String(req.params["uuid"]), body.principals);
      sendJson(res, 200, written.value, written.token);
    }),
  );
  router.delete(
    "/groups/:uuid/principals/",
    route(async (req, res) => {
      const query = parseQuery(groupPrincipalsDeleteQuery, req);
      const written = await removeGroupPrincipals(services, contextOf(res), String(req.params["uuid"]), { usernames: query.usernames, serviceAccounts: query["service-accounts"] });
      sendJson(res, 204, null, written.token);
    }),
  );
  return router;
}
