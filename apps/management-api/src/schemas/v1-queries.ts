// The v1 list queries, read as insights-rbac reads them: a repeated parameter is its last value
// (Django's `QueryDict.get`), unknown parameters are ignored, and a refused value answers in
// upstream's words (its `validate_and_get_key`, django-filter's, its views' own).
import { z } from "zod";
import { UUID_PATTERN } from "./common.js";
import { checkKey, echo, pyList, refuse } from "./drf.js";

/** The last string value of a query parameter (undefined when absent). */
const lastValue = (value: unknown): string | undefined => {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.findLast((v): v is string => typeof v === "string");
  return undefined;
};

/** Every value of a repeated or comma-separated parameter, as django-filter's multiple choice (undefined when none). */
const allValues = (value: unknown): string[] | undefined => {
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  const out = list.flatMap((v) => v.split(",")).filter((v) => v !== "");
  return out.length > 0 ? out : undefined;
};

/** A plain text parameter. */
const text = z.preprocess(lastValue, z.string().optional());

/** A `validate_and_get_key` parameter with a default (or required): always a valid value once parsed. */
const key = <const V extends string>(name: string, valid: readonly V[], fallback?: V) => text.transform((raw, ctx) => checkKey(ctx, name, raw, valid, fallback, true) ?? (z.NEVER as V));

/** A `validate_and_get_key` parameter that may be left out. */
const optionalKey = <const V extends string>(name: string, valid: readonly V[]) => text.transform((raw, ctx) => checkKey(ctx, name, raw, valid));

const BOOLEAN_VALUES = ["true", "false"] as const;
const SCOPES = ["org_id", "principal"] as const;
const NAME_MATCHES = ["partial", "exact"] as const;

/** Comma-separated UUIDs, each checked (upstream's `validate_uuid` with its source), lower-cased and de-duplicated. */
const uuidsIn = (source: string) =>
  text.transform((raw, ctx) => {
    if (raw === undefined || raw === "") return undefined;
    const ids = raw.split(",");
    const bad = ids.find((id) => !UUID_PATTERN.test(id));
    if (bad !== undefined) {
      refuse(ctx, `${echo(bad)} is not a valid UUID.`, source);
      return z.NEVER;
    }
    return [...new Set(ids.map((id) => id.toLowerCase()))];
  });

/** A path's UUID as upstream's `validate_uuid(value, source)` checks it: refused in its words, lower-cased. */
export const uuidParam = (source: string) =>
  z.string().transform((raw, ctx) => {
    if (UUID_PATTERN.test(raw)) return raw.toLowerCase();
    refuse(ctx, `${echo(raw)} is not a valid UUID.`, source);
    return z.NEVER;
  });

const page = { limit: text, offset: text };

/** A v1 list with no filters: its page only. */
export const v1PageQuery = z.object(page);

// GET /access/

export const ACCESS_ORDER_VALUES = ["application", "resource_type", "verb", "-application", "-resource_type", "-verb"] as const;

export const v1AccessQuery = z.object({
  ...page,
  application: text.transform((raw, ctx) => {
    // Empty names every application; absent is refused.
    if (raw === undefined) refuse(ctx, "Query parameter 'application' is required.", "detail");
    return raw ?? "";
  }),
  username: text,
  order_by: optionalKey("order_by", ACCESS_ORDER_VALUES),
  status: key("status", ["enabled", "disabled", "all"], "enabled"),
});
export type V1AccessQuery = z.output<typeof v1AccessQuery>;

// GET /roles/ and /groups/{uuid}/roles/

export const ROLE_ADD_FIELDS = ["groups_in_count", "groups_in", "access"] as const;
export type RoleAddField = (typeof ROLE_ADD_FIELDS)[number];
export const ROLE_ORDER_FIELDS = ["name", "display_name", "modified", "policyCount"] as const;

export const v1RoleListQuery = z.object({
  ...page,
  name: text,
  name_match: key("name_match", NAME_MATCHES, "partial"),
  display_name: text,
  application: text,
  permission: text,
  system: text,
  scope: key("scope", SCOPES, "org_id"),
  username: text,
  order_by: text,
  add_fields: text.transform((raw, ctx): RoleAddField[] => {
    if (raw === undefined) return [];
    const fields = raw.split(",");
    const bad = fields.find((f) => !(ROLE_ADD_FIELDS as readonly string[]).includes(f));
    if (bad !== undefined) refuse(ctx, `add_fields query parameter value ${echo(bad)} is invalid. Valid inputs are ${pyList(ROLE_ADD_FIELDS)}.`, "detail");
    return fields as RoleAddField[];
  }),
});
export type V1RoleListQuery = z.output<typeof v1RoleListQuery>;

const GROUP_ROLE_ORDER = [...ROLE_ORDER_FIELDS, ...ROLE_ORDER_FIELDS.map((f) => `-${f}`)];

/** `scope` counts with `exclude=true` only (upstream's get_role_queryset). */
export const v1GroupRolesQuery = z
  .object({
    ...page,
    exclude: optionalKey("exclude", BOOLEAN_VALUES),
    role_name: text,
    role_display_name: text,
    role_description: text,
    role_system: text,
    order_by: text.transform((raw, ctx) => {
      const order = raw ?? "name";
      if (!GROUP_ROLE_ORDER.includes(order)) refuse(ctx, `${echo(order)} is not a valid ordering field. Valid values are ${pyList(GROUP_ROLE_ORDER)}`, "detail");
      return order;
    }),
    scope: text,
  })
  .transform((q, ctx) => {
    const exclude = q.exclude === "true";
    const principalScope = exclude && checkKey(ctx, "scope", q.scope, SCOPES, "org_id") === "principal";
    return {
      exclude,
      principalScope,
      roleName: q.role_name,
      roleDisplayName: q.role_display_name,
      roleDescription: q.role_description,
      roleSystem: q.role_system,
      orderBy: q.order_by,
      limit: q.limit,
      offset: q.offset,
    };
  });
export type V1GroupRolesQuery = z.output<typeof v1GroupRolesQuery>;

// GET /groups/

/** django-filter's BooleanFilter: true / false (1 / 0); empty does not filter. */
const booleanFilter = (name: string) =>
  text.transform((raw, ctx) => {
    if (raw === undefined || raw === "") return undefined;
    const lower = raw.toLowerCase();
    if (lower === "true" || lower === "1") return true;
    if (lower === "false" || lower === "0") return false;
    refuse(ctx, "Enter a valid boolean.", name);
    return undefined;
  });

/** A comma list of names, lower-cased; an empty parameter is refused with upstream's words. */
const namesIn = (emptyMessage: string) =>
  text.transform((raw, ctx) => {
    if (raw === "") refuse(ctx, emptyMessage, "groups_filter");
    return raw ? raw.split(",").map((v) => v.trim().toLowerCase()) : undefined;
  });

/** The group list's `scope`, checked by the command after the permission check (upstream's order). */
export const v1GroupScope = z
  .string()
  .optional()
  .transform((raw, ctx) => checkKey(ctx, "scope", raw, SCOPES, "org_id") ?? z.NEVER);

export const v1GroupListQuery = z
  .object({
    ...page,
    name: text,
    name_match: text,
    uuid: uuidsIn("groups uuid filter"),
    role_names: namesIn("No value of roles provided to filter groups!"),
    role_discriminator: text,
    principals: namesIn("No principals provided to filter groups!"),
    system: booleanFilter("system"),
    platform_default: booleanFilter("platform_default"),
    admin_default: booleanFilter("admin_default"),
    username: text,
    exclude_username: text,
    order_by: text,
    scope: text,
  })
  .transform((q, ctx) => {
    if (q.username && q.exclude_username) refuse(ctx, "Not possible to use both parameters [username, exclude_username].", "detail");
    return {
      name: q.name,
      nameMatch: q.name ? checkKey(ctx, "name_match", q.name_match, NAME_MATCHES, "partial") : undefined,
      uuids: q.uuid,
      roleNames: q.role_names,
      roleDiscriminator: q.role_names ? checkKey(ctx, "role_discriminator", q.role_discriminator, ["any", "all"], "any") : undefined,
      principals: q.principals,
      system: q.system,
      platformDefault: q.platform_default,
      adminDefault: q.admin_default,
      username: q.username,
      excludeUsername: q.exclude_username,
      orderBy: q.order_by,
      /** As sent: `v1GroupScope` checks it after the permission check; ignored with `username`. */
      scope: q.scope,
      limit: q.limit,
      offset: q.offset,
    };
  });
export type V1GroupListQuery = z.output<typeof v1GroupListQuery>;

// GET /principals/

export const v1PrincipalListQuery = z
  .object({
    ...page,
    usernames: text,
    email: text,
    match_criteria: text,
    sort_order: key("sort_order", ["asc", "desc"], "asc"),
    status: key("status", ["enabled", "disabled", "all"], "enabled"),
    admin_only: text,
    username_only: key("username_only", BOOLEAN_VALUES, "false"),
    type: optionalKey("type", ["service-account", "user", "all"]),
    name: text,
    owner: text,
    description: text,
    order_by: text,
  })
  .transform((q, ctx) => {
    const type = q.type ?? "user";
    const usernames = (q.usernames ?? "").replace(/ /g, "");
    const email = (q.email ?? "").trim().toLowerCase();
    // Users take `match_criteria` with a default (an empty one is refused); service accounts only when given.
    const matchCriteria = type === "service-account" ? checkKey(ctx, "match_criteria", q.match_criteria, NAME_MATCHES) : checkKey(ctx, "match_criteria", q.match_criteria, NAME_MATCHES, "exact");
    // admin_only applies to a user listing without `usernames` or `email`, as upstream.
    const adminOnly = type !== "service-account" && !usernames && !email && checkKey(ctx, "admin_only", q.admin_only, BOOLEAN_VALUES, "false") === "true";
    return {
      type,
      usernames,
      email,
      // Users read an absent one as "exact"; service accounts as not given.
      matchCriteria: q.match_criteria ? matchCriteria : undefined,
      sortOrder: q.sort_order,
      status: q.status,
      adminOnly,
      usernameOnly: q.username_only === "true",
      name: q.name,
      owner: q.owner,
      description: q.description,
      orderBy: q.order_by,
      limit: q.limit,
      offset: q.offset,
    };
  });
export type V1PrincipalListQuery = z.output<typeof v1PrincipalListQuery>;

// GET /permissions/ and /permissions/options/

const permissionFilterShape = {
  ...page,
  application: text,
  resource_type: text,
  verb: text,
  permission: text,
  exclude_globals: key("exclude_globals", BOOLEAN_VALUES, "false"),
  exclude_roles: uuidsIn("UUID Validation"),
  allowed_only: key("allowed_only", BOOLEAN_VALUES, "false"),
};

const permissionFilterOf = (q: z.output<z.ZodObject<typeof permissionFilterShape>>) => ({
  application: q.application,
  resourceType: q.resource_type,
  verb: q.verb,
  permission: q.permission,
  excludeGlobals: q.exclude_globals === "true",
  excludeRoles: q.exclude_roles ?? [],
  allowedOnly: q.allowed_only === "true",
});
export type V1PermissionFilter = ReturnType<typeof permissionFilterOf>;

export const v1PermissionListQuery = z
  .object({ ...permissionFilterShape, order_by: text })
  .transform((q) => ({ filter: permissionFilterOf(q), orderBy: q.order_by, limit: q.limit, offset: q.offset }));

export const PERMISSION_OPTION_FIELDS = ["application", "resource_type", "verb"] as const;
export const v1PermissionOptionsQuery = z
  .object({ ...permissionFilterShape, field: key("field", PERMISSION_OPTION_FIELDS) })
  .transform((q) => ({ filter: permissionFilterOf(q), field: q.field, limit: q.limit, offset: q.offset }));

// GET /auditlogs/

const AUDIT_RESOURCE_TYPES = ["group", "role", "role_v2", "user", "permission", "workspace", "role_binding", "cross_account_request"] as const;
const AUDIT_ACTIONS = ["delete", "add", "edit", "create", "remove"] as const;

/** django-filter's MultipleChoiceFilter: every value (repeated or comma-separated) one of `allowed`. */
const choicesIn = (name: string, allowed: readonly string[]) =>
  z.preprocess(
    allValues,
    z
      .array(z.string())
      .optional()
      .superRefine((values, ctx) => {
        const bad = values?.find((v) => !allowed.includes(v));
        if (bad !== undefined) refuse(ctx, `Select a valid choice. ${echo(bad)} is not one of the available choices.`, name);
      }),
  );

/** ISO 8601 as django-filter's IsoDateTimeFilter reads it: a date, or a date and time with an optional zone (none: UTC). */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

function isoDateTime(value: string): Date | undefined {
  const m = ISO_DATE_TIME.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = "00", mi = "00", s = "00", frac = "", zone = "Z"] = m;
  const daysInMonth = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
  // Out-of-range parts (month 13, hour 24, 31 April) are refused, not rolled over.
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > daysInMonth || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const offset = zone === "Z" ? "Z" : `${zone.slice(0, 3)}:${zone.length > 3 ? zone.slice(-2) : "00"}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(3, "0").slice(0, 3)}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const dateTime = (name: string) =>
  text.transform((raw, ctx) => {
    if (raw === undefined || raw === "") return undefined;
    const date = isoDateTime(raw);
    if (date === undefined) refuse(ctx, "Enter a valid date/time.", name);
    return date;
  });

export const v1AuditLogQuery = z.object({
  ...page,
  principal_username: text,
  name_match: text.superRefine((raw, ctx) => {
    if (raw !== undefined && !(NAME_MATCHES as readonly string[]).includes(raw)) {
      refuse(ctx, `name_match query parameter value ${echo(raw)} is invalid. Valid inputs are ${pyList(NAME_MATCHES)}.`, "detail");
    }
  }),
  resource_type: choicesIn("resource_type", AUDIT_RESOURCE_TYPES),
  action: choicesIn("action", AUDIT_ACTIONS),
  created_after: dateTime("created_after"),
  created_before: dateTime("created_before"),
  order_by: text,
});
export type V1AuditLogQuery = z.output<typeof v1AuditLogQuery>;

// DELETE /groups/{uuid}/roles/

export const v1GroupRolesDeleteQuery = z.object({
  roles: text.transform((raw, ctx) => {
    if (raw === undefined) {
      refuse(ctx, "Query parameter roles is required.", "detail");
      return z.NEVER;
    }
    const ids = raw.split(",");
    if (ids.length > 1000) refuse(ctx, "Ensure this field has no more than 1000 elements.", "roles");
    else if (ids.some((id) => !UUID_PATTERN.test(id))) refuse(ctx, "Must be a valid UUID.", "roles");
    return ids.map((id) => id.toLowerCase());
  }),
});
