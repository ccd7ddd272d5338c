import type { NextFunction, Request, Response } from "express";
import { z, ZodError, type ZodType } from "zod";
import { ApiError, type FieldError } from "./problem.js";

/** DRF-like wording for the common cases; zod's own message otherwise. */
const errorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type" && issue.input === undefined) return "This field is required.";
  if (issue.code === "invalid_type" && issue.input === null) return "This field may not be null.";
  return undefined;
};

export function zodFieldErrors(error: ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ message: `Unknown field '${key}'.`, field: base ? `${base}.${key}` : key });
    } else {
      out.push({ message: issue.message, field: base || "detail" });
    }
  }
  return out;
}

export function parseWith<S extends ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { error: errorMap });
  if (!result.success) throw new ApiError(400, zodFieldErrors(result.error));
  return result.data;
}

/** Query strings: repeated parameters arrive as arrays and are rejected by the string schemas. */
export function parseQuery<S extends ZodType>(schema: S, req: Request): z.output<S> {
  return parseWith(schema, { ...(req.query as Record<string, unknown>) });
}

export function parseBody<S extends ZodType>(schema: S, req: Request): z.output<S> {
  if (req.body === undefined) throw new ApiError(400, [{ message: "A JSON request body is required.", field: "detail" }]);
  return parseWith(schema, req.body);
}

/** Reject bodies that are not JSON rather than silently ignoring them. */
export function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0") || req.headers["transfer-encoding"] !== undefined;
  if (hasBody && (req.method === "POST" || req.method === "PUT" || req.method === "PATCH") && !req.is(["application/json", "application/*+json"])) {
    next(new ApiError(415, [{ message: "Request bodies must be application/json.", field: "detail" }]));
    return;
  }
  next();
}

function findNul(value: unknown, path: string, depth = 0): string | null {
  if (depth > 32) return null;
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const hit = findNul(value[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key.includes("\u0000")) return path ? `${path}.${key}` : key;
      const hit = findNul(inner, path ? `${path}.${key}` : key, depth + 1);
      if (hit !== null) return hit;
    }
  }
  return null;
}

/** The request path percent-decoded as the router will decode its parameters; null when it cannot be. */
function decodedPath(path: string): string | null {
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
}

/**
 * NUL bytes cannot be stored in Postgres text and are never meaningful: refuse them anywhere,
 * including percent-encoded in the path. A path that is not valid percent-encoded UTF-8 is refused
 * here too, before the router would fail to decode a parameter.
 */
export function rejectNulBytes(req: Request, _res: Response, next: NextFunction): void {
  const path = decodedPath(req.path);
  if (path === null) {
    next(new ApiError(400, [{ message: "The request path is not valid percent-encoded UTF-8.", field: "detail" }]));
    return;
  }
  // insights-rbac's wording for a query parameter and for a body field, when the field has a plain name.
  const inQuery = findNul(req.query, "");
  const field = inQuery ?? findNul(req.body, "");
  if (field && field.length <= 64 && !field.includes("\u0000")) {
    const what = inQuery !== null ? "query parameter" : "field";
    next(new ApiError(400, [{ message: `The '${field}' ${what} contains invalid characters.`, field }]));
    return;
  }
  if (field !== null || path.includes("\u0000")) {
    next(new ApiError(400, [{ message: "Null characters are not allowed.", field: "detail" }]));
    return;
  }
  next();
}
