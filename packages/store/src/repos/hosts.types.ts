// Reported resources (hosts).
// Part of the store's public types (types.ts re-exports every one).

import type { Page, Written } from "./shared.types.js";

export interface Host {
  orgId: string;
  id: string;
  workspaceId: string;
  reported: Date;
}

export interface HostReport {
  id: string;
  workspaceId: string;
}

export interface HostReportSummary {
  /** Hosts new to the store. */
  created: number;
  /** Hosts that were in another workspace. */
  moved: number;
  /** Hosts already where reported. */
  unchanged: number;
}

export interface HostRepository {
  /** Creates or moves the host into a workspace of the tenant (ReportResource). */
  report(orgId: string, hostId: string, workspaceId: string): Promise<Written<Host>>;
  /**
   * Many reports in one write transaction (a bulk import from an inventory): the same rows and
   * placements as one `report` per host, one change-feed entry. All or nothing: an unknown
   * workspace, a host of another tenant or a host listed twice changes nothing.
   */
  reportMany(orgId: string, hosts: readonly HostReport[]): Promise<Written<HostReportSummary>>;
  /** DeleteResource: `not-found` if the host is unknown in the tenant. */
  delete(orgId: string, hostId: string): Promise<Written<{ id: string }>>;
  get(orgId: string, hostId: string): Promise<Host>;
  list(orgId: string, query?: { workspaceId?: string; limit?: number; offset?: number }): Promise<Page<Host>>;
}
