// Reported resources (hosts).
// Part of the store's public types (types.ts re-exports every one).

import type { Page, Written } from "./shared.types.js";

export interface Host {
  orgId: string;
  id: string;
  workspaceId: string;
  reported: Date;
}

export interface HostRepository {
  /** Creates or moves the host into a workspace of the tenant (ReportResource). */
  report(orgId: string, hostId: string, workspaceId: string): Promise<Written<Host>>;
  /** DeleteResource: `not-found` if the host is unknown in the tenant. */
  delete(orgId: string, hostId: string): Promise<Written<{ id: string }>>;
  get(orgId: string, hostId: string): Promise<Host>;
  list(orgId: string, query?: { workspaceId?: string; limit?: number; offset?: number }): Promise<Page<Host>>;
}
