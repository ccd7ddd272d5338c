import { Router } from "express";
import { authorizeWorkspaceCreate, createWorkspace, deleteWorkspace, getWorkspace, listWorkspaces, moveWorkspace, updateWorkspace, workspaceToEdit } from "../commands/workspaces.js";
import type { Services } from "../commands/services.js";
import { contextOf } from "../http/identity.js";
import { offsetEnvelope, parseOffsetPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";
import { parseBody, parseQuery, parseWith } from "../http/validate.js";
import {
  workspaceCreateBody,
  workspaceDetailQuery,
  workspaceIdParams,
  workspaceListQuery,
  workspaceMoveBody,
  workspacePatchBody,
  workspaceQueryBody,
  workspaceQueryParams,
  workspaceUpdateBody,
} from "../schemas/workspaces.js";

export const WORKSPACE_PAGE_MAX = 3000;

export function workspaceRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });
  const token = (revision: number | null) => (revision === null ? null : services.store.tokens.encode(revision));

  router.get(
    "/workspaces/",
    route(async (req, res) => {
      const query = parseQuery(workspaceListQuery, req);
      const page = parseOffsetPage(query, WORKSPACE_PAGE_MAX);
      const result = await listWorkspaces(
        services,
        contextOf(res),
        {
          ...(query.type ? { types: query.type } : {}),
          ...(query.name !== undefined ? { name: query.name } : {}),
          ...(query.parent_id ? { parentId: query.parent_id } : {}),
          ...(query.ids ? { ids: query.ids } : {}),
          ...(query.order_by ? { orderBy: query.order_by } : {}),
          withAncestry: query.with_ancestry ?? false,
        },
        page,
      );
      sendJson(res, 200, offsetEnvelope(req, page, result.count, result.data));
    }),
  );

  router.post(
    "/workspaces/query/",
    route(async (req, res) => {
      const query = parseQuery(workspaceQueryParams, req);
      const body = parseBody(workspaceQueryBody, req);
      const page = parseOffsetPage(query, WORKSPACE_PAGE_MAX);
      const result = await listWorkspaces(
        services,
        contextOf(res),
        {
          ids: body.ids,
          ...(body.type ? { types: body.type } : {}),
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.parent_id ? { parentId: body.parent_id } : {}),
          ...(query.order_by ? { orderBy: query.order_by } : {}),
          withAncestry: body.with_ancestry ?? false,
        },
        page,
      );
      sendJson(res, 200, offsetEnvelope(req, page, result.count, result.data));
    }),
  );

  router.post(
    "/workspaces/",
    route(async (req, res) => {
      // insights-rbac refuses a caller without the right before it looks at the body.
      await authorizeWorkspaceCreate(services, contextOf(res), req.body);
      const body = parseBody(workspaceCreateBody, req);
      const written = await createWorkspace(services, contextOf(res), {
        name: body.name,
        description: body.description,
        parentId: body.parent_id,
      });
      sendJson(res, 201, written.value, written.token);
    }),
  );

  router.get(
    "/workspaces/:id/",
    route(async (req, res) => {
      const { id } = parseWith(workspaceIdParams, req.params);
      const query = parseQuery(workspaceDetailQuery, req);
      sendJson(res, 200, await getWorkspace(services, contextOf(res), id, query.include_ancestry ?? false));
    }),
  );

  const update = (replace: boolean) =>
    route(async (req, res) => {
      const { id } = parseWith(workspaceIdParams, req.params);
      const ws = await workspaceToEdit(services, contextOf(res), id);
      const body = replace ? parseBody(workspaceUpdateBody, req) : parseBody(workspacePatchBody, req);
      const written = await updateWorkspace(
        services,
        contextOf(res),
        ws,
        {
          name: body.name,
          description: body.description,
          parentId: body.parent_id,
        },
        replace,
      );
      sendJson(res, 200, written.value, token(written.revision));
    });
  router.put("/workspaces/:id/", update(true));
  router.patch("/workspaces/:id/", update(false));

  router.delete(
    "/workspaces/:id/",
    route(async (req, res) => {
      const { id } = parseWith(workspaceIdParams, req.params);
      const written = await deleteWorkspace(services, contextOf(res), id);
      sendJson(res, 204, null, written.token);
    }),
  );

  router.post(
    "/workspaces/:id/move/",
    route(async (req, res) => {
      const { id } = parseWith(workspaceIdParams, req.params);
      // No body, or a blank parent_id, is insights-rbac's "The 'parent_id' field is required."
      const body = parseWith(workspaceMoveBody, req.body ?? {});
      const written = await moveWorkspace(services, contextOf(res), id, body.parent_id);
      sendJson(res, 200, written.value, written.token);
    }),
  );

  return router;
}
