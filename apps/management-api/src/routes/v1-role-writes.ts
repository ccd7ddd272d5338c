import type { Request, Response } from "express";
import { Router } from "express";
import { listAuditLogs } from "../commands/audit-log.js";
import { PARITY_LOST_HEADER } from "../commands/parity-upkeep.js";
import type { Services } from "../commands/services.js";
import { addGroupRoles, createV1Role, deleteV1Role, patchV1Role, removeGroupRoles, updateGroup, updateV1Role, type V1Written } from "../commands/v1-role-writes.js";
import { contextOf } from "../http/identity.js";
import { offsetEnvelope, parseOffsetPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";
import { param } from "./v1.js";

const AUDIT_PAGE_MAX = 1000;

/** Every value of a repeated (or comma-separated) query parameter, as django-filter's multiple choice. */
function params(req: Request, name: string): string[] | undefined {
  const value = req.query[name];
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  const out = list.flatMap((v) => v.split(",")).filter((v) => v !== "");
  return out.length > 0 ? out : undefined;
}

/** insights-rbac's v1 role and group writes, and the audit log. */
export function v1RoleWriteRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });
  // After each v1 write: the lost grants the command counted, in a header (the metrics have them too).
  const send = <T>(res: Response, status: number, written: V1Written<T>, body: unknown) => {
    if (written.parityLost !== undefined) res.setHeader(PARITY_LOST_HEADER, String(written.parityLost));
    sendJson(res, status, body, written.token);
  };
  router.post(
    "/roles/",
    route(async (req, res) => {
      const written = await createV1Role(services, contextOf(res), req.body);
      send(res, 201, written, written.value);
    }),
  );
  router.put(
    "/roles/:uuid/",
    route(async (req, res) => {
      const written = await updateV1Role(services, contextOf(res), String(req.params["uuid"]), req.body);
      send(res, 200, written, written.value);
    }),
  );
  router.patch(
    "/roles/:uuid/",
    route(async (req, res) => {
      const written = await patchV1Role(services, contextOf(res), String(req.params["uuid"]), req.body);
      send(res, 200, written, written.value);
    }),
  );
  router.delete(
    "/roles/:uuid/",
    route(async (req, res) => {
      const written = await deleteV1Role(services, contextOf(res), String(req.params["uuid"]));
      send(res, 204, written, null);
    }),
  );
  router.put(
    "/groups/:uuid/",
    route(async (req, res) => {
      const written = await updateGroup(services, contextOf(res), String(req.params["uuid"]), req.body);
      sendJson(res, 200, written.value, written.token);
    }),
  );
  router.post(
    "/groups/:uuid/roles/",
    route(async (req, res) => {
      const written = await addGroupRoles(services, contextOf(res), String(req.params["uuid"]), req.body);
      send(res, 200, written, written.value);
    }),
  );
  router.delete(
    "/groups/:uuid/roles/",
    route(async (req, res) => {
      const written = await removeGroupRoles(services, contextOf(res), String(req.params["uuid"]), param(req, "roles"));
      send(res, 204, written, null);
    }),
  );
  router.get(
    "/auditlogs/",
    route(async (req, res) => {
      const page = parseOffsetPage({ limit: param(req, "limit"), offset: param(req, "offset") }, AUDIT_PAGE_MAX);
      const result = await listAuditLogs(
        services,
        contextOf(res),
        {
          principalUsername: param(req, "principal_username"),
          nameMatch: param(req, "name_match"),
          resourceTypes: params(req, "resource_type"),
          actions: params(req, "action"),
          createdAfter: param(req, "created_after"),
          createdBefore: param(req, "created_before"),
          orderBy: param(req, "order_by"),
        },
        page,
      );
      sendJson(res, 200, offsetEnvelope(req, page, result.count, result.data));
    }),
  );
  return router;
}
