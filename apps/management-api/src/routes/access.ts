import { Router } from "express";
import { PermissionIndex } from "../access/catalogue.js";
import { explainAccess } from "../access/explain.js";
import { parityReport } from "../commands/parity.js";
import type { Services } from "../commands/services.js";
import { contextOf, type RequestContext } from "../http/identity.js";
import { forbidden } from "../domain/errors.js";
import { route, sendJson } from "../http/respond.js";
import { parseBody } from "../http/validate.js";
import { explainBody, explainSelfBody } from "../schemas/access.js";
import { selfView } from "../access/explain-self.js";
import { orgMode } from "../commands/org-mode.js";

/** Explaining anyone's access reveals the whole organisation's grants: org admins and service accounts only. */
function requireExplainer(ctx: RequestContext): void {
  if (!ctx.caller.isOrgAdmin && !ctx.caller.isServiceAccount) throw forbidden();
}

/** The access explorer's endpoints (the console's explorer, parity page and permission picker). */
export function accessRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });
  const index = new PermissionIndex(services.authz.graph.model);

  router.post(
    "/access\\:explain/",
    route(async (req, res) => {
      const ctx = contextOf(res);
      requireExplainer(ctx);
      const body = parseBody(explainBody, req);
      sendJson(res, 200, await explainAccess(services, index, ctx, body));
    }),
  );

  // Any signed-in user may ask about their own access ("why can't I ...?"), and nobody else's.
  router.post(
    "/access\\:explain-self/",
    route(async (req, res) => {
      const ctx = contextOf(res);
      const body = parseBody(explainSelfBody, req);
      sendJson(res, 200, selfView(await explainAccess(services, index, ctx, { ...body, subject: { type: "user", id: ctx.caller.userId } })));
    }),
  );

  // The schema's permission catalogue holds no tenant data: every signed-in user may read it (the self-service picker).
  router.get(
    "/access\\:permissions/",
    route(async (_req, res) => {
      sendJson(res, 200, {
        data: index.list.map((p) => ({ name: p.name, v1: p.v1, pattern: p.pattern, pattern_name: p.patternName, checked_at: p.checkedAt, granted: p.granted })),
      });
    }),
  );

  router.get(
    "/access\\:parity/",
    route(async (_req, res) => {
      const ctx = contextOf(res);
      requireExplainer(ctx);
      sendJson(res, 200, await parityReport(services, ctx, index.catalog));
    }),
  );

  // The caller's own organisation's v1 / v2 mode (the console offers v1 role writes only in v1
  // mode): any signed-in user of the organisation; operators set it through /admin/.
  router.get(
    "/access\\:mode/",
    route(async (_req, res) => {
      sendJson(res, 200, await orgMode(services.store, contextOf(res).tenant.orgId));
    }),
  );

  return router;
}
