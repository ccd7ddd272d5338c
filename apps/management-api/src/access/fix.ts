import { grantedPermissions, parseV1Permission, planGrantFix, type BindingLevel, type FixRole, type HeldGrant } from "@gatehouse/rbac";
import type { Role } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { principalUuid } from "../commands/principals.js";
import type { Services } from "../commands/services.js";
import type { PermissionIndex } from "./catalogue.js";

/** Most other group members and reached workspaces a preview names (the rest are counted). */
const PREVIEW_MAX_NAMES = 20;
/** Stands for the id of the role the first step creates, in the later steps' bodies and paths. */
export const CREATED_ROLE = "{created_role_id}";

export interface NamedRef {
  type: string;
  id: string;
  name: string | null;
}

/** One management API call of a fix, exactly as the console sends it (and shows it as curl and CLI). */
export interface FixStep {
  method: "POST" | "PUT";
  path: string;
  body: unknown;
}

export interface ExplainFix {
  /** The permission part this fix grants (a contingent part, or the permission itself). */
  permission: string;
  /** An existing role, or null when `new_role` is created first. */
  role: NamedRef | null;
  new_role: { name: string; description: string; permissions: string[] } | null;
  /** The group the v1 grant came through, or the user itself. */
  subject: NamedRef;
  /** Where the binding goes: the level the application checks. */
  resource: NamedRef;
  preview: {
    /** Concrete permissions the role grants besides the denied one. */
    also_grants: string[];
    /** Other members of the group, who gain the permission too. */
    also_members: string[];
    also_members_total: number;
    /** Workspaces the binding reaches by inheritance besides the one it is on. */
    also_reaches: string[];
    also_reaches_total: number;
  };
  /** The calls that apply it, in order. */
  steps: FixStep[];
  /** Role ids the subject holds directly on the resource before the fix: undo puts them back. */
  undo_roles: string[];
}

export interface FixTarget {
  /** Where to bind: the tenant, or a workspace with its level (null for a standard workspace). */
  resource: NamedRef;
  level: BindingLevel;
}

export interface FixSubject {
  named: NamedRef;
  /** The user's id for a user, null for a group. */
  userId: string | null;
  groups: Set<string>;
}

function toFixRole(role: Role): FixRole {
  return { id: role.id, name: role.displayName ?? role.name, permissions: role.permissions, scope: role.scope };
}

/** `app:resource:verb` → the v2 role body's permission object. */
function permissionObject(permission: string): { application: string; resource_type: string; operation: string } {
  const p = parseV1Permission(permission);
  return { application: p.app, resource_type: p.resource, operation: p.verb };
}

const bounded = (names: string[]) => ({ names: names.slice(0, PREVIEW_MAX_NAMES), total: names.length });

/**
 * The narrowest fix for each missing permission part of a denial, with the preview of what else it
 * grants and the management API calls that apply it. The choice of role and subject is
 * @gatehouse/rbac's planGrantFix; this reads what it needs from the store and shapes the calls.
 */
export async function planFixes(services: Services, index: PermissionIndex, ctx: RequestContext, subject: FixSubject, target: FixTarget, parts: string[]): Promise<ExplainFix[]> {
  const org = ctx.tenant.orgId;
  const { store, catalogue } = services;
  const roles = (await store.roles.list(org, { kinds: ["custom", "seeded"], limit: -1 })).data;
  const roleById = new Map(roles.map((r) => [r.id, r]));
  // The subject's grants: bindings naming the user or one of its groups, wherever they are.
  const bindings = subject.userId
    ? (await store.roleBindings.list(org, { grantedToPrincipal: subject.userId, limit: -1 })).data
    : (await store.roleBindings.list(org, { subject: { type: "group", id: subject.named.id }, limit: -1 })).data;
  const held = bindings.flatMap((b) =>
    b.subjects.flatMap((s): HeldGrant[] =>
      s.type === "group" && subject.groups.has(s.id) ? [{ groupId: s.id, roleId: b.roleId }] : s.type === "principal" && s.id === subject.userId ? [{ groupId: null, roleId: b.roleId }] : [],
    ),
  );
  const concrete = index.catalog.permissions();
  const levelOf = (permission: string): BindingLevel | null => (catalogue.has(permission) ? catalogue.scopeOf(permission) : null);

  const fixes: ExplainFix[] = [];
  for (const part of parts) {
    const plan = planGrantFix({ needed: index.v1For(part), level: target.level, roles: roles.map(toFixRole), held, catalogue: concrete, levelOf });
    if (!plan) continue;
    const group = plan.groupId ? await store.groups.get(org, plan.groupId).catch(() => undefined) : undefined;
    const bindTo: NamedRef = group ? { type: "group", id: group.id, name: group.name } : subject.named;
    const bindingSubject = bindTo.type === "group" ? { type: "group" as const, id: bindTo.id } : { type: "principal" as const, id: subject.userId ?? bindTo.id };
    const resource = { type: target.resource.type === "tenant" ? ("tenant" as const) : ("workspace" as const), id: target.resource.id };
    const undoRoles = await store.roleBindings.rolesOfSubject(org, resource, bindingSubject);
    const members = group ? (await store.groups.members(org, group.id)).filter((m) => m !== subject.userId) : [];
    const reaches = await reachedWorkspaces(services, ctx, target);

    const existing = plan.role.kind === "existing" ? plan.role.role : null;
    const newRole =
      plan.role.kind === "new"
        ? {
            name: plan.role.name,
            description: `Grants ${plan.role.permissions.join(", ")} where the application checks it (${target.resource.name ?? target.resource.id}).`,
            permissions: [...plan.role.permissions],
          }
        : null;
    const roleId = existing?.id ?? CREATED_ROLE;
    const steps: FixStep[] = [];
    if (newRole) steps.push({ method: "POST", path: "/api/rbac/v2/roles/", body: { name: newRole.name, description: newRole.description, permissions: newRole.permissions.map(permissionObject) } });
    steps.push({
      method: "POST",
      path: "/api/rbac/v2/role-bindings:batchCreate/",
      body: {
        requests: [
          {
            resource,
            subject: bindTo.type === "group" ? { type: "group", id: bindTo.id } : { type: "user", id: principalUuid(org, subject.userId ?? bindTo.id) },
            role: { id: roleId },
          },
        ],
      },
    });
    const alsoGrants = existing ? grantedPermissions(roleById.get(existing.id)?.permissions ?? existing.permissions, concrete).filter((p) => !index.v1For(part).includes(p)) : [];
    const m = bounded(members);
    const r = bounded(reaches);
    fixes.push({
      permission: part,
      role: existing ? { type: "role", id: existing.id, name: existing.name } : null,
      new_role: newRole,
      subject: bindTo,
      resource: target.resource,
      preview: { also_grants: alsoGrants, also_members: m.names, also_members_total: m.total, also_reaches: r.names, also_reaches_total: r.total },
      steps,
      undo_roles: undoRoles,
    });
  }
  return fixes;
}

/** Names of the workspaces below the binding's resource (the tenant reaches every workspace). */
async function reachedWorkspaces(services: Services, ctx: RequestContext, target: FixTarget): Promise<string[]> {
  const all = (await services.store.workspaces.list(ctx.tenant.orgId, { limit: -1 })).data;
  if (target.resource.type === "tenant") return all.map((w) => w.name);
  const children = new Map<string, string[]>();
  for (const w of all) if (w.parentId) children.set(w.parentId, [...(children.get(w.parentId) ?? []), w.id]);
  const byId = new Map(all.map((w) => [w.id, w.name]));
  const out: string[] = [];
  const stack = [...(children.get(target.resource.id) ?? [])];
  while (stack.length > 0) {
    const id = stack.shift()!;
    out.push(byId.get(id) ?? id);
    stack.push(...(children.get(id) ?? []));
  }
  return out;
}
