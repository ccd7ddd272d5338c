import { z } from "zod";
import type { FieldShape } from "../http/field-mask.js";
import { cursorPageSchema, cursorParam, drfList, drfNestedList, drfUuid, echo, limitParam, queryString, UUID_PATTERN } from "./common.js";

export const resourceRef = z.strictObject({
  id: z.string().trim().min(1, "This field may not be blank.").max(256),
  type: z.enum(["workspace", "tenant"], { error: (issue) => `"${echo(issue.input)}" is not a valid choice.` }),
});
/** Groups by their UUID, users by their principal's UUID (as insights-rbac names them). */
export const subjectRef = z.strictObject({
  id: drfUuid,
  type: z.enum(["group", "user"], { error: (issue) => `"${echo(issue.input)}" is not a valid choice.` }),
});

/**
 * Gatehouse extension of the v2 shapes: a time-bound grant. RFC 3339 with an offset (`Z` or
 * `+hh:mm`); the subject holds the role strictly before then. Absent = no expiry, as in insights-rbac.
 */
export const expiresAt = z.iso
  .datetime({ offset: true, error: "Enter a valid RFC 3339 date-time with a time zone (e.g. 2030-01-31T18:00:00Z)." })
  .transform((text) => new Date(text))
  .meta({ description: "Gatehouse extension: the grant expires at this time (RFC 3339, must be in the future)." });

export const batchCreateBody = z
  .strictObject({
    requests: drfNestedList(z.strictObject({ resource: resourceRef, subject: subjectRef, role: z.strictObject({ id: drfUuid }), expires_at: expiresAt.optional() }), 1, 100),
  })
  .meta({ id: "BatchCreateRoleBindings" });

const roleRef = z.object({ id: z.string(), name: z.string().optional(), created: z.string().optional(), modified: z.string().optional() });
const subjectOut = z.object({
  id: z.string(),
  type: z.string(),
  group: z.object({ name: z.string(), description: z.string().nullable(), user_count: z.number().int() }).optional(),
  user: z.object({ username: z.string() }).optional(),
});
const resourceOut = z.object({ id: z.string(), type: z.string().optional(), name: z.string().nullable().optional() });

const expiresAtOut = z.string().optional().meta({ description: "Gatehouse extension: when the grant expires (RFC 3339); absent = never." });
const permissionsOut = z.array(z.string()).optional().meta({
  description:
    "Gatehouse extension: the binding grants only these permissions of the role (the organisation-level part of a v1 role whose other permissions are limited to workspaces); absent = the whole role.",
});
export const roleBindingSchema = z
  .object({
    role: roleRef.optional(),
    subject: subjectOut.optional(),
    resource: resourceOut.optional(),
    sources: z.array(resourceOut).optional(),
    expires_at: expiresAtOut,
    permissions: permissionsOut,
  })
  .meta({ id: "RoleBinding" });
export const roleBindingListSchema = cursorPageSchema(roleBindingSchema, "RoleBindingList");
export const batchCreateResult = z.object({ role_bindings: z.array(roleBindingSchema) }).meta({ id: "BatchCreateRoleBindingsResult" });
export const bySubjectSchema = z
  .object({
    subject: subjectOut.optional(),
    roles: z.array(roleRef).optional(),
    resource: resourceOut.optional(),
    sources: z.array(resourceOut).optional(),
    last_modified: z.string().optional(),
    expires_at: expiresAtOut,
  })
  .meta({ id: "RoleBindingBySubject" });
export const bySubjectListSchema = cursorPageSchema(bySubjectSchema, "RoleBindingBySubjectList");

const resourceShape: FieldShape = { id: true, type: true, name: true };
const subjectShape: FieldShape = { id: true, type: true, group: { name: true, description: true, user_count: true }, user: { username: true } };
const roleShape: FieldShape = { id: true, name: true, created: true, modified: true };

export const BINDING_FIELDS: FieldShape = { role: roleShape, subject: subjectShape, resource: resourceShape, sources: resourceShape, expires_at: true, permissions: true };
export const BINDING_LIST_DEFAULT_FIELDS = "resource(id),role(id,created,modified),subject(id,type),sources(id)";
// `expires_at` is shown only for a time-bound grant (absent values are never rendered).
export const BATCH_CREATE_DEFAULT_FIELDS = "resource(id,type),role(id,created,modified),subject(id,type),expires_at";
export const BY_SUBJECT_FIELDS: FieldShape = { subject: subjectShape, roles: roleShape, resource: resourceShape, sources: resourceShape, last_modified: true, expires_at: true };
export const BY_SUBJECT_DEFAULT_FIELDS = "subject(id,type),roles(id,created,modified),resource(id),sources(id)";
export const BY_SUBJECT_PUT_DEFAULT_FIELDS = "resource(id),subject(id,type),roles(id,created,modified),expires_at";

const excludeSources = z.enum(["none", "indirect", "direct"], { error: (issue) => `"${echo(issue.input)}" is not a valid choice.` });

const resourceQuery = {
  resource_type: z.enum(["workspace", "tenant"], { error: "resource_type must be 'workspace' or 'tenant'." }).optional(),
  resource_id: z.string().min(1).max(256).optional(),
  "resource.tenant.org_id": z.string().min(1).max(256).optional(),
};

/** `order_by` as a comma list or the parameter repeated (as upstream accepts); the command checks the fields. */
const orderByParam = z.union([
  queryString,
  z
    .array(queryString)
    .max(20)
    .transform((parts) => parts.join(",")),
]);

export const roleBindingListQuery = z.object({
  limit: limitParam,
  cursor: cursorParam,
  role_id: z
    .string()
    .regex(UUID_PATTERN, "Enter a valid UUID.")
    .transform((value) => value.toLowerCase())
    .optional(),
  ...resourceQuery,
  subject_type: z.enum(["group", "user"], { error: "subject_type must be 'group' or 'user'." }).optional(),
  subject_id: z.string().min(1).max(256).optional(),
  granted_subject_type: z.enum(["user", "group", "principal"], { error: "granted_subject_type must be 'user', 'group' or 'principal'." }).optional(),
  granted_subject_id: z.string().min(1).max(256).optional(),
  "granted_subject.principal.user_id": z.string().min(1).max(256).optional(),
  exclude_sources: excludeSources.optional(),
  fields: queryString.optional(),
  order_by: orderByParam.optional(),
});

export const bySubjectListQuery = z.object({
  limit: limitParam,
  cursor: cursorParam,
  ...resourceQuery,
  subject_type: z.enum(["group", "user"], { error: "subject_type must be 'group' or 'user'." }).optional(),
  subject_id: z.string().min(1).max(256).optional(),
  exclude_sources: excludeSources.optional(),
  fields: queryString.optional(),
  order_by: orderByParam.optional(),
});

/** `fields` of a batchCreate is a query parameter, as in insights-rbac. */
export const batchCreateQuery = z.object({ fields: queryString.optional() });

export const bySubjectPutQuery = z.object({
  ...resourceQuery,
  subject_type: z.enum(["group", "user"], {
    error: (issue) => (issue.input === undefined ? "This field is required." : `Unsupported subject type: '${echo(issue.input)}'. Supported types: group, user`),
  }),
  subject_id: z.string({ error: "This field is required." }).min(1).max(256),
  fields: queryString.optional(),
});
export const bySubjectPutBody = z.strictObject({ roles: drfList(z.strictObject({ id: drfUuid }), 0, 1000), expires_at: expiresAt.optional() }).meta({ id: "RoleBindingBySubjectUpdate" });
