import type { ServerResponse } from "node:http";

/** One entry of a problem's `errors` list; `field` is the dotted request key or `detail`. */
export interface FieldError {
  message: string;
  field: string;
}

/** The problem+json body every Gatehouse HTTP service answers with (insights-rbac's v2 shape). */
export interface ProblemBody {
  status: number;
  title: string;
  detail: string;
  type: string;
  errors: FieldError[];
  instance?: string;
}

export interface ProblemOptions {
  /** Overrides the type derived from the status. */
  type?: string;
  /** The request path, for methods that change a resource (insights-rbac names it there). */
  instance?: string;
  headers?: Record<string, string>;
}

export const PROBLEM_TYPE_PREFIX = "http://project-kessel.org/problems/";

const TITLES: Record<number, string> = {
  400: "The request payload contains invalid syntax.",
  401: "Authentication credentials were not provided or are invalid.",
  403: "You do not have permission to perform this action.",
  404: "Not found.",
  409: "Conflict.",
  500: "Unexpected error occurred.",
  503: "Service unavailable.",
};

const TYPES: Record<number, string> = {
  400: "invalid-request",
  401: "unauthenticated",
  403: "insufficient-permission",
  404: "not-found",
  409: "conflict",
  413: "invalid-request",
  415: "invalid-request",
  503: "service-unavailable",
};

/** Fixed title per status, as insights-rbac's v2 exception handler answers. */
export function problemTitle(status: number): string {
  return TITLES[status] ?? "An error occurred.";
}

export function problemType(status: number): string {
  return PROBLEM_TYPE_PREFIX + (TYPES[status] ?? "internal-error");
}

export function problemBody(status: number, errors: readonly FieldError[], options: Pick<ProblemOptions, "type" | "instance"> = {}): ProblemBody {
  const list = errors.length > 0 ? [...errors] : [{ message: problemTitle(status), field: "detail" }];
  const body: ProblemBody = {
    status,
    title: problemTitle(status),
    detail: list[0]!.message,
    type: options.type ?? problemType(status),
    errors: list,
  };
  if (options.instance !== undefined) body.instance = options.instance;
  return body;
}

/** Writes a complete problem+json answer (express's Response is a ServerResponse too). */
export function writeProblem(res: ServerResponse, status: number, errors: readonly FieldError[], options: ProblemOptions = {}): void {
  for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
  const payload = JSON.stringify(problemBody(status, errors, options));
  res.statusCode = status;
  res.setHeader("content-type", "application/problem+json; charset=utf-8");
  res.setHeader("content-length", Buffer.byteLength(payload));
  res.end(payload);
}
