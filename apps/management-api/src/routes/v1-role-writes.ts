import type { Response } from "express";
import { Router } from "express";
import { listAuditLogs } from "../commands/audit-log.js";
import { PARITY_LOST_HEADER } from "../commands/parity-upkeep.js";
import type { Services } from "../commands/services.js";
import { addGroupRoles, createV1Role, deleteV1Role, patchV1Role, removeGroupRoles, updateGroup, updateV1Role, type V1Written } from "../commands/v1-role-writes.js";
import { contextOf } from "../http/identity.js";
import { offsetEnvelope, parseOffsetPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";
import { parseQuery, parseV1Body } from "../http/validate.js";
import { v1GroupRolesBody, v1GroupUpdateBody, v1RoleBody, v1RolePatchBody } from "../schemas/v1-bodies.js";
import { v1AuditLogQuery, v1GroupRolesDeleteQuery } from "../schemas/v1-queries.js";

const AUDIT_PAGE_MAX = 1000;

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
      const written = await createV1Role(services, contextOf(res), parseV1Body(v1RoleBody, req));
      send(res, 201, written, written.value);
    }),
  );
  router.put(
    "/roles/:uuid/",
    route(async (req, res) => {
      const written = await updateV1Role(services, contextOf(res), String(req.params["uuid"]), parseV1Body(v1RoleBody, req));
      send(res, 200, written, written.value);
    }),
  );
  router.patch(
    "/roles/:uuid/",
    route(async (req, res) => {
      const written = await patchV1Role(services, contextOf(res), String(req.params["uuid"]), parseV1Body(v1RolePatchBody, req));
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
      const written = await updateGroup(services, contextOf(res), String(req.params["uuid"]), parseV1Body(v1GroupUpdateBody, req));
      sendJson(res, 200, written.value, written.token);
    }),
  );
  router.post(
    "/groups/:uuid/roles/",
    route(async (req, res) => {
      const written = await addGroupRoles(services, contextOf(res), String(req.params["uuid"]), parseV1Body(v1GroupRolesBody, req));
      send(res, 200, written, written.value);
    }),
  );
  router.delete(
    "/groups/:uuid/roles/",
    route(async (req, res) => {
      const written = await removeGroupRoles(services, contextOf(res), String(req.params["uuid"]), parseQuery(v1GroupRolesDeleteQuery, req).roles);
      send(res, 204, written, null);
    }),
  );
  router.get(
    "/auditlogs/",
    route(async (req, res) => {
      const query = parseQuery(v1AuditLogQuery, req);
      const page = parseOffsetPage(query, AUDIT_PAGE_MAX);
      const result = await listAuditLogs(services, contextOf(res), query, page);
      sendJson(res, 200, offsetEnvelope(req, page, result.count, result.data));
    }),
  );
  return router;
}
