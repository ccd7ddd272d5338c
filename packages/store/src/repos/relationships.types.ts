// Relationship writes.
// Part of the store's public types (types.ts re-exports every one).

import type { Relationship, Written } from "./shared.types.js";

export interface RelationshipWrite {
  /** Created if absent (idempotent). */
  touch?: Relationship[];
  /** Deleted if present (exact match). */
  delete?: Relationship[];
}

export interface RelationshipRepository {
  /**
   * Raw tuple write for the engine's ReportResource/DeleteResource and for imports. Deletes are
   * applied before touches. Validates names (SpiceDB syntax) and rejects an empty write.
   */
  write(orgId: string, write: RelationshipWrite): Promise<Written<{ touched: number; deleted: number }>>;
  /** Tuples of the tenant (and public tuples with `includePublic`) matching an exact filter. */
  read(orgId: string, filter?: Partial<Relationship> & { includePublic?: boolean }): Promise<Relationship[]>;
}
