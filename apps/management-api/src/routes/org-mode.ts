import { Router } from "express";
import { activateV2, orgMode } from "../commands/org-mode.js";
import type { Services } from "../commands/services.js";
import { isLoopbackAddress } from "../http/loopback.js";
import { ApiError } from "../http/problem.js";
import { route, sendJson } from "../http/respond.js";

/**
 * Operator endpoints of an organisation's v1 / v2 mode: `GET /admin/orgs/{org_id}/mode` and
 * `POST /admin/orgs/{org_id}/mode/v2[?require_parity=true]`. They carry no identity, so (as the
 * role-configuration reload) only callers on the same host may use them.
 */
export function orgModeRoutes(services: () => Services | null): Router {
  const router = Router({ strict: true, caseSensitive: true });
  router.use((req, _res, next) => {
    if (!isLoopbackAddress(req.socket.remoteAddress)) {
      next(new ApiError(403, [{ message: "Organisation modes can be read and set from the local host only.", field: "detail" }]));
      return;
    }
    if (!services()) {
      next(new ApiError(503, [{ message: "The service is not ready.", field: "detail" }]));
      return;
    }
    next();
  });
  router.get(
    "/orgs/:orgId/mode",
    route(async (req, res) => {
      sendJson(res, 200, await orgMode(services()!.store, String(req.params["orgId"])));
    }),
  );
  router.post(
    "/orgs/:orgId/mode/v2",
    route(async (req, res) => {
      const requireParity = req.query["require_parity"] === "true";
      sendJson(res, 200, await activateV2(services()!, String(req.params["orgId"]), { requireParity }));
    }),
  );
  return router;
}
