// What the generator leaves behind for the scenarios: server-assigned ids (workspaces, groups,
// roles) that the seed alone cannot predict. Written as JSON next to the generator's state.

export interface Manifest {
  version: 1;
  scaleName: string;
  seed: number;
  org: string;
  domain: string;
  tenantId: string;
  rootWorkspaceId: string;
  defaultWorkspaceId: string;
  /** Standard workspaces in plan order (index = PlannedWorkspace.index). */
  workspaceIds: string[];
  /** Standard groups in plan order. */
  groupIds: string[];
  levelGroupIds: { tenant: string; root: string; default: string };
  roleIds: { contingent: string; hostsOnly: string; tenant: string; root: string };
  /** Principal indexes whose requests the scenarios measure. */
  measured: number[];
  /** Hosts reported to the engine and inserted into the application table. */
  hostsLoaded: number;
}

export function validateManifest(value: unknown): Manifest {
  const m = value as Manifest;
  if (m?.version !== 1 || !Array.isArray(m.workspaceIds) || !Array.isArray(m.measured) || typeof m.hostsLoaded !== "number") {
    throw new Error("Invalid or incomplete manifest: run the generator first (pnpm --filter @gatehouse/loadtest generate-data)");
  }
  return m;
}
