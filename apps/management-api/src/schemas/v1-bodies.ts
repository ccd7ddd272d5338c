// The v1 write bodies, checked as insights-rbac's views and serializers check them (RoleViewSet's
// validate_role and RoleSerializer, AccessSerializer, ResourceDefinitionSerializer, the group
// serializers), in their words. Rules that need the store or the permission catalogue (a permission
// exists, its requirements, workspaces of the organisation) are the commands'.
import type { V1AccessEntry, V1AttributeFilter } from "@gatehouse/store";
import { z } from "zod";
import { drfUuid, drfList, UUID_PATTERN } from "./common.js";
import { drfErrorMap, echo, itemIssues, pyList, pyType, refuse } from "./drf.js";

/** Bounds of a role body (input is never unbounded). */
const MAX_ACCESS = 1000;
const MAX_DEFINITIONS = 100;
const MAX_VALUES = 1000;
const NAME_MAX = 150;
const DESCRIPTION_MAX = 255;

/** DRF's CharField: a string (a number is taken as its text); anything else is "Not a valid string.". */
const char = z.preprocess((v) => (typeof v === "number" ? String(v) : v), z.string());
/** A name: required, not blank, at most 150 characters. */
const name = char.refine((v) => v.trim() !== "", "This field may not be blank.").pipe(z.string().max(NAME_MAX));
const description = char.pipe(z.string().max(DESCRIPTION_MAX)).nullable().optional();

const FORMAT = "format";

/** ResourceDefinitionSerializer.validate_attributeFilter, each refusal under `format`. */
const attributeFilter = z.unknown().transform((f, ctx): V1AttributeFilter => {
  const fail = (message: string) => {
    ctx.addIssue({ code: "custom", message, path: [FORMAT] });
    return z.NEVER;
  };
  if (f === undefined) {
    ctx.addIssue({ code: "custom", message: "This field is required." });
    return z.NEVER;
  }
  if (f === null) {
    ctx.addIssue({ code: "custom", message: "This field may not be null." });
    return z.NEVER;
  }
  const filter = typeof f === "object" && !Array.isArray(f) ? (f as Record<string, unknown>) : null;
  if (filter === null || Object.keys(filter).sort().join(",") !== "key,operation,value") return fail("attributeFilter fields must be {'key', 'value', 'operation'}");
  const { key, operation, value } = filter;
  if (operation !== "in" && operation !== "equal") return fail(`attributeFilter operation must be one of ${pyList(["in", "equal"])}`);
  if (operation === "in" && !Array.isArray(value)) return fail("attributeFilter operation 'in' expects a List value");
  if (operation === "equal" && typeof value !== "string" && value !== null) return fail("attributeFilter operation 'equal' expects a String value or None");
  if (Array.isArray(value) && value.length > MAX_VALUES) return fail(`attributeFilter value may list at most ${MAX_VALUES} values.`);
  if (typeof key !== "string" || key.length > 256) return fail("attributeFilter key must be a string.");
  if (key === "group.id") {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    const malformed = values.filter((v) => v !== null && !(typeof v === "string" && UUID_PATTERN.test(v)));
    if (malformed.length > 0) {
      return fail(
        operation === "in"
          ? `attributeFilter with key 'group.id' must contain only valid UUIDs or None, invalid values: [${malformed
              .slice(0, 10)
              .map((v) => `'${echo(v)}'`)
              .join(", ")}]`
          : `attributeFilter with key 'group.id' must be a valid UUID or None, got: ${echo(value)}`,
      );
    }
  }
  return { key, operation, value: value as string | string[] | null };
});

/** AccessSerializer: a permission `application:resource_type:operation` and its resource definitions. */
const accessItem = z.looseObject({
  permission: char.superRefine((permission, ctx) => {
    if (permission.split(":").length !== 3 || permission.length > 300) {
      ctx.addIssue({ code: "custom", message: 'Permission must be of the format "application:resource_type:operation".', path: [FORMAT] });
    }
  }),
  resourceDefinitions: z.array(z.looseObject({ attributeFilter })).max(MAX_DEFINITIONS, `At most ${MAX_DEFINITIONS} resource definitions per permission.`),
});

/**
 * upstream's `validate_and_get_access_list`: a list (else "A list of access is expected, but
 * <type> is found."), each item validated on its own by AccessSerializer, the first refused item
 * answering.
 */
const accessList = z.unknown().transform((raw, ctx): V1AccessEntry[] => {
  if (!Array.isArray(raw)) {
    refuse(ctx, `A list of access is expected, but ${pyType(raw)} is found.`, "access");
    return z.NEVER;
  }
  if (raw.length > MAX_ACCESS) {
    refuse(ctx, `A role may list at most ${MAX_ACCESS} access entries.`, "access");
    return z.NEVER;
  }
  const entries: V1AccessEntry[] = [];
  for (const item of raw) {
    const parsed = accessItem.safeParse(item, { error: drfErrorMap });
    if (!parsed.success) {
      for (const issue of itemIssues(parsed.error.issues)) refuse(ctx, issue.message, issue.source);
      return z.NEVER;
    }
    entries.push({ permission: parsed.data.permission, resourceDefinitions: parsed.data.resourceDefinitions.map((d) => ({ attributeFilter: d.attributeFilter })) });
  }
  return entries;
});

/**
 * POST /roles/ and PUT /roles/{uuid}/: the access list first (upstream's view checks it before
 * its serializer), then RoleSerializer's fields. Unknown fields are ignored, as DRF does.
 */
export const v1RoleBody = z
  .looseObject({ access: accessList })
  .pipe(
    z.looseObject({
      name,
      display_name: char.pipe(z.string().max(NAME_MAX)).optional(),
      description,
      access: z.custom<V1AccessEntry[]>(),
    }),
  )
  .transform((body) => ({ name: body.name, displayName: body.display_name, description: body.description, access: body.access }));
export type V1RoleBody = z.output<typeof v1RoleBody>;

const PATCH_FIELDS = ["name", "display_name", "description"] as const;

/** PATCH /roles/{uuid}/: name, display name and description only (upstream's VALID_PATCH_FIELDS). */
export const v1RolePatchBody = z
  .looseObject({})
  .superRefine((body, ctx) => {
    const unsupported = Object.keys(body).find((k) => !(PATCH_FIELDS as readonly string[]).includes(k));
    if (unsupported !== undefined) refuse(ctx, `Field '${echo(unsupported)}' is not supported. Please use one or more of: ${pyList(PATCH_FIELDS)}.`, "role");
  })
  .pipe(z.looseObject({ name: name.optional(), display_name: char.pipe(z.string().max(NAME_MAX)).optional(), description }))
  .transform((body) => ({ name: body.name, displayName: body.display_name, description: body.description }));
export type V1RolePatchBody = z.output<typeof v1RolePatchBody>;

/** PUT /groups/{uuid}/: a group's name (trimmed) and description. */
export const v1GroupUpdateBody = z.looseObject({ name: name.transform((v) => v.trim()), description }).transform((body) => ({ name: body.name, description: body.description }));
export type V1GroupUpdateBody = z.output<typeof v1GroupUpdateBody>;

/** POST /groups/{uuid}/roles/: upstream's GroupRoleSerializerIn, a list of role UUIDs. */
export const v1GroupRolesBody = z.looseObject({ roles: drfList(drfUuid, 0, MAX_ACCESS) }).transform((body) => body.roles);
