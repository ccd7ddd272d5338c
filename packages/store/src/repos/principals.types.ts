// Principals (users and service accounts).
// Part of the store's public types (types.ts re-exports every one).

import type { Page, Written } from "./shared.types.js";

export type PrincipalType = "user" | "service-account";

export interface Principal {
  orgId: string;
  /** External user id; the `rbac/principal` id is `<domain>/<userId>`. */
  userId: string;
  username: string;
  type: PrincipalType;
  isOrgAdmin: boolean;
  /** The e-mail address the principal's identity last carried; null when none was seen. */
  email: string | null;
  created: Date;
  modified: Date;
}

export interface PrincipalInput {
  userId: string;
  username: string;
  type?: PrincipalType;
  isOrgAdmin?: boolean;
  /** Recorded when given; absent or null keeps the stored address. */
  email?: string | null;
}

export interface PrincipalRepository {
  /**
   * Inserts or updates principals; keeps their default-group memberships in step (every
   * principal is in the platform-default group, org admins also in the admin-default group).
   */
  upsert(orgId: string, principals: PrincipalInput[]): Promise<Written<Principal[]>>;
  /**
   * Makes the stored principal what this request's identity says (the admin flag above all):
   * read every time (no cache, so every replica sees the last change), written only when it
   * differs. `value`: whether it was written; `revision`: one at which the stored state holds
   * (the write's, else the head).
   */
  record(orgId: string, principal: PrincipalInput): Promise<Written<boolean>>;
  get(orgId: string, userId: string): Promise<Principal>;
  list(orgId: string, query?: { username?: string; type?: PrincipalType; orderBy?: "username" | "-username"; limit?: number; offset?: number }): Promise<Page<Principal>>;
  /** Removes the principal, its memberships and its direct binding subjects. */
  delete(orgId: string, userId: string): Promise<Written<{ userId: string }>>;
}
