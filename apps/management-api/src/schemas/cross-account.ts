// Cross-account request bodies and queries (insights-rbac's serializers' rules and words), and the
// answers' shapes: the list's dates as `%d %b %Y`, the detail's as `%m/%d/%Y` (UTC), as upstream.
import type { CrossAccountRequest } from "@gatehouse/store";
import { z } from "zod";
import type { PermissionRecord } from "../authz/catalogue.js";
import { drfList } from "./common.js";
import { checkKey } from "./drf.js";

const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const WRONG_DATE = "Datetime has wrong format. Use one of these formats instead: MM/DD/YYYY.";

/** `MM/DD/YYYY` (DRF's `input_formats=["%m/%d/%Y"]`), midnight UTC of that day. */
const usDate = z.unknown().transform((value, ctx) => {
  const match = typeof value === "string" ? US_DATE.exec(value) : null;
  if (match) {
    const [month, dayOfMonth, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const date = new Date(Date.UTC(year, month - 1, dayOfMonth));
    if (year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === dayOfMonth) return date;
  }
  ctx.addIssue({ code: "custom", message: value === null ? "This field may not be null." : WRONG_DATE });
  return z.NEVER;
});

/** Present, or upstream's "Field X must be specified." (its create check, before the serializer). */
const specified = <T>(field: string, schema: z.ZodType<T>) =>
  z
    .any()
    .refine((value) => value !== undefined, { message: `Field ${field} must be specified.`, abort: true })
    .pipe(schema as z.ZodType<T, unknown>);

const roleNames = drfList(z.string({ error: "Not a valid string." }).min(1, "This field may not be blank.").max(150, "Ensure this field has no more than 150 characters."), 0, 100);
const orgId = z.string({ error: "Not a valid string." }).min(1, "This field may not be blank.").max(36, "Ensure this field has no more than 36 characters.");
const account = z.string({ error: "Not a valid string." }).max(36, "Ensure this field has no more than 36 characters.").nullable();

export const createRequestBody = z.object({
  target_org: specified("target_org", orgId),
  start_date: specified("start_date", usDate),
  end_date: specified("end_date", usDate),
  roles: specified("roles", roleNames),
  target_account: account.optional(),
});

/** PATCH and PUT: every field optional here; which may be given is the rules' decision (they name unknown keys). */
export const editRequestBody = z.looseObject({
  start_date: usDate.optional(),
  end_date: usDate.optional(),
  roles: roleNames.optional(),
  // Compared as text, as upstream's `str(...)`.
  status: z
    .union([z.string().max(64, "Ensure this field has no more than 64 characters."), z.number(), z.boolean()])
    .transform(String)
    .optional(),
  target_org: z.union([orgId, z.number()]).transform(String).optional(),
  target_account: account.optional(),
});

export const QUERY_BY_VALUES = ["user_id", "target_org"] as const;
/** Whose requests a read names: the target organisation's (its admins) or the caller's own (an associate). */
const queryBy = z
  .string()
  .max(64)
  .optional()
  .transform((raw, ctx) => checkKey(ctx, "query_by", raw, QUERY_BY_VALUES, "target_org") ?? z.NEVER);

export const listQuery = z.object({
  query_by: queryBy,
  status: z.string().max(1024).optional(),
  org_id: z.string().max(1024).optional(),
  approved_only: z.string().max(16).optional(),
  order_by: z.string().max(64).optional(),
  limit: z.string().max(32).optional(),
  offset: z.string().max(32).optional(),
});

export const detailQuery = z.object({ query_by: queryBy });

/** django-filter's BooleanFilter: true / false in its spellings; anything else filters nothing. */
export const approvedOnly = (value: string | undefined): boolean => value !== undefined && ["true", "True", "1"].includes(value);

const ORDER_FIELDS = ["request_id", "start_date", "end_date", "created", "modified", "status"] as const;

/** DRF's OrderingFilter over upstream's fields: an unknown field is ignored. */
export function orderingOf(value: string | undefined): { field: (typeof ORDER_FIELDS)[number]; descending: boolean } | undefined {
  if (!value) return undefined;
  const descending = value.startsWith("-");
  const field = (descending ? value.slice(1) : value) as (typeof ORDER_FIELDS)[number];
  return ORDER_FIELDS.includes(field) ? { field, descending } : undefined;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const two = (n: number) => String(n).padStart(2, "0");
/** `%d %b %Y` */
const listDate = (d: Date) => `${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
/** `%m/%d/%Y` */
const detailDate = (d: Date) => `${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())}/${d.getUTCFullYear()}`;

/** Upstream's list item; for the target organisation's admins the requester's name replaces its id when known. */
export function listItem(request: CrossAccountRequest, byTargetOrg: boolean): Record<string, unknown> {
  const item: Record<string, unknown> = {
    request_id: request.requestId,
    target_account: request.targetAccount,
    target_org: request.targetOrg,
    user_id: request.userId,
    start_date: listDate(request.startDate),
    end_date: listDate(request.endDate),
    created: `${listDate(request.created)}, ${two(request.created.getUTCHours())}:${two(request.created.getUTCMinutes())} UTC`,
    status: request.status,
  };
  if (!byTargetOrg) return item;
  const known = requesterOf(request);
  if (!known) return { ...item, user_available: false };
  delete item["user_id"];
  return { ...item, ...known, user_available: true };
}

/** The requester's name and e-mail as its identity carried them, when it carried an e-mail. */
function requesterOf(request: CrossAccountRequest): { first_name: string; last_name: string; email: string } | undefined {
  const { email, firstName, lastName } = request.requester;
  return email ? { first_name: firstName ?? "", last_name: lastName ?? "", email } : undefined;
}

/** Upstream's detail: the roles with their permissions. */
export function detail(request: CrossAccountRequest, permissionsOf: (roleId: string) => PermissionRecord[], byTargetOrg: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    request_id: request.requestId,
    target_account: request.targetAccount,
    target_org: request.targetOrg,
    user_id: request.userId,
    start_date: detailDate(request.startDate),
    end_date: detailDate(request.endDate),
    created: detailDate(request.created),
    status: request.status,
    roles: request.roles.map((role) => ({ uuid: role.id, display_name: role.displayName, description: role.description, permissions: permissionsOf(role.id) })),
  };
  const known = byTargetOrg ? requesterOf(request) : undefined;
  if (!known) return out;
  delete out["user_id"];
  return { ...out, ...known };
}
