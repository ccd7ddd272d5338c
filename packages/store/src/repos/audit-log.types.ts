// The audit log.
// Part of the store's public types (types.ts re-exports every one).

import type { Page } from "./shared.types.js";

/** One audit-log row, as insights-rbac's `AuditLog` keeps it. */
export interface AuditEntry {
  principalUsername: string;
  description: string;
  resourceType: "group" | "role" | "user" | "permission" | "role_v2" | "workspace" | "role_binding" | "cross_account_request";
  action: "create" | "edit" | "delete" | "add" | "remove";
  resourceUuid?: string | null;
  secondaryResourceUuid?: string | null;
}

export interface AuditLogRecord extends AuditEntry {
  id: string;
  created: Date;
}

export interface AuditLogQuery {
  principalUsername?: string;
  /** Exact (case-insensitive) username instead of a substring. */
  exactUsername?: boolean;
  resourceTypes?: string[];
  actions?: string[];
  /** Rows created at or after / at or before this time, compared at the millisecond the list shows. */
  createdAfter?: Date;
  createdBefore?: Date;
  /** sequence (the row id; default -sequence), created, principal_username, resource_type, action; `-` for descending. */
  orderBy?: string;
  limit?: number;
  offset?: number;
}

export interface AuditLogRepository {
  list(orgId: string, query?: AuditLogQuery): Promise<Page<AuditLogRecord>>;
}

/** Audit rows of a write, made from what it wrote. */
export type AuditOf<T> = (value: T) => AuditEntry[];
