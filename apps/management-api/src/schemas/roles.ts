import { z } from "zod";
import type { FieldShape } from "../http/field-mask.js";
import { cursorPageSchema, cursorParam, drfList, drfUuid, echo, limitParam, queryString, timestamp, uuid } from "./common.js";

const permissionPart = z
  .string()
  .min(1, "This field may not be blank.")
  .max(128)
  .regex(/^[^:\s]+$/, "Must not contain ':' or whitespace.");

export const permissionSchema = z.strictObject({ application: permissionPart, resource_type: permissionPart, operation: permissionPart }).meta({ id: "Permission" });

export const roleBody = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1, "This field may not be blank.")
      .max(175, "Ensure this field has no more than 175 characters.")
      .refine((name) => !name.includes("*"), "Role name must not contain asterisks (*)."),
    description: z.string().max(1000).nullable().optional(),
    permissions: z.array(permissionSchema).min(1, "permissions is required").max(1000),
  })
  .meta({ id: "RoleWrite" });

export const roleSchema = z
  .object({
    id: z.string().meta({ format: "uuid" }),
    name: z.string().optional(),
    description: z.string().nullable().optional(),
    permissions_count: z.number().int().optional(),
    permissions: z.array(permissionSchema).optional(),
    last_modified: timestamp.optional(),
    org_id: z.string().nullable().optional(),
  })
  .meta({ id: "Role" });
export const roleListSchema = cursorPageSchema(roleSchema, "RoleList");

export const ROLE_FIELDS: FieldShape = {
  id: true,
  name: true,
  description: true,
  permissions_count: true,
  permissions: true,
  last_modified: true,
  org_id: true,
};
export const ROLE_READ_DEFAULT_FIELDS = "id,name,description,last_modified";
export const ROLE_DETAIL_DEFAULT_FIELDS = "id,name,description,permissions,last_modified";

export const roleListQuery = z.object({
  limit: limitParam,
  cursor: cursorParam,
  name: queryString.optional(),
  permission: queryString.optional(),
  resource_type: queryString.optional(),
  resource_id: queryString.optional(),
  "resource.tenant.org_id": queryString.optional(),
  fields: queryString.optional(),
  order_by: z
    .enum(["name", "-name", "last_modified", "-last_modified"], { error: (issue) => `Invalid ordering field '${echo(String(issue.input).replace(/^-/, ""))}'. Valid fields: last_modified, name` })
    .optional(),
});
export const roleFieldsQuery = z.object({ fields: queryString.optional() });
export const roleIdParams = z.object({ id: uuid });
export const roleBatchDeleteBody = z.strictObject({ ids: drfList(drfUuid, 1, 1000) }).meta({ id: "RoleBatchDelete" });
