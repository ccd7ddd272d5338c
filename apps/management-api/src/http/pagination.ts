import type { Request } from "express";
import { ApiError } from "./problem.js";

export interface OffsetPage {
  /** -1 = everything. */
  limit: number;
  offset: number;
}

/**
 * `limit` default 10, `-1` = all, values above `max` are clamped (as insights-rbac does);
 * garbage, zero, other negatives and negative offsets are refused.
 */
export function parseOffsetPage(query: { limit?: string | undefined; offset?: string | undefined }, max: number): OffsetPage {
  return { limit: parseLimit(query.limit, max), offset: parseNonNegative(query.offset, "offset") };
}

/**
 * insights-rbac's StandardResultsSetPagination on the lists it pages itself (v1 `/principals/`): a
 * `limit` that is not a positive integer falls back to 10 and an `offset` that is not a
 * non-negative integer to 0, rather than a 400.
 */
export function parseLenientOffsetPage(query: { limit?: string | undefined; offset?: string | undefined }, max: number): OffsetPage {
  const limit = query.limit !== undefined && /^\s*\+?\d+\s*$/.test(query.limit) && Number(query.limit) >= 1 ? Math.min(Number(query.limit), max) : 10;
  const offset = query.offset !== undefined && /^\s*\+?\d+\s*$/.test(query.offset) && Number.isSafeInteger(Number(query.offset)) ? Number(query.offset) : 0;
  return { limit, offset };
}

export function parseLimit(raw: string | undefined, max: number): number {
  if (raw === undefined || raw === "") return 10;
  if (!/^-?\d+$/.test(raw)) throw new ApiError(400, [{ message: "A valid integer is required.", field: "limit" }]);
  const value = Number(raw);
  if (value === -1) return -1;
  if (value < 1) throw new ApiError(400, [{ message: "Ensure this value is greater than or equal to 1 (or -1 for all).", field: "limit" }]);
  return Math.min(value, max);
}

function parseNonNegative(raw: string | undefined, field: string): number {
  if (raw === undefined || raw === "") return 0;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new ApiError(400, [{ message: "Ensure this value is an integer greater than or equal to 0.", field }]);
  }
  return Number(raw);
}

/**
 * The path the router matched, never the raw request target: an absolute-form target
 * (`GET http://evil.example/...`) or a Host header must not leak into links the API returns.
 */
export function requestPath(req: Request): string {
  return `${req.baseUrl}${req.path}`;
}

/** Path + query of this request with some parameters replaced; links are relative. */
export function relativeLink(req: Request, replace: Record<string, string | null>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(req.query)) {
    if (key in replace) continue;
    if (typeof value === "string") params.append(key, value);
    else if (Array.isArray(value)) for (const item of value) if (typeof item === "string") params.append(key, item);
  }
  for (const [key, value] of Object.entries(replace)) if (value !== null) params.set(key, value);
  const path = requestPath(req);
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** `data` is the page's list (upstream's `principal_type=all` answers an object of two lists instead). */
export interface OffsetEnvelope<T, D = T[]> {
  meta: { count: number; limit: number; offset: number };
  links: { first: string; next: string | null; previous: string | null; last: string };
  data: D;
}

export function offsetEnvelope<T, D = T[]>(req: Request, page: OffsetPage, count: number, data: D): OffsetEnvelope<T, D> {
  if (page.limit === -1) {
    const all = relativeLink(req, { limit: "-1", offset: "0" });
    return { meta: { count, limit: -1, offset: 0 }, links: { first: all, next: null, previous: null, last: all }, data };
  }
  const { limit, offset } = page;
  const link = (at: number) => relativeLink(req, { limit: String(limit), offset: String(at) });
  return {
    meta: { count, limit, offset },
    links: {
      first: link(0),
      next: offset + limit < count ? link(offset + limit) : null,
      previous: offset > 0 ? link(Math.max(offset - limit, 0)) : null,
      last: link(Math.max(count - limit, 0)),
    },
    data,
  };
}

// Cursor pagination (roles, role bindings): the cursor is an opaque token over an offset.

export interface CursorPage {
  limit: number;
  offset: number;
}

export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset }), "utf8").toString("base64url");
}

export function parseCursorPage(query: { limit?: string | undefined; cursor?: string | undefined }, max: number): CursorPage {
  const limit = parseLimit(query.limit, max);
  if (query.cursor === undefined || query.cursor === "") return { limit, offset: 0 };
  let offset: unknown;
  try {
    offset = (JSON.parse(Buffer.from(query.cursor, "base64url").toString("utf8")) as { o?: unknown }).o;
  } catch {
    offset = undefined;
  }
  if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0) {
    throw new ApiError(400, [{ message: "Invalid cursor.", field: "cursor" }]);
  }
  return { limit, offset };
}

export interface CursorEnvelope<T> {
  meta: { limit: number };
  links: { next: string | null; previous: string | null };
  data: T[];
}

export function cursorEnvelope<T>(req: Request, page: CursorPage, count: number, data: T[]): CursorEnvelope<T> {
  if (page.limit === -1) return { meta: { limit: data.length }, links: { next: null, previous: null }, data };
  const link = (at: number) => relativeLink(req, { cursor: at === 0 ? null : encodeCursor(at), limit: String(page.limit) });
  return {
    meta: { limit: page.limit },
    links: {
      next: page.offset + page.limit < count ? link(page.offset + page.limit) : null,
      previous: page.offset > 0 ? link(Math.max(page.offset - page.limit, 0)) : null,
    },
    data,
  };
}
