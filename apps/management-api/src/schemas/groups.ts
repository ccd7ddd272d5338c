import { z } from "zod";
import { limitParam, offsetPageSchema, offsetParam, queryString, timestamp, uuid } from "./common.js";

export const groupSchema = z
  .object({
    uuid: z.string().meta({ format: "uuid" }),
    name: z.string(),
    description: z.string().nullable(),
    principalCount: z.number().int(),
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

export const groupPrincipalsBody = z
  .strictObject({
    principals: z
      .array(z.strictObject({ username: z.string().trim().min(1).max(256).optional(), user_id: z.string().trim().min(1).max(256).optional() }))
      .min(1, "Provide at least one principal.")
      .max(1000),
  })
  .meta({ id: "GroupPrincipalsAdd" });
export const groupPrincipalsDeleteQuery = z.object({ usernames: z.string().min(1, "Provide usernames.").max(65536) });
