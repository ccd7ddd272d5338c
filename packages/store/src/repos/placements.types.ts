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
   * Holds the report (replacing an earlier held one of the same reporter tenant for the resource;
   * another tenant's held report of the same id is held apart and never touched). false = the workspace
   * exists after all (created meanwhile): nothing held, place it the ordinary way.
   * `foreignWorkspace`: the workspace is another tenant's, so it is held as if the workspace did
   * not exist (the reporter learns nothing) and, bound to the reporter's tenant, never placed there.
   */
  hold(placement: { resourceType: string; resourceId: string; workspaceId: string; reporterOrg: string | null; foreignWorkspace?: boolean }): Promise<Written<boolean>>;
  /** DeleteResource of a held report; a known reporter tenant releases only its own (or anonymous) reports. */
  release(resourceType: string, resourceId: string, reporterOrg: string | null): Promise<Written<boolean>>;
  /** The held report of the resource by `reporterOrg` (null: an anonymous one); without it, the latest by anyone. */
  get(resourceType: string, resourceId: string, reporterOrg?: string | null): Promise<PendingPlacement | undefined>;
}
