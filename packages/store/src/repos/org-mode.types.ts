// Organisation mode (v1 or v2).
// Part of the store's public types (types.ts re-exports every one).

import type { AuditEntry } from "./audit-log.types.js";
import type { Written } from "./shared.types.js";

/** v1 (role writes through /api/rbac/v1 allowed) or v2 (activated: v1 role writes refused). */
export type OrgApiVersion = "v1" | "v2";

export interface OrgModeState {
  orgId: string;
  mode: OrgApiVersion;
  v2ActivatedAt: Date | null;
}

export interface OrgModeRepository {
  get(orgId: string): Promise<OrgModeState>;
  /** Puts the organisation in v2 mode (no-op when it is); `changed` says whether this call did. */
  activate(orgId: string, audit?: AuditEntry): Promise<Written<OrgModeState & { changed: boolean }>>;
}
