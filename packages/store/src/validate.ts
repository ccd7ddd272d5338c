// Input checks shared by the repositories: bad input is rejected before any write.
import { StoreError } from "./errors.js";

const uuidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const orgRe = /^[A-Za-z0-9_.-]{1,64}$/;

export function isUuid(s: unknown): s is string {
  return typeof s === "string" && uuidRe.test(s);
}

/** Ids are compared lower-case (Postgres returns uuids lower-case). */
export function requireUuid(value: unknown, field: string): string {
  if (!isUuid(value)) throw new StoreError("invalid-argument", `${String(value)} is not a valid UUID.`, field);
  return value.toLowerCase();
}

export function requireOrgId(orgId: unknown): string {
  if (typeof orgId !== "string" || !orgRe.test(orgId)) {
    throw new StoreError("invalid-argument", `Invalid org id '${String(orgId)}'.`, "org_id");
  }
  return orgId;
}

/** Letters, digits, underscore (Unicode \w), spaces and hyphens; 1–255 characters. */
export function requireWorkspaceName(name: unknown): string {
  if (typeof name !== "string" || name.trim().length === 0) throw new StoreError("invalid-argument", "The workspace name is required.", "name");
  if (name.length > 255) throw new StoreError("invalid-argument", "The workspace name must be at most 255 characters.", "name");
  if (!/^[\p{L}\p{N}_ -]+$/u.test(name)) {
    throw new StoreError("invalid-argument", "The workspace name may contain letters, digits, underscores, spaces and hyphens only.", "name");
  }
  return name;
}

export function optionalDescription(d: unknown, field = "description"): string | null {
  if (d === undefined || d === null) return null;
  if (typeof d !== "string") throw new StoreError("invalid-argument", "The description must be a string.", field);
  if (d.length > 255) throw new StoreError("invalid-argument", "The description must be at most 255 characters.", field);
  return d;
}

export function pageBounds(limit: number | undefined, offset: number | undefined): { limit: number | null; offset: number } {
  const l = limit === undefined ? 10 : limit;
  if (!Number.isInteger(l) || (l < 1 && l !== -1)) throw new StoreError("invalid-argument", "limit must be a positive integer or -1.", "limit");
  const o = offset ?? 0;
  if (!Number.isInteger(o) || o < 0) throw new StoreError("invalid-argument", "offset must be a non-negative integer.", "offset");
  return { limit: l === -1 ? null : l, offset: o };
}

/** Name filter of the list endpoints: substring, or an anchored glob when it contains `*`. */
export function namePattern(name: string): string {
  const escaped = name.replace(/[\\%_]/g, (c) => `\\${c}`);
  return name.includes("*") ? escaped.replace(/\*/g, "%") : `%${escaped}%`;
}
