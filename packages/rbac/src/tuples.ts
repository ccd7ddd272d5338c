import { v1RelationName } from "./permissions.js";

/**
 * A relationship, structurally identical to `Relationship` of @gatehouse/evaluator
 * (stored relations carry the `t_` prefix).
 */
export interface RelationshipTuple {
  readonly resourceType: string;
  readonly resourceId: string;
  readonly relation: string;
  readonly subjectType: string;
  readonly subjectId: string;
  readonly subjectRelation?: string;
}

/** Object ids of one tenant's fixed resources. */
export interface TenantIds {
  readonly orgId: string;
  /** `<domain>/<org_id>` */
  readonly tenantId: string;
  readonly rootWorkspaceId: string;
  readonly defaultWorkspaceId: string;
}

export const TYPES = {
  tenant: "rbac/tenant",
  workspace: "rbac/workspace",
  role: "rbac/role",
  roleBinding: "rbac/role_binding",
  group: "rbac/group",
  principal: "rbac/principal",
  platform: "rbac/platform",
} as const;

export function tenantResourceId(domain: string, orgId: string): string {
  return `${domain}/${orgId}`;
}

export function principalId(domain: string, userId: string): string {
  return `${domain}/${userId}`;
}

const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string, subjectRelation?: string): RelationshipTuple => ({
  resourceType,
  resourceId,
  relation,
  subjectType,
  subjectId,
  ...(subjectRelation ? { subjectRelation } : {}),
});

/** `rbac/role:<role>#t_<app>_<res>_<verb>@rbac/principal:*` for a held v1 permission. */
export function rolePermissionTuple(roleId: string, heldPermission: string): RelationshipTuple {
  return rel(TYPES.role, roleId, `t_${v1RelationName(heldPermission)}`, TYPES.principal, "*");
}

export function roleChildTuple(parentRoleId: string, childRoleId: string): RelationshipTuple {
  return rel(TYPES.role, parentRoleId, "t_child", TYPES.role, childRoleId);
}

export function groupMemberTuple(groupId: string, domain: string, userId: string): RelationshipTuple {
  return rel(TYPES.group, groupId, "t_member", TYPES.principal, principalId(domain, userId));
}

/** The three tuples of a binding of `roleId` to the members of `groupId` at `resource`. */
export function bindingTuples(resource: { readonly type: string; readonly id: string }, bindingId: string, roleId: string, groupId: string): RelationshipTuple[] {
  return [
    rel(resource.type, resource.id, "t_binding", TYPES.roleBinding, bindingId),
    rel(TYPES.roleBinding, bindingId, "t_role", TYPES.role, roleId),
    rel(TYPES.roleBinding, bindingId, "t_subject", TYPES.group, groupId, "member"),
  ];
}

/**
 * The workspace tree of a tenant as the specification's hierarchy states it (tenant above the
 * Root Workspace above the Default Workspace; grants inherit downward). Used to evaluate a plan
 * without a store; a store bootstraps its own tenants.
 */
export function tenantTreeTuples(ids: TenantIds, platformId = "stage"): RelationshipTuple[] {
  return [
    rel(TYPES.workspace, ids.defaultWorkspaceId, "t_parent", TYPES.workspace, ids.rootWorkspaceId),
    rel(TYPES.workspace, ids.rootWorkspaceId, "t_parent", TYPES.tenant, ids.tenantId),
    rel(TYPES.workspace, ids.rootWorkspaceId, "t_tenant", TYPES.tenant, ids.tenantId),
    rel(TYPES.tenant, ids.tenantId, "t_platform", TYPES.platform, platformId),
  ];
}

export function tupleKey(t: RelationshipTuple): string {
  return `${t.resourceType}:${t.resourceId}#${t.relation}@${t.subjectType}:${t.subjectId}${t.subjectRelation ? `#${t.subjectRelation}` : ""}`;
}
