// Groups.
// Part of the store's public types (types.ts re-exports every one).

import type { AuditOf } from "./audit-log.types.js";
import type { Page, Written } from "./shared.types.js";

export type GroupKind = "standard" | "platform-default" | "admin-default";

export interface Group {
  id: string;
  orgId: string;
  kind: GroupKind;
  name: string;
  description: string | null;
  created: Date;
  modified: Date;
}

export interface GroupRepository {
  create(orgId: string, input: { name: string; description?: string | null }, audit?: AuditOf<Group>): Promise<Written<Group>>;
  get(orgId: string, id: string): Promise<Group>;
  list(orgId: string, query?: { name?: string; limit?: number; offset?: number }): Promise<Page<Group>>;
  /** Standard groups only; also removes their memberships and binding subjects. */
  delete(orgId: string, id: string, audit?: AuditOf<Group>): Promise<Written<{ id: string }>>;
  /** Principals (user ids) must exist in the tenant. Idempotent. Standard groups only. */
  addMembers(orgId: string, groupId: string, userIds: string[], audit?: AuditOf<{ added: string[] }>): Promise<Written<{ added: string[] }>>;
  removeMembers(orgId: string, groupId: string, userIds: string[], audit?: AuditOf<{ removed: string[] }>): Promise<Written<{ removed: string[] }>>;
  /** User ids of the members (for default groups: as implied by the principals). */
  members(orgId: string, groupId: string): Promise<string[]>;
  /** Ids of every group the principal belongs to, default groups included. */
  groupsOf(orgId: string, userId: string): Promise<string[]>;
}
