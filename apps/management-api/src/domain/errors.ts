import { isStoreError } from "@gatehouse/store";

// The management API's domain errors: what a command refuses, in the words the caller reads, with
// no HTTP in sight. Commands throw these (or let the store's StoreError through); one map at the
// edge (http/errors.ts) gives each kind its status and the error shape of the API version called.

/** One refused field: `field` is its path in the request as upstream names it ("detail" when none). */
export interface FieldProblem {
  message: string;
  field: string;
}

/**
 * Why a command refused:
 * - `invalid`: the request is malformed or names something it may not (a field, with its path)
 * - `forbidden`: the caller may not do this
 * - `not-found`: the thing named does not exist for this caller
 * - `conflict`: the request collides with the current state (a duplicate, a rule of the state)
 * - `busy`: a concurrent update won; the caller should retry shortly
 * - `unavailable`: the service cannot take the request yet (still starting)
 * - `internal`: the service could not answer in time (no fault of the request)
 */
export type DomainErrorKind = "invalid" | "forbidden" | "not-found" | "conflict" | "busy" | "unavailable" | "internal";

export class DomainError extends Error {
  override readonly name = "DomainError";
  constructor(
    readonly kind: DomainErrorKind,
    readonly problems: FieldProblem[],
  ) {
    super(problems[0]?.message ?? kind);
  }
}

export const isDomainError = (error: unknown, kind?: DomainErrorKind): error is DomainError => error instanceof DomainError && (kind === undefined || error.kind === kind);

const one = (kind: DomainErrorKind, message: string, field: string) => new DomainError(kind, [{ message, field }]);

/** A field of the request refused; `field` is its path. */
export const invalid = (message: string, field = "detail") => one("invalid", message, field);
export const notFound = (message = "Not found.", field = "detail") => one("not-found", message, field);
export const workspaceNotFound = () => notFound("No Workspace matches the given query.");
export const forbidden = (message = "You do not have permission to perform this action.", field = "detail") => one("forbidden", message, field);
export const conflict = (message: string, field = "detail") => one("conflict", message, field);
export const busy = (message = "Too many concurrent updates. Please retry.") => one("busy", message, "detail");
export const unavailable = (message: string) => one("unavailable", message, "detail");

/** The store found no such row for the organisation: absent, or another organisation's (never told apart). */
export const isMissing = (error: unknown): boolean => isStoreError(error, "not-found") || isStoreError(error, "cross-tenant");

/** A `.catch` naming the store's missing row with the command's own refusal; any other error passes through. */
export const missingAs =
  (refusal: () => DomainError) =>
  (error: unknown): never => {
    if (isMissing(error)) throw refusal();
    throw error;
  };
