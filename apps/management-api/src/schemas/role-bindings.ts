import { z } from "zod";
import type { FieldShape } from "../http/field-mask.js";
import { cursorPageSchema, cursorParam, drfNestedList, drfUuid, limitParam, queryString, UUID_PATTERN, uuid } from "./common.js";

export const resourceRef = z.strictObject({
  id: z.string().trim().min(1, "This field may not be blank.").max(256),
  type: z.enum(["workspace", "tenant"], { error: (issue) => `"${String(issue.input)}" is not a valid choice.` }),
});
/** Groups by their UUID, users by their principal's UUID (as insights-rbac names them). */
export const subjectRef = z.strictObject({
  id: drfUuid,
  type: z.enum(["group", "user"], { error: (issue) => `"${String(issue.input)}" is not a valid choice.` }),
});

export const batchCreateBody = z
  .strictObject({
    requests: drfNestedList(z.strictObject({ resource: resourceRef, subject: subjectRef, role: z.strictObject({ id: drfUuid }) }), 1, 100),
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

export const roleBindingSchema = z
  .object({ role: roleRef.optional(), subject: subjectOut.optional(), resource: resourceOut.optional(), sources: z.array(resourceOut).optional() })
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
  })
  .meta({ id: "RoleBindingBySubject" });
export const bySubjectListSchema = cursorPageSchema(bySubjectSchema, "RoleBindingBySubjectList");

const resourceShape: FieldShape = { id: true, type: true, name: true };
const subjectShape: FieldShape = { id: true, type: true, group: { name: true, description: true, user_count: true }, user: { username: true } };
const roleShape: FieldShape = { id: true, name: true, created: true, modified: true };

export const BINDING_FIELDS: FieldShape = { role: roleShape, subject: subjectShape, resource: resourceShape, sources: resourceShape };
export const BINDING_LIST_DEFAULT_FIELDS = "resource(id),role(id,created,modified),subject(id,type),sources(id)";
export const BATCH_CREATE_DEFAULT_FIELDS = "resource(id,type),role(id,created,modified),subject(id,type)";
export const BY_SUBJECT_FIELDS: FieldShape = { subject: subjectShape, roles: roleShape, resource: resourceShape, sources: resourceShape, last_modified: true };
export const BY_SUBJECT_DEFAULT_FIELDS = "subject(id,type),roles(id,created,modified),resource(id),sources(id)";
export const BY_SUBJECT_PUT_DEFAULT_FIELDS = "resource(id),subject(id,type),roles(id,created,modified)";

const excludeSources = z.enum(["none", "indirect", "direct"], { error: (issue) => `"${String(issue.input)}" is not a valid choice.` });

const resourceQuery = {
  resource_type: z.enum(["workspace", "tenant"], { error: "resource_type must be 'workspace' or 'tenant'." }).optional(),
  resource_id: z.string().min(1).max(256).optional(),
  "resource.tenant.org_id": z.string().min(1).max(256).optional(),
};

export const roleBindingListQuery = z.object({
  limit: limitParam,
  cursor: cursorParam,
  role_id: z.string().regex(UUID_PATTERN, "Enter a valid UUID.").transform((value) => value.toLowerCase()).optional(),
  ...resourceQuery,
  subject_type: z.enum(["group", "user"], { error: "subject_type must be 'group' or 'user'." }).optional(),
  subject_id: z.string().min(1).max(256).optional(),
  granted_subject_type: z.enum(["user", "group", "principal"], { error: "granted_subject_type must be 'user', 'group' or 'principal'." }).optional(),
  granted_subject_id: z.string().min(1).max(256).optional(),
  "granted_subject.principal.user_id": z.string().min(1).max(256).optional(),
  exclude_sources: excludeSources.optional(),
  fields: queryString.optional(),
  order_by: z
    .enum(["role.id", "-role.id", "role.name", "-role.name", "role.created", "-role.created", "role.modified", "-role.modified", "resource.id", "-resource.id", "resource.type", "-resource.type"], {
      error: "Invalid order_by. Valid fields: role.id, role.name, role.created, role.modified, resource.id, resource.type.",
    })
    .optional(),
});

export const bySubjectListQuery = z.object({
  limit: limitParam,
  cursor: cursorParam,
  ...resourceQuery,
  subject_type: z.enum(["group", "user"], { error: "subject_type must be 'group' or 'user'." }).optional(),
  subject_id: z.string().min(1).max(256).optional(),
  exclude_sources: excludeSources.optional(),
  fields: queryString.optional(),
});

/** `fields` of a batchCreate is a query parameter, as in insights-rbac. */
export const batchCreateQuery = z.object({ fields: queryString.optional() });

export const bySubjectPutQuery = z.object({
  ...resourceQuery,
  subject_type: z.enum(["group", "user"], { error: "subject_type must be 'group' or 'user'." }),
  subject_id: z.string().min(1).max(256),
  fields: queryString.optional(),
});
export const bySubjectPutBody = z
  .strictObject({ roles: z.array(z.strictObject({ id: uuid })).max(1000) })
  .meta({ id: "RoleBindingBySubjectUpdate" });
