import { Router } from "express";
import { listBySubject, replaceBySubject } from "../commands/role-bindings-by-subject.js";
import { requireBatchCreateAccess } from "../commands/binding-access.js";
import { batchCreateRoleBindings, listRoleBindings } from "../commands/role-bindings.js";
import type { Services } from "../commands/services.js";
import { applyFieldMask, parseFieldMask, type FieldMask, type FieldShape } from "../http/field-mask.js";
import { contextOf } from "../http/identity.js";
import { cursorEnvelope, parseCursorPage } from "../http/pagination.js";
import { route, sendJson } from "../http/respond.js";
import { parseBody, parseQuery } from "../http/validate.js";
import {
  BATCH_CREATE_DEFAULT_FIELDS,
  BINDING_FIELDS,
  BINDING_LIST_DEFAULT_FIELDS,
  BY_SUBJECT_DEFAULT_FIELDS,
  BY_SUBJECT_FIELDS,
  BY_SUBJECT_PUT_DEFAULT_FIELDS,
  batchCreateBody,
  batchCreateQuery,
  bySubjectListQuery,
  bySubjectPutBody,
  bySubjectPutQuery,
  roleBindingListQuery,
} from "../schemas/role-bindings.js";

export const BINDING_PAGE_MAX = 1000;

/** Which costly details a mask asks for (group/user records, resource names). */
function details(mask: FieldMask): { subject: boolean; resourceName: boolean } {
  const subject = mask.get("subject");
  const wantsSubject = subject === null || (subject !== undefined && (subject.has("group") || subject.has("user")));
  const named = (key: string) => {
    const inner = mask.get(key);
    return inner === null || inner?.has("name") === true;
  };
  return { subject: wantsSubject, resourceName: named("resource") || named("sources") };
}

/** Masks a row; a subject always keeps its `id` and `type` (insights-rbac's discriminator). */
function masked<T extends { subject: { id: string; type: string } }>(row: T, mask: FieldMask): Record<string, unknown> {
  const out = applyFieldMask(row, mask) as Record<string, unknown>;
  const subject = out["subject"] as Record<string, unknown> | undefined;
  if (subject !== undefined) out["subject"] = { id: row.subject.id, type: row.subject.type, ...subject };
  return out;
}

/**
 * A read mask as insights-rbac renders its list items: the sections it always shows keep their
 * identity (`identity(asked)`: ids, a subject's type, a role's default fields when `fields` does not
 * name the role) and `fields` adds to it. `expires_at` (Gatehouse's extension) is shown when set,
 * unless `fields` leaves it out.
 */
function readMask(fields: string | undefined, defaults: string, shape: FieldShape, identity: (asked: FieldMask) => string, extensions = "expires_at"): FieldMask {
  if (fields === undefined) return parseFieldMask(`${defaults},${extensions}`, shape);
  const asked = parseFieldMask(fields, shape);
  return parseFieldMask(`${identity(asked)},${fields}`, shape);
}

/**
 * The list always shows role, subject, resource and sources, and `permissions` when set (a row
 * granting only part of its role must never read as the whole role).
 */
const listIdentity = (asked: FieldMask) => `resource(id),subject(id,type),sources(id),permissions,${asked.has("role") ? "role(id)" : "role(id,created,modified)"}`;
/** by-subject always shows subject, roles and resource; sources only when asked for. */
const bySubjectIdentity = (asked: FieldMask) => `resource(id),subject(id,type),${asked.has("roles") ? "roles(id)" : "roles(id,created,modified)"}${asked.has("sources") ? ",sources(id)" : ""}`;

export function roleBindingRoutes(services: Services): Router {
  const router = Router({ strict: true, caseSensitive: true });

  router.get(
    "/role-bindings/",
    route(async (req, res) => {
      const query = parseQuery(roleBindingListQuery, req);
      const mask = readMask(query.fields, BINDING_LIST_DEFAULT_FIELDS, BINDING_FIELDS, listIdentity, "expires_at,permissions");
      const page = parseCursorPage(query, BINDING_PAGE_MAX);
      const result = await listRoleBindings(services, contextOf(res), query, page, details(mask));
      sendJson(
        res,
        200,
        cursorEnvelope(
          req,
          page,
          result.count,
          result.data.map((row) => masked(row, mask)),
        ),
      );
    }),
  );

  router.post(
    "/role-bindings\\:batchCreate/",
    route(async (req, res) => {
      const query = parseQuery(batchCreateQuery, req);
      const mask = parseFieldMask(query.fields || BATCH_CREATE_DEFAULT_FIELDS, BINDING_FIELDS);
      await requireBatchCreateAccess(services, contextOf(res), req.body);
      const body = parseBody(batchCreateBody, req);
      const written = await batchCreateRoleBindings(services, contextOf(res), body.requests, details(mask));
      sendJson(res, 201, { role_bindings: written.value.map((row) => masked(row, mask)) }, written.token);
    }),
  );

  router.get(
    "/role-bindings/by-subject/",
    route(async (req, res) => {
      const query = parseQuery(bySubjectListQuery, req);
      const mask = readMask(query.fields, BY_SUBJECT_DEFAULT_FIELDS, BY_SUBJECT_FIELDS, bySubjectIdentity);
      const page = parseCursorPage(query, BINDING_PAGE_MAX);
      const result = await listBySubject(services, contextOf(res), query, page, details(mask));
      sendJson(
        res,
        200,
        cursorEnvelope(
          req,
          page,
          result.count,
          result.data.map((row) => masked(row, mask)),
        ),
      );
    }),
  );

  router.put(
    "/role-bindings/by-subject/",
    route(async (req, res) => {
      const query = parseQuery(bySubjectPutQuery, req);
      const mask = parseFieldMask(query.fields ?? BY_SUBJECT_PUT_DEFAULT_FIELDS, BY_SUBJECT_FIELDS);
      const body = parseBody(bySubjectPutBody, req);
      const written = await replaceBySubject(
        services,
        contextOf(res),
        query,
        body.roles.map((role) => role.id),
        body.expires_at,
      );
      sendJson(res, 200, masked(written.value, mask), written.token);
    }),
  );

  return router;
}
