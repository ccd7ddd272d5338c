// /api/rbac/v1/cross-account-requests/: thin handlers (zod for bodies and queries, upstream's
// shapes) over commands/cross-account.ts.
import { Router, type Request } from "express";
import { changeCrossAccountRequest, createCrossAccountRequest, getCrossAccountRequest, listCrossAccountRequests, rolePermissions } from "../commands/cross-account.js";
import type { Services } from "../commands/services.js";
import { contextOf } from "../http/identity.js";
import { offsetEnvelope, parseLenientOffsetPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";
import { parseBody, parseQuery, parseWith } from "../http/validate.js";
import { approvedOnly, createRequestBody, detail, detailQuery, editRequestBody, listItem, listQuery, orderingOf } from "../schemas/cross-account.js";
import { uuidParam } from "../schemas/v1-queries.js";

const LIST_MAX = 1000;

/** PUT and PATCH name a request by its canonical UUID (upstream's `validate_uuid`). */
const requestId = (req: Request): string => parseWith(uuidParam("cross-account request uuid validation"), String(req.params["uuid"]));

export function crossAccountRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });

  router.get(
    "/cross-account-requests/",
    route(async (req, res) => {
      const query = parseQuery(listQuery, req);
      const page = parseLenientOffsetPage(query, LIST_MAX);
      const { by, page: found } = await listCrossAccountRequests(services, contextOf(res), {
        queryBy: query.query_by,
        status: query.status,
        orgId: query.org_id,
        approvedOnly: approvedOnly(query.approved_only),
        orderBy: orderingOf(query.order_by),
        ...page,
      });
      sendJson(
        res,
        200,
        offsetEnvelope(
          req,
          page,
          found.count,
          found.data.map((r) => listItem(r, by === "target_org")),
        ),
      );
    }),
  );

  router.post(
    "/cross-account-requests/",
    route(async (req, res) => {
      const body = parseBody(createRequestBody, req);
      const written = await createCrossAccountRequest(services, contextOf(res), body);
      sendJson(res, 201, detail(written.value, await rolePermissions(services, [written.value]), false), written.token);
    }),
  );

  router.get(
    "/cross-account-requests/:uuid/",
    route(async (req, res) => {
      const query = parseQuery(detailQuery, req);
      const { by, request } = await getCrossAccountRequest(services, contextOf(res), String(req.params["uuid"]).toLowerCase(), query.query_by);
      sendJson(res, 200, detail(request, await rolePermissions(services, [request]), by === "target_org"));
    }),
  );

  for (const method of ["PATCH", "PUT"] as const) {
    router[method === "PATCH" ? "patch" : "put"](
      "/cross-account-requests/:uuid/",
      route(async (req, res) => {
        const id = requestId(req);
        const body = parseBody(editRequestBody, req);
        const written = await changeCrossAccountRequest(services, contextOf(res), method, id, { ...body, keys: Object.keys(req.body as object) });
        sendJson(res, 200, detail(written.value, await rolePermissions(services, [written.value]), false), written.token);
      }),
    );
  }
  return router;
}
