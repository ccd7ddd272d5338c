import { Router } from "express";
import type { Store } from "@gatehouse/store";
import { ApiError } from "./problem.js";

const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `GET /access:organisation/?org_id=` answers 204 when the organisation exists and 404 when it does
 * not, without creating it (any identity-carrying request would): the console's local sign-in asks
 * first, so a mistyped org id is never turned into a new empty organisation. Only where the
 * identity header is trusted, i.e. where anyone may already claim any organisation, so it reveals
 * nothing new; elsewhere it is a plain 404.
 */
export function organisationProbe(store: () => Store | null, trustIdentityHeader: boolean): Router {
  const router = Router({ strict: true, caseSensitive: true });
  router.get("/access\\:organisation/", (req, res, next) => {
    (async () => {
      const current = store();
      if (!trustIdentityHeader) throw new ApiError(404, [{ message: "Not found.", field: "detail" }]);
      if (!current) throw new ApiError(503, [{ message: "The service is starting.", field: "detail" }], { headers: { "retry-after": "1" } });
      const orgId = typeof req.query["org_id"] === "string" ? req.query["org_id"] : "";
      if (!ORG_ID.test(orgId)) throw new ApiError(400, [{ message: "Enter an organisation id of 1-64 letters, digits, '-' or '_'.", field: "org_id" }]);
      if (!(await current.tenants.find(orgId))) throw new ApiError(404, [{ message: "No organisation has this id.", field: "org_id" }]);
      res.status(204).end();
    })().catch(next);
  });
  return router;
}
