// Reports held until their workspace exists.
// Part of the store's public types (types.ts re-exports every one).

import type { Written } from "./shared.types.js";

/** A report held until its workspace exists (ReportResource into an unknown workspace id). */
export interface PendingPlacement {
  resourceType: string;
  resourceId: string;
  workspaceId: string;
  /** The reporter's tenant; null when the engine runs without authentication. */
  reporterOrg: string | null;
  reported: Date;
}

export interface PlacementRepository {
  /**
   * Holds the report (replacing an earlier held one for the resource). false = the workspace
   * exists after all (created meanwhile): nothing held, place it the ordinary way.
   * `foreignWorkspace`: the workspace is another tenant's, so it is held as if the workspace did
   * not exist (the reporter learns nothing) and, bound to the reporter's tenant, never placed there.
   */
  hold(placement: { resourceType: string; resourceId: string; workspaceId: string; reporterOrg: string | null; foreignWorkspace?: boolean }): Promise<Written<boolean>>;
  /** DeleteResource of a held report; a known reporter tenant releases only its own (or anonymous) reports. */
  release(resourceType: string, resourceId: string, reporterOrg: string | null): Promise<Written<boolean>>;
  get(resourceType: string, resourceId: string): Promise<PendingPlacement | undefined>;
}
