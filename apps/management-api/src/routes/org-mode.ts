import { Router, type Request } from "express";
import { activateV2, operatorServices, orgMode } from "../commands/org-mode.js";
import type { Services } from "../commands/services.js";
import { isLoopbackAddress } from "../http/loopback.js";
import { route, sendJson } from "../http/respond.js";

/**
 * Operator endpoints of an organisation's v1 / v2 mode: `GET /admin/orgs/{org_id}/mode` and
 * `POST /admin/orgs/{org_id}/mode/v2[?require_parity=true]`, from the local host only.
 */
export function orgModeRoutes(services: () => Services | null): Router {
  const router = Router({ strict: true, caseSensitive: true });
  const operator = (req: Request) => operatorServices(isLoopbackAddress(req.socket.remoteAddress), services());
  router.use((req, _res, next) => {
    operator(req);
    next();
  });
  router.get(
    "/orgs/:orgId/mode",
    route(async (req, res) => {
      sendJson(res, 200, await orgMode(operator(req).store, String(req.params["orgId"])));
    }),
  );
  router.post(
    "/orgs/:orgId/mode/v2",
    route(async (req, res) => {
      const requireParity = req.query["require_parity"] === "true";
      sendJson(res, 200, await activateV2(operator(req), String(req.params["orgId"]), { requireParity }));
    }),
  );
  return router;
}
