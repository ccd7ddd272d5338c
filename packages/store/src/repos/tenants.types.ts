// Tenants (organisations).
// Part of the store's public types (types.ts re-exports every one).

import type { Written } from "./shared.types.js";

export interface Tenant {
  orgId: string;
  /** `<domain>/<org_id>`: the id of the `rbac/tenant` resource. */
  tenantId: string;
  rootWorkspaceId: string;
  defaultWorkspaceId: string;
  /** Group whose members are all principals of the tenant ("Default access"). */
  platformDefaultGroupId: string;
  /** Group whose members are the org admins of the tenant ("Default admin access"). */
  adminDefaultGroupId: string;
  created: Date;
}

export interface TenantRepository {
  /**
   * Creates the tenant in one transaction: root and default workspaces, the two default groups,
   * and the six default bindings (platform-default and admin-default group × tenant / root /
   * default level, each to the platform parent role of that level). Idempotent, also when called
   * concurrently: an existing tenant is returned unchanged (`created: false`).
   */
  bootstrap(orgId: string): Promise<Written<Tenant> & { created: boolean }>;
  /** `not-found` if the tenant was never bootstrapped. */
  get(orgId: string): Promise<Tenant>;
  /** Like `get` but returns `undefined` for an unknown tenant. */
  find(orgId: string): Promise<Tenant | undefined>;
}
