import type { Tenant } from "@gatehouse/store";

/** Who is calling, whichever way they authenticated. */
export interface Caller {
  orgId: string;
  /** External user id; the relation-graph principal is `<domain>/<userId>`. */
  userId: string;
  username: string;
  isOrgAdmin: boolean;
  isServiceAccount: boolean;
  /** The identity's `user.email`, when it carries one (recorded on the principal). */
  email?: string | null;
  /** A Red Hat associate (`user.is_internal`): may ask organisations for cross-account access. */
  isInternal?: boolean;
  /**
   * An associate acting in `orgId` through its approved cross-account requests
   * (`identity.internal.cross_access`): holds only what those grant, never recorded as a principal.
   */
  crossAccess?: boolean;
  firstName?: string | null;
  lastName?: string | null;
  /** Authenticated by a bearer token of a configured system user. */
  isSystemUser: boolean;
}

export interface RequestContext {
  caller: Caller;
  tenant: Tenant;
  /** `<domain>/<userId>`, the id of the caller's `rbac/principal`. */
  principalId: string;
  /** Revision the authorization graph must reach before deciding for this request. */
  minRevision: number;
}
