// Pure mapping from domain rows to the relationship tuples they imply (stored relations carry
// the `t_` prefix; subject relations name permissions, e.g. `rbac/group:<g>#member`).
import { v1RelationName } from "@gatehouse/rbac";
import type { BindingResource, BindingSubject, Relationship } from "./types.js";

const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string, subjectRelation?: string): Relationship =>
  subjectRelation === undefined ? { resourceType, resourceId, relation, subjectType, subjectId } : { resourceType, resourceId, relation, subjectType, subjectId, subjectRelation };

/** `<domain>/<org_id>` */
export const tenantResourceId = (domain: string, orgId: string): string => `${domain}/${orgId}`;
/** `<domain>/<user_id>` */
export const principalResourceId = (domain: string, userId: string): string => `${domain}/${userId}`;

/** Workspace → parent workspace, or root → tenant. */
export function workspaceParent(workspaceId: string, parent: { type: "workspace" | "tenant"; id: string }): Relationship {
  return rel("rbac/workspace", workspaceId, "t_parent", parent.type === "tenant" ? "rbac/tenant" : "rbac/workspace", parent.id);
}

export function tenantPlatform(tenantId: string, platformId: string): Relationship {
  return rel("rbac/tenant", tenantId, "t_platform", "rbac/platform", platformId);
}

/**
 * v1 permission `app:resource:verb` → stored relation `t_<name>`, by the naming rules of
 * @gatehouse/rbac (the one place they live): lower case, `*` → `all`, `-` `.` space → `_`
 * (e.g. `cost-management:*:read` → `t_cost_management_all_read`).
 */
export function permissionRelation(permission: string): string {
  try {
    return `t_${v1RelationName(permission)}`;
  } catch (cause) {
    throw new TypeError(`permission must be app:resource:verb, got '${permission}'`, { cause });
  }
}

export function rolePermission(roleId: string, permission: string): Relationship {
  return rel("rbac/role", roleId, permissionRelation(permission), "rbac/principal", "*");
}

export function roleChild(parentRoleId: string, childRoleId: string): Relationship {
  return rel("rbac/role", parentRoleId, "t_child", "rbac/role", childRoleId);
}

export function owner(resourceType: "rbac/role" | "rbac/group", id: string, tenantId: string): Relationship {
  return rel(resourceType, id, "t_owner", "rbac/tenant", tenantId);
}

export function bindingRole(bindingId: string, roleId: string): Relationship {
  return rel("rbac/role_binding", bindingId, "t_role", "rbac/role", roleId);
}

export function bindingSubject(bindingId: string, subject: BindingSubject, domain: string): Relationship {
  return subject.type === "group"
    ? rel("rbac/role_binding", bindingId, "t_subject", "rbac/group", subject.id, "member")
    : rel("rbac/role_binding", bindingId, "t_subject", "rbac/principal", principalResourceId(domain, subject.id));
}

/** `resource.id` of a tenant resource is the tenant resource id `<domain>/<org_id>`. */
export function resourceBinding(resource: BindingResource, bindingId: string): Relationship {
  return rel(resource.type === "tenant" ? "rbac/tenant" : "rbac/workspace", resource.id, "t_binding", "rbac/role_binding", bindingId);
}

export function groupMember(groupId: string, userId: string, domain: string): Relationship {
  return rel("rbac/group", groupId, "t_member", "rbac/principal", principalResourceId(domain, userId));
}

export function hostWorkspace(hostId: string, workspaceId: string): Relationship {
  return rel("hbi/host", hostId, "t_workspace", "rbac/workspace", workspaceId);
}

/** All tuples of one binding row. */
export function bindingTuples(bindingId: string, roleId: string, resource: BindingResource, subjects: BindingSubject[], domain: string): Relationship[] {
  return [resourceBinding(resource, bindingId), bindingRole(bindingId, roleId), ...subjects.map((s) => bindingSubject(bindingId, s, domain))];
}

/** Stable text key of a tuple (`type:id#rel@type:id#rel`). */
export function tupleKey(r: Relationship): string {
  const subject = `${r.subjectType}:${r.subjectId}${r.subjectRelation ? `#${r.subjectRelation}` : ""}`;
  return `${r.resourceType}:${r.resourceId}#${r.relation}@${subject}`;
}

const typeRe = /^([a-z][a-z0-9_]{1,61}[a-z0-9]\/)*[a-z][a-z0-9_]{1,62}[a-z0-9]$/;
const relationRe = /^[a-z][a-z0-9_]{1,62}[a-z0-9]$/;
const idRe = /^(([a-zA-Z0-9/_|\-=+]{1,1024})|\*)$/;

/** SpiceDB name rules; returns a message for the first violation, or undefined. */
export function relationshipProblem(r: Relationship): string | undefined {
  if (!typeRe.test(r.resourceType)) return `invalid resource type '${r.resourceType}'`;
  if (!idRe.test(r.resourceId) || r.resourceId === "*") return `invalid resource id '${r.resourceId}'`;
  if (!relationRe.test(r.relation)) return `invalid relation '${r.relation}'`;
  if (!typeRe.test(r.subjectType)) return `invalid subject type '${r.subjectType}'`;
  if (!idRe.test(r.subjectId)) return `invalid subject id '${r.subjectId}'`;
  if (r.subjectRelation !== undefined && r.subjectRelation !== "" && !relationRe.test(r.subjectRelation)) {
    return `invalid subject relation '${r.subjectRelation}'`;
  }
  return undefined;
}
