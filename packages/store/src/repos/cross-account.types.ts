// Cross-account requests (insights-rbac's /api/rbac/v1/cross-account-requests/).
// Part of the store's public types (types.ts re-exports every one).

import type { AuditOf } from "./audit-log.types.js";
import type { Page, Written } from "./shared.types.js";

export const CROSS_ACCOUNT_STATUSES = ["pending", "cancelled", "approved", "denied", "expired"] as const;

export type CrossAccountStatus = (typeof CROSS_ACCOUNT_STATUSES)[number];

/** A seeded role as a request names it. */
export interface CrossAccountRole {
  id: string;
  name: string;
  displayName: string;
  description: string | null;
}

export interface CrossAccountRequester {
  username: string | null;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
}

export interface CrossAccountRequest {
  requestId: string;
  targetOrg: string;
  targetAccount: string | null;
  userId: string;
  requester: CrossAccountRequester;
  startDate: Date;
  endDate: Date;
  status: CrossAccountStatus;
  created: Date;
  modified: Date;
  roles: CrossAccountRole[];
}

/** A role named by display name, as the public (seeded and platform) roles hold it. */
export interface PublicRoleMatch {
  id: string;
  displayName: string;
  /** Seeded roles may be requested; platform (default parent) roles may not. */
  system: boolean;
}

export interface CrossAccountListQuery {
  /** The requests targeting this organisation, or those this user made. */
  by: { targetOrg: string } | { userId: string };
  statuses?: string[];
  targetOrgs?: string[];
  /** Approved and inside their dates by the store's clock. */
  approvedOnly?: boolean;
  orderBy?: { field: "request_id" | "start_date" | "end_date" | "created" | "modified" | "status"; descending: boolean };
  limit?: number;
  offset?: number;
}

/** What a change to one request sets (absent: unchanged). */
export interface CrossAccountChange {
  startDate?: Date;
  endDate?: Date;
  roleIds?: string[];
  status?: CrossAccountStatus;
  targetAccount?: string | null;
}

export interface CrossAccountRepository {
  /** Public roles by display name (upstream's lookup in the public tenant). */
  publicRolesByDisplayName(names: string[]): Promise<PublicRoleMatch[]>;
  create(
    input: { targetOrg: string; targetAccount: string | null; userId: string; requester: CrossAccountRequester; startDate: Date; endDate: Date; roleIds: string[] },
    audit?: AuditOf<CrossAccountRequest>,
  ): Promise<Written<CrossAccountRequest>>;
  get(requestId: string): Promise<CrossAccountRequest | undefined>;
  list(query: CrossAccountListQuery): Promise<Page<CrossAccountRequest>>;
  /**
   * Changes one request under its target organisation's write lock: `decide` sees the request as
   * stored and answers the change (or throws, and nothing is written). Grants follow the result.
   */
  update(
    requestId: string,
    decide: (current: CrossAccountRequest, now: number) => CrossAccountChange,
    audit?: AuditOf<{ before: CrossAccountRequest; after: CrossAccountRequest }>,
  ): Promise<Written<CrossAccountRequest>>;
  /** Ids of the roles the user's approved requests grant in the organisation now (the store's clock). */
  activeRoleIds(targetOrg: string, userId: string): Promise<string[]>;
  /**
   * Marks requests past their end date expired and writes the grants of approved requests whose
   * start has come; one write per organisation.
   */
  sweep(): Promise<{ expired: number; granted: number; revisions: number[] }>;
}
