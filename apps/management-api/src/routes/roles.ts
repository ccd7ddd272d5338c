import { Router } from "express";
import { batchDeleteRoles, createRole, getRole, listRoles, updateRole } from "../commands/roles.js";
import type { Services } from "../commands/services.js";
import { applyFieldMask, parseFieldMask } from "../http/field-mask.js";
import { contextOf } from "../http/identity.js";
import { cursorEnvelope, parseCursorPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";
import { parseBody, parseQuery, parseWith } from "../http/validate.js";
import { ROLE_DETAIL_DEFAULT_FIELDS, ROLE_FIELDS, ROLE_READ_DEFAULT_FIELDS, roleBatchDeleteBody, roleBody, roleFieldsQuery, roleIdParams, roleListQuery } from "../schemas/roles.js";

export const ROLE_PAGE_MAX = 1000;

export function roleRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });
  const mask = (fields: string | undefined, fallback: string) => parseFieldMask(fields ?? fallback, ROLE_FIELDS);

  router.get(
    "/roles/",
    route(async (req, res) => {
      const query = parseQuery(roleListQuery, req);
      const fields = mask(query.fields, ROLE_READ_DEFAULT_FIELDS);
      const page = parseCursorPage(query, ROLE_PAGE_MAX);
      const result = await listRoles(
        services,
        contextOf(res),
        {
          name: query.name,
          permissions: query.permission
            ?.split(",")
            .map((p) => p.trim())
            .filter((p) => p !== ""),
          resourceType: query.resource_type,
          resourceId: query.resource_id,
          tenantOrgId: query["resource.tenant.org_id"],
          orderBy: query.order_by,
        },
        page,
      );
      sendJson(
        res,
        200,
        cursorEnvelope(
          req,
          page,
          result.count,
          result.data.map((role) => applyFieldMask(role, fields)),
        ),
      );
    }),
  );

  router.post(
    "/roles/",
    route(async (req, res) => {
      const fields = mask(parseQuery(roleFieldsQuery, req).fields, ROLE_DETAIL_DEFAULT_FIELDS);
      const written = await createRole(services, contextOf(res), parseBody(roleBody, req));
      sendJson(res, 201, applyFieldMask(written.value, fields), written.token);
    }),
  );

  router.get(
    "/roles/:id/",
    route(async (req, res) => {
      const { id } = parseWith(roleIdParams, req.params);
      const fields = mask(parseQuery(roleFieldsQuery, req).fields, ROLE_DETAIL_DEFAULT_FIELDS);
      sendJson(res, 200, applyFieldMask(await getRole(services, contextOf(res), id), fields));
    }),
  );

  router.put(
    "/roles/:id/",
    route(async (req, res) => {
      const { id } = parseWith(roleIdParams, req.params);
      const fields = mask(parseQuery(roleFieldsQuery, req).fields, ROLE_DETAIL_DEFAULT_FIELDS);
      const written = await updateRole(services, contextOf(res), id, parseBody(roleBody, req));
      sendJson(res, 200, applyFieldMask(written.value, fields), written.token);
    }),
  );

  router.post(
    "/roles\\:batchDelete/",
    route(async (req, res) => {
      const written = await batchDeleteRoles(services, contextOf(res), parseBody(roleBatchDeleteBody, req).ids);
      sendJson(res, 204, null, written.token);
    }),
  );

  return router;
}
