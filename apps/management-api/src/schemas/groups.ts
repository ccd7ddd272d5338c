import { z } from "zod";
import { limitParam, offsetPageSchema, offsetParam, queryString, timestamp, UUID_PATTERN, uuid } from "./common.js";
import { checkKey } from "./drf.js";

const BOOLEAN_VALUES = ["true", "false"] as const;

export const groupSchema = z
  .object({
    uuid: z.string().meta({ format: "uuid" }),
    name: z.string(),
    description: z.string().nullable(),
    principalCount: z.number().int(),
    roleCount: z.number().int(),
    platform_default: z.boolean(),
    admin_default: z.boolean(),
    system: z.boolean(),
    created: timestamp,
    modified: timestamp,
  })
  .meta({ id: "Group" });
export const groupListSchema = offsetPageSchema(groupSchema, "GroupList");

export const groupBody = z
  .strictObject({
    name: z.string().trim().min(1, "This field may not be blank.").max(150, "Ensure this field has no more than 150 characters."),
    description: z.string().max(1000).nullable().optional(),
  })
  .meta({ id: "GroupCreate" });
export const groupListQuery = z.object({ limit: limitParam, offset: offsetParam, name: queryString.optional() });
export const groupIdParams = z.object({ uuid });

/** A principal to add: a user by `username` (or Gatehouse's `user_id`), a service account by `clientId`. */
export type GroupPrincipalRef = { type: "user"; username: string } | { type: "user-id"; userId: string } | { type: "service-account"; clientId: string };

// insights-rbac's PrincipalInputSerializer: field checks first (clientId must be a UUID), then the
// item as a whole, in its words: no `type` (or "user") needs a username, "service-account" a clientId.
const groupPrincipalItem = z
  .strictObject({
    username: z.string().trim().min(1).max(256).optional(),
    user_id: z.string().trim().min(1).max(256).optional(),
    clientId: z.string().regex(UUID_PATTERN, "Must be a valid UUID.").optional(),
    type: z.string().max(64).optional(),
  })
  .transform((item, ctx): GroupPrincipalRef => {
    if (item.type === undefined || item.type === "user") {
      if (item.username !== undefined) return { type: "user", username: item.username };
      if (item.user_id !== undefined) return { type: "user-id", userId: item.user_id };
      ctx.addIssue({ code: "custom", message: "the username is required for user principals" });
      return z.NEVER;
    }
    if (item.type === "service-account") {
      if (item.clientId !== undefined) return { type: "service-account", clientId: item.clientId.toLowerCase() };
      ctx.addIssue({ code: "custom", message: "the clientId field is required for service accounts" });
      return z.NEVER;
    }
    ctx.addIssue({ code: "custom", message: "The principal type must be either 'user' or 'service-account'" });
    return z.NEVER;
  });

export const groupPrincipalsBody = z
  .strictObject({
    principals: z.array(groupPrincipalItem).min(1, "Provide at least one principal.").max(1000),
  })
  .meta({ id: "GroupPrincipalsAdd" });

/** `usernames` and/or `service-accounts` (client ids), each a comma list; which one is required is the command's rule. */
export const groupPrincipalsDeleteQuery = z.object({
  usernames: z.string().max(65536).optional(),
  "service-accounts": z.string().max(65536).optional(),
});

export const GROUP_PRINCIPAL_TYPES = ["service-account", "user", "all"] as const;
export const groupPrincipalsListQuery = z
  .object({
    limit: limitParam,
    offset: offsetParam,
    principal_type: z.string().max(64).optional(),
    username_only: z.string().max(64).optional(),
    admin_only: z.string().max(64).optional(),
    principal_username: z.string().max(256).optional(),
    order_by: z.string().max(64).optional(),
    service_account_client_ids: z
      .string()
      .max(65536)
      .optional()
      .meta({ description: "Comma-separated client ids: answers which of them are member service accounts (no other parameter but limit and offset)." }),
  })
  // Checked in upstream's order (order_by, username_only, principal_type, then admin_only), the first refusal answering.
  .superRefine((q, ctx) => {
    if (q.order_by && checkKey(ctx, "order_by", q.order_by, ["username", "-username"]) === undefined) return;
    if (q.username_only && checkKey(ctx, "username_only", q.username_only, BOOLEAN_VALUES) === undefined) return;
    if (q.principal_type && checkKey(ctx, "principal_type", q.principal_type, GROUP_PRINCIPAL_TYPES) === undefined) return;
    if (q.principal_type?.toLowerCase() !== "service-account" && q.admin_only) checkKey(ctx, "admin_only", q.admin_only, BOOLEAN_VALUES);
  });

/** `service_account_client_ids`: each client id named and whether it is a member service account. */
export const groupServiceAccountMembershipSchema = z
  .object({ meta: z.object({ count: z.number().int() }), links: z.object({}), data: z.record(z.string(), z.boolean()) })
  .meta({ id: "GroupServiceAccountMembership" });

/** A member service account as `principal_type=service-account` lists it (upstream's ServiceAccount, without directory fields). */
export const groupServiceAccountSchema = z.object({ clientId: z.string(), username: z.string(), type: z.literal("service-account") }).meta({ id: "GroupServiceAccount" });

/** `principal_type=all`: the page split by kind, each key present only when the page holds that kind. */
export function groupAllPrincipalsPageSchema<T extends z.ZodType>(user: T) {
  return z
    .object({
      meta: z.object({ count: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
      links: z.object({ first: z.string(), next: z.string().nullable(), previous: z.string().nullable(), last: z.string() }),
      data: z.object({ serviceAccounts: z.array(groupServiceAccountSchema).optional(), users: z.array(user).optional() }),
    })
    .meta({ id: "GroupAllPrincipalsList" });
}
