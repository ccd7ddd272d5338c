import { z } from "zod";
import { echo, limitParam, offsetParam, offsetPageSchema, queryBool, queryString, timestamp, UUID_PATTERN, uuid, uuidList } from "./common.js";

export const WORKSPACE_TYPE_FILTERS = ["all", "root", "default", "standard", "ungrouped-hosts"] as const;

const workspaceName = z
  .string()
  .trim()
  .min(1, "This field may not be blank.")
  .max(255, "Ensure this field has no more than 255 characters.")
  .regex(/^[\p{L}\p{N}_ -]+$/u, "Workspace names may contain only letters, digits, underscores, spaces and hyphens.");
const description = z.string().max(255, "Ensure this field has no more than 255 characters.").nullable();

/** Sent back by clients that echo a record; read-only, ignored. */
const readOnlyFields = {
  id: z.unknown().optional(),
  type: z.unknown().optional(),
  created: z.unknown().optional(),
  modified: z.unknown().optional(),
};

export const workspaceSchema = z
  .object({
    id: z.string().meta({ format: "uuid" }),
    parent_id: z.string().nullable(),
    type: z.enum(["root", "default", "standard", "ungrouped-hosts"]),
    name: z.string(),
    description: z.string().nullable(),
    created: timestamp,
    modified: timestamp,
  })
  .meta({ id: "Workspace" });

export const ancestorSchema = z.object({ id: z.string(), name: z.string(), parent_id: z.string().nullable() });
export const workspaceDetailSchema = workspaceSchema.extend({ ancestry: z.array(ancestorSchema).optional() }).meta({ id: "WorkspaceDetail" });
export const workspaceListSchema = offsetPageSchema(workspaceSchema, "WorkspaceList");

// insights-rbac's wording lists the types as Python prints its list.
const UPSTREAM_TYPE_ORDER = "['standard', 'default', 'root', 'ungrouped-hosts', 'all']";

const typeFilter = z.string().transform((value, ctx) => {
  const types = value
    .split(",")
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== "");
  for (const type of types) {
    if (!(WORKSPACE_TYPE_FILTERS as readonly string[]).includes(type)) {
      ctx.addIssue({ code: "custom", message: `type query parameter value '${echo(type)}' is invalid. Allowed values are ${UPSTREAM_TYPE_ORDER}.` });
      return z.NEVER;
    }
  }
  return types.length === 0 || types.includes("all") ? [] : (types as Exclude<(typeof WORKSPACE_TYPE_FILTERS)[number], "all">[]);
});

const ORDER_FIELDS = ["name", "created", "modified", "type"] as const;
const orderBy = z.enum([...ORDER_FIELDS, ...ORDER_FIELDS.map((f) => `-${f}` as const)], {
  error: `Invalid order_by. Valid fields: ${ORDER_FIELDS.join(", ")} (prefix '-' for descending).`,
});

/** A parent_id (list filter, move): blank means none; anything else must be a UUID, worded as insights-rbac's serializers word it. */
const blankOrUuid = z.string().transform((value, ctx) => {
  const cleaned = value.trim();
  if (cleaned === "") return undefined;
  if (!UUID_PATTERN.test(cleaned)) {
    ctx.addIssue({ code: "custom", message: `${echo(cleaned)} is not a valid UUID.` });
    return z.NEVER;
  }
  return cleaned.toLowerCase();
});

export const workspaceFilters = {
  type: typeFilter.optional(),
  name: queryString.optional(),
  parent_id: blankOrUuid.optional(),
  with_ancestry: queryBool.optional(),
};

export const workspaceListQuery = z.object({
  limit: limitParam,
  offset: offsetParam,
  ...workspaceFilters,
  // An empty list is no filter, as upstream.
  ids: uuidList.transform((ids) => (ids.length === 0 ? undefined : ids)).optional(),
  order_by: orderBy.optional(),
});

export const workspaceQueryBody = z
  .strictObject({
    ids: z.array(uuid).min(1, "Provide at least one id.").max(3000, "At most 3000 ids may be queried."),
    type: typeFilter.optional(),
    name: z.string().max(1024).optional(),
    parent_id: uuid.optional(),
    with_ancestry: z.boolean().optional(),
  })
  .meta({ id: "WorkspaceQuery" });
export const workspaceQueryParams = z.object({ limit: limitParam, offset: offsetParam, order_by: orderBy.optional() });

export const workspaceDetailQuery = z.object({ include_ancestry: queryBool.optional() });

export const workspaceCreateBody = z.strictObject({ name: workspaceName, description: description.optional(), parent_id: uuid.optional(), ...readOnlyFields }).meta({ id: "WorkspaceCreate" });

export const workspaceUpdateBody = z
  .strictObject({ name: workspaceName, description: description.optional(), parent_id: uuid.nullable().optional(), ...readOnlyFields })
  .meta({ id: "WorkspaceUpdate" });

export const workspacePatchBody = z
  .strictObject({ name: workspaceName.optional(), description: description.optional(), parent_id: uuid.nullable().optional(), ...readOnlyFields })
  .meta({ id: "WorkspacePatch" });

export const workspaceMoveBody = z.strictObject({ parent_id: blankOrUuid.meta({ format: "uuid" }).optional() }).meta({ id: "WorkspaceMove" });
export const workspaceMoveResult = z.object({ id: z.string(), parent_id: z.string() }).meta({ id: "WorkspaceMoveResult" });

export const workspaceIdParams = z.object({ id: uuid });
