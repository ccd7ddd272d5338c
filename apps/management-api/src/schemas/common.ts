import { z } from "zod";
import { echo, pyType } from "./drf.js";

export { echo };

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in any case, normalised to lower case. */
export const uuid = z
  .string()
  .regex(UUID_PATTERN, { error: (issue) => `'${echo(issue.input)}' is not a valid UUID.` })
  .transform((value) => value.toLowerCase())
  .meta({ format: "uuid" });

/** Comma-separated UUID list from a query string: de-duplicated, lower-cased. */
export const uuidList = z.string().transform((value, ctx) => {
  const ids = new Set<string>();
  for (const raw of value.split(",")) {
    const id = raw.trim();
    if (id === "") continue;
    if (!UUID_PATTERN.test(id)) {
      ctx.addIssue({ code: "custom", message: `'${id}' is not a valid UUID.` });
      return z.NEVER;
    }
    ids.add(id.toLowerCase());
  }
  return [...ids];
});

/** `true` / `false` only (insights-rbac refuses anything else). */
export const queryBool = z.enum(["true", "false", "True", "False"], { error: "Must be 'true' or 'false'." }).transform((value) => value.toLowerCase() === "true");

export const queryString = z.string().max(1024);
export const limitParam = z.string().optional().meta({ description: "Page size; -1 returns everything." });
export const offsetParam = z.string().optional().meta({ description: "Zero-based offset." });
export const cursorParam = z.string().optional().meta({ description: "Opaque cursor from links.next/previous." });

export const timestamp = z.string().meta({ format: "date-time" });

export const problemSchema = z
  .object({
    status: z.number().int(),
    title: z.string(),
    detail: z.string(),
    type: z.string(),
    errors: z.array(z.object({ message: z.string(), field: z.string() })),
    instance: z.string().optional(),
  })
  .meta({ id: "Problem" });

export function offsetPageSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      meta: z.object({ count: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
      links: z.object({ first: z.string(), next: z.string().nullable(), previous: z.string().nullable(), last: z.string() }),
      data: z.array(item),
    })
    .meta({ id });
}

export function cursorPageSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      meta: z.object({ limit: z.number().int() }),
      links: z.object({ next: z.string().nullable(), previous: z.string().nullable() }),
      data: z.array(item),
    })
    .meta({ id });
}

/** DRF's list-field wording: wrong type, at least / no more than N elements. */
export function drfList<T extends z.ZodType>(item: T, min: number, max: number) {
  return z
    .array(item, {
      error: (issue) =>
        issue.input === undefined ? "This field is required." : issue.input === null ? "This field may not be null." : `Expected a list of items but got type "${pyType(issue.input)}".`,
    })
    .min(min, `Ensure this field has at least ${min} elements.`)
    .max(max, `Ensure this field has no more than ${max} elements.`);
}

/** DRF's wording for a list of nested objects (a ListSerializer): size errors go to `<field>.non_field_errors`. */
export function drfNestedList<T extends z.ZodType>(item: T, min: number, max: number) {
  return z
    .array(item, {
      error: (issue) =>
        issue.input === undefined ? "This field is required." : issue.input === null ? "This field may not be null." : `Expected a list of items but got type "${pyType(issue.input)}".`,
    })
    .superRefine((items, ctx) => {
      if (items.length < min) ctx.addIssue({ code: "custom", message: `Ensure this field has at least ${min} elements.`, path: ["non_field_errors"] });
      if (items.length > max) ctx.addIssue({ code: "custom", message: `Ensure this field has no more than ${max} elements.`, path: ["non_field_errors"] });
    })
    .meta({ minItems: min, maxItems: max });
}

/** A UUID with DRF's UUIDField wording (for a value of any other type too), lower-cased. */
export const drfUuid = z
  .string({ error: "Must be a valid UUID." })
  .regex(UUID_PATTERN, "Must be a valid UUID.")
  .transform((value) => value.toLowerCase())
  .meta({ format: "uuid" });
