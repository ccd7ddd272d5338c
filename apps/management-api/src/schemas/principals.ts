import { z } from "zod";
import { limitParam, offsetPageSchema, offsetParam, queryString } from "./common.js";

export const principalSchema = z
  .object({
    uuid: z.string().meta({ format: "uuid" }),
    username: z.string(),
    type: z.enum(["user", "service-account"]),
    user_id: z.string().nullable(),
    service_account_id: z.string().nullable(),
    group_count: z.number().int(),
  })
  .meta({ id: "Principal" });
export const principalListSchema = offsetPageSchema(principalSchema, "PrincipalList");

export const principalListQuery = z.object({
  limit: limitParam,
  offset: offsetParam,
  username: queryString.optional(),
  type: z.enum(["user", "service-account"], { error: "type must be 'user' or 'service-account'." }).optional(),
  order_by: z.enum(["username", "-username"], { error: "Invalid order_by. Valid fields: username (prefix '-' for descending)." }).optional(),
});
