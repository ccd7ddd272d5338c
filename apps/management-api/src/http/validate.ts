import { isUtf8 } from "node:buffer";
import type { NextFunction, Request, Response } from "express";
import type { z, ZodError, ZodType } from "zod";
import { drfErrorMap, echo, issueSource } from "../schemas/drf.js";
import { ApiError, type FieldError } from "./problem.js";

/** Each issue in upstream's words (`drfErrorMap` gave the message) with the source upstream names. */
export function zodFieldErrors(error: ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      const base = issue.path.map(String).join(".");
      for (const key of issue.keys) out.push({ message: `Unknown field '${echo(key)}'.`, field: echo(base ? `${base}.${key}` : key) });
    } else {
      out.push({ message: issue.message, field: issueSource(issue) });
    }
  }
  return out;
}

/** The one parse of request input, v1 and v2 alike: a 400 in upstream's words, nothing changed. */
export function parseWith<S extends ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { error: drfErrorMap });
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

/**
 * A v1 body: without one, upstream's serializers read an empty object (each required field is
 * then "This field is required.").
 */
export function parseV1Body<S extends ZodType>(schema: S, req: Request): z.output<S> {
  return parseWith(schema, req.body ?? {});
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

const NUL_MESSAGE = "Null characters are not allowed.";

/** Why a string cannot be taken: a NUL (Postgres text cannot hold it) or an unpaired surrogate. */
function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return NUL_MESSAGE;
  // JSON's \ud800 escapes decode to unpaired surrogates; stored, they would silently become U+FFFD.
  if (/\p{Surrogate}/u.test(value)) return "Unpaired surrogate characters are not allowed (the text must be valid Unicode).";
  return null;
}

/** The first string (or key) in `value` that cannot be taken, with its field path. */
function findBadText(value: unknown, path: string, depth = 0): { field: string; message: string } | null {
  if (depth > 32) return null;
  if (typeof value === "string") {
    const message = textProblem(value);
    return message === null ? null : { field: path, message };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const hit = findBadText(value[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const keyProblem = textProblem(key);
      // A bad key is not echoed: the field is its parent.
      if (keyProblem !== null) return { field: path, message: keyProblem };
      const hit = findBadText(inner, path ? `${path}.${key}` : key, depth + 1);
      if (hit !== null) return hit;
    }
  }
  return null;
}

/** A query parameter name short and plain enough to quote back as the field; otherwise "detail". */
const QUOTABLE_NAME = /^[A-Za-z0-9_.[\]-]{1,64}$/;

/**
 * The query string's first parameter whose name or value is not valid percent-encoded UTF-8 (the
 * parser would have turned its bytes into U+FFFD), or null.
 */
function badQueryParameter(url: string): string | null {
  const start = url.indexOf("?");
  if (start < 0) return null;
  for (const pair of url.slice(start + 1).split("&")) {
    const eq = pair.indexOf("=");
    const [name, value] = eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const decodedName = decodedComponent(name);
    if (decodedName === null || decodedComponent(value) === null) return decodedName !== null && QUOTABLE_NAME.test(decodedName) ? decodedName : "detail";
  }
  return null;
}

function decodedComponent(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

/** express.json's `verify`: a UTF-8 body must be valid UTF-8 (the decoder would replace bad bytes with U+FFFD). */
export function requireUtf8Body(_req: unknown, _res: unknown, body: Buffer, encoding: string): void {
  if (encoding.toLowerCase() === "utf-8" && !isUtf8(body)) throw Object.assign(new Error("invalid UTF-8"), { type: "entity.utf8.invalid", status: 400 });
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
 * Text that cannot be taken as sent is refused everywhere, never altered: NUL bytes (Postgres text
 * cannot store them), unpaired surrogates (JSON escapes; stored they would become U+FFFD) and
 * percent-encoding that is not UTF-8 in the path or the query string (the parsers would replace
 * it with U+FFFD, or the router would fail on it). Invalid UTF-8 bytes in a JSON body are refused
 * by `requireUtf8Body`.
 */
export function rejectMalformedText(req: Request, _res: Response, next: NextFunction): void {
  const path = decodedPath(req.path);
  if (path === null) {
    next(new ApiError(400, [{ message: "The request path is not valid percent-encoded UTF-8.", field: "detail" }]));
    return;
  }
  const query = badQueryParameter(req.originalUrl);
  if (query !== null) {
    next(new ApiError(400, [{ message: "The query parameter is not valid percent-encoded UTF-8.", field: query }]));
    return;
  }
  const inQuery = findBadText(req.query, "");
  const bad = inQuery ?? findBadText(req.body, "");
  // insights-rbac's wording for a NUL in a plainly named query parameter or body field.
  if (bad !== null && bad.message === NUL_MESSAGE && bad.field && bad.field.length <= 64 && !bad.field.includes("\u0000")) {
    const what = inQuery !== null ? "query parameter" : "field";
    next(new ApiError(400, [{ message: `The '${bad.field}' ${what} contains invalid characters.`, field: bad.field }]));
    return;
  }
  const problem = bad ?? (path.includes("\u0000") ? { field: "detail", message: NUL_MESSAGE } : null);
  if (problem !== null) {
    next(new ApiError(400, [{ message: problem.message, field: problem.field || "detail" }]));
    return;
  }
  next();
}
