// insights-rbac's words for a refused request (Django REST framework's, and its own views'): the
// one place a zod issue becomes the message and the error `source` upstream answers with. Every
// parse of a request (v1 and v2) runs with `drfErrorMap`; the edge reads each issue's source with
// `issueSource`.
import type { z } from "zod";

/** A request value quoted in an error message, bounded: messages never carry unbounded input. */
export const echo = (value: unknown): string => {
  const text = String(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
};

/** Python's name for a JSON value's type, as upstream's messages print it (`type(x).__name__`). */
export function pyType(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** Python's repr of a list of strings, as upstream prints valid values in its messages. */
export const pyList = (values: readonly string[]) => `[${values.map((v) => `'${v}'`).join(", ")}]`;

/**
 * DRF's field messages for zod's own issues; a schema's explicit message wins (zod asks this map
 * only when the schema gives none).
 */
export const drfErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "This field is required.";
      if (issue.input === null) return "This field may not be null.";
      if (issue.expected === "string") return "Not a valid string.";
      if (issue.expected === "array") return `Expected a list of items but got type "${pyType(issue.input)}".`;
      if (issue.expected === "object") return `Invalid data. Expected a dictionary, but got ${pyType(issue.input)}.`;
      if (issue.expected === "boolean") return "Must be a valid boolean.";
      if (issue.expected === "number" || issue.expected === "int") return "A valid integer is required.";
      return undefined;
    case "too_big":
      if (issue.origin === "string") return `Ensure this field has no more than ${issue.maximum} characters.`;
      if (issue.origin === "array") return `Ensure this field has no more than ${issue.maximum} elements.`;
      return undefined;
    case "too_small":
      if (issue.origin === "string") return Number(issue.minimum) === 1 ? "This field may not be blank." : `Ensure this field has at least ${issue.minimum} characters.`;
      if (issue.origin === "array") return `Ensure this field has at least ${issue.minimum} elements.`;
      return undefined;
    case "invalid_value":
      return `"${echo(issue.input)}" is not a valid choice.`;
    default:
      return undefined;
  }
};

/**
 * A refusal whose upstream `source` is not the field's path (a view's own check: upstream names
 * the source, e.g. `detail` for a query parameter, `role` for a rule of the role).
 */
export function refuse(ctx: z.RefinementCtx, message: string, source?: string): void {
  ctx.addIssue({ code: "custom", message, ...(source !== undefined ? { params: { source } } : {}) });
}

/**
 * upstream's `validate_and_get_key` over a query parameter: absent takes `fallback` (none: not
 * given); present but empty is required when there is a fallback or `required`; otherwise the
 * value, lower-cased, must be one of `valid`.
 */
export function checkKey<V extends string>(ctx: z.RefinementCtx, name: string, raw: string | undefined, valid: readonly V[], fallback?: V, required = false): V | undefined {
  const value = raw ?? fallback;
  if (value === undefined || value === "") {
    if (required || fallback !== undefined) refuse(ctx, `Query parameter '${name}' is required.`, "detail");
    return undefined;
  }
  const lower = value.toLowerCase() as V;
  if (valid.includes(lower)) return lower;
  refuse(ctx, `${name} query parameter value '${echo(value)}' is invalid. ${pyList(valid)} are valid inputs.`, "detail");
  return undefined;
}

/**
 * A parse a command makes itself where upstream checks a value only after its permission class (a
 * caller without the right is told 403 first): refused as any other parse, a ZodError the edge maps.
 */
export function parseAfterPermission<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return schema.parse(value, { error: drfErrorMap });
}

/** The `source` upstream names for an issue: its own when a check gave one, else its path ("detail" when none). */
export function issueSource(issue: z.core.$ZodIssue): string {
  const given = issue.code === "custom" ? (issue.params as { source?: unknown } | undefined)?.source : undefined;
  if (typeof given === "string") return given;
  return issue.path.map(String).join(".") || "detail";
}

/**
 * Issues of a nested serializer upstream validates on its own (one item of a list): `source` is
 * relative to the item, list indices are left out (DRF's ListSerializer nests errors without
 * them), and the item's own errors are its `non_field_errors`.
 */
export function itemIssues(issues: readonly z.core.$ZodIssue[]): { message: string; source: string }[] {
  return issues.map((issue) => {
    const given = issue.code === "custom" ? (issue.params as { source?: unknown } | undefined)?.source : undefined;
    const path = issue.path.filter((part) => typeof part !== "number").map(String);
    return { message: issue.message, source: typeof given === "string" ? given : path.join(".") || "non_field_errors" };
  });
}
