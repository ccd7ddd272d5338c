// Runs a configuration impact on the evaluator: one graph per side (its schema, its
// relationships), the members the change can reach (schema and relationship differences), and
// computeConfigImpact over them. Also what a store's relationships become when a configuration's
// seeded roles are seeded (insights-rbac's rule: a role is rewritten only on a higher version).
import { check, RelationshipGraph, type Model, type Relationship, type SchemaAst } from "@gatehouse/evaluator";
import type { AssetTypeCatalog } from "./asset-types.js";
import { computeConfigImpact, diffSeededRoles, evaluatedChecks, v1PermissionsAffectedBy, type ConfigImpact, type ImpactTenant, type SeededRole } from "./config-impact.js";
import type { BindingLevel } from "./levels.js";
import { affectedMembers, changedRelationsOf, memberKey, readClosure } from "./schema-dependencies.js";
import { roleChildTuple, rolePermissionTuple, TYPES, tupleKey, type RelationshipTuple, type TenantIds } from "./tuples.js";
import { v1RolesOf, type V1Export, type V1Role, type V1Tenant } from "./v1-export.js";
import { isInventoryWorkspaceFilter, type V1AccessInput } from "./v1-placement.js";

/** One side of a change: the configuration's schema and the relationships in force under it. */
export interface ImpactRunSide {
  readonly model: Model;
  readonly schemaAst: SchemaAst;
  readonly relationships: readonly RelationshipTuple[];
  readonly seededRoles: readonly SeededRole[];
}

export interface ImpactRunInput {
  readonly before: ImpactRunSide;
  readonly after: ImpactRunSide;
  readonly tenants: readonly ImpactTenant[];
  readonly catalog: AssetTypeCatalog;
  readonly domain: string;
  readonly examples?: number;
  readonly onTenant?: (done: number, total: number) => void;
}

export interface ImpactRun {
  readonly impact: ConfigImpact;
  /** Relationships a side's schema refused (e.g. a role permission it no longer defines), per side. */
  readonly rejected: { readonly before: number; readonly after: number };
}

function graphOf(side: ImpactRunSide, needed: ReadonlySet<string>): { graph: RelationshipGraph; rejected: number } {
  const graph = new RelationshipGraph(side.model);
  let rejected = 0;
  // One bulk load: every index built once at the end, not maintained per relationship.
  graph.startBulk();
  for (const t of side.relationships) {
    if (!needed.has(memberKey(t.resourceType, t.relation))) continue;
    try {
      graph.add(t as Relationship);
    } catch {
      rejected++;
    }
  }
  graph.compact();
  return { graph, rejected };
}

/** The impact of going from `before` to `after`, evaluating only what the change can reach. */
export function evaluateConfigImpact(input: ImpactRunInput): ImpactRun {
  const { before, after } = input;
  const changed = affectedMembers(before.schemaAst, after.schemaAst, changedRelationsOf(before.relationships, after.relationships, tupleKey));
  const seededRoles = diffSeededRoles(before.seededRoles, after.seededRoles);
  const affected = (type: string, p: string) => changed.has(memberKey(type, p));
  const v1Affected = v1PermissionsAffectedBy(seededRoles, before.seededRoles, after.seededRoles);
  // Each graph holds only the relationships the evaluated permissions read.
  const definedIn = (model: Model) => (type: string, p: string) => model.isPermission(type, p) || model.isRelation(type, p);
  const { evaluated } = evaluatedChecks({ catalog: input.catalog, before: { isDefined: definedIn(before.model) }, after: { isDefined: definedIn(after.model) }, affected, v1Affected });
  const needed = readClosure(
    [before.schemaAst, after.schemaAst],
    evaluated.map((c) => memberKey(c.objectType, c.v2Permission)),
  );
  const a = graphOf(before, needed);
  const b = graphOf(after, needed);
  const sideOf = (graph: RelationshipGraph) => ({
    check: (r: { type: string; id: string }, p: string, s: { type: string; id: string }) => check(graph, r, p, s),
    isDefined: (type: string, p: string) => graph.model.isPermission(type, p) || graph.model.isRelation(type, p),
  });
  const impact = computeConfigImpact({
    catalog: input.catalog,
    domain: input.domain,
    tenants: input.tenants,
    before: sideOf(a.graph),
    after: sideOf(b.graph),
    affected,
    v1Affected,
    seededRoles,
    ...(input.examples !== undefined ? { examples: input.examples } : {}),
    ...(input.onTenant ? { onTenant: input.onTenant } : {}),
  });
  return { impact, rejected: { before: a.rejected, after: b.rejected } };
}

/** A seeded role as a store holds it (id) and as a configuration defines it (level, flags). */
export interface SeededRoleRecord extends SeededRole {
  readonly scope: BindingLevel;
}

/** A public parent role: its children are the seeded roles of its audience's flag and its level. */
export interface PlatformParentRole {
  readonly id: string;
  readonly audience: "user" | "admin";
  readonly scope: BindingLevel;
}

export interface ReseedInput {
  /** Seeded roles the store holds: lower-case name → role id. */
  readonly storedIds: ReadonlyMap<string, string>;
  /** The configuration the store was seeded from, and the one to seed. */
  readonly before: readonly SeededRoleRecord[];
  readonly after: readonly SeededRoleRecord[];
  readonly parents: readonly PlatformParentRole[];
  /** Id for a role the store does not hold yet. */
  readonly newRoleId: (name: string) => string;
}

/**
 * The seeded roles a store holds once `after` is seeded over `before` (insights-rbac's rule: a role
 * the store does not hold is created, one with a higher version rewritten, every other kept as
 * stored), by lower-case name: `effective` every role in force, `rewritten` those seeding writes.
 */
export function reseededRoles(
  stored: { has(lowerCaseName: string): boolean },
  before: readonly SeededRoleRecord[],
  after: readonly SeededRoleRecord[],
): { effective: Map<string, SeededRoleRecord>; rewritten: Map<string, SeededRoleRecord> } {
  const previous = new Map(before.map((r) => [r.name.toLowerCase(), r]));
  const effective = new Map(previous);
  const rewritten = new Map<string, SeededRoleRecord>();
  for (const r of after) {
    const key = r.name.toLowerCase();
    const old = previous.get(key);
    if (old && stored.has(key) && (old.version ?? 1) >= (r.version ?? 1)) continue;
    effective.set(key, r);
    rewritten.set(key, r);
  }
  return { effective, rewritten };
}

/**
 * The relationships after seeding `after` over a store seeded from `before` (reseededRoles): a new
 * role is created, a role with a higher version rewritten, every other role kept as stored; the
 * parent roles' children follow the flags and levels of the seeded roles.
 */
export function reseedRelationships(relationships: readonly RelationshipTuple[], input: ReseedInput): RelationshipTuple[] {
  const { effective, rewritten: byName } = reseededRoles(input.storedIds, input.before, input.after);
  const idOf = (key: string, name: string) => input.storedIds.get(key) ?? input.newRoleId(name);
  const rewritten = new Map([...byName].map(([key, r]) => [idOf(key, r.name), r]));
  const parents = new Set(input.parents.map((p) => p.id));
  // Children this configuration decides; a stored role it does not name keeps its place.
  const decided = new Set([...effective].map(([key, r]) => idOf(key, r.name)));
  const kept = relationships.filter((t) => {
    if (t.resourceType !== TYPES.role) return true;
    if (parents.has(t.resourceId) && t.relation === "t_child") return !decided.has(t.subjectId);
    return !(rewritten.has(t.resourceId) && t.subjectType === TYPES.principal && t.subjectId === "*");
  });
  for (const [id, r] of rewritten) for (const p of new Set(r.permissions)) kept.push(rolePermissionTuple(id, p));
  for (const parent of input.parents) {
    for (const [key, r] of effective) {
      const flagged = parent.audience === "user" ? r.platform_default : r.admin_default;
      if (flagged && r.scope === parent.scope) kept.push(roleChildTuple(parent.id, idOf(key, r.name)));
    }
  }
  return kept;
}

/** A seeded role as a v1 export lists it (a system role with its flags and access). */
export function seededV1Role(r: SeededRole, uuid?: string): V1Role {
  return {
    ...(uuid ? { uuid } : {}),
    name: r.name,
    system: true,
    platform_default: r.platform_default === true,
    admin_default: r.admin_default === true,
    access: r.permissions.map((permission) => ({ permission })),
  };
}

/**
 * A store's v1 export (its seeded roles as stored, from `before`) as it reads once `after` is
 * seeded: each rewritten seeded role with its new access and flags, new ones added (reseededRoles).
 */
export function reseededV1Export(exp: V1Export, before: readonly SeededRoleRecord[], after: readonly SeededRoleRecord[]): V1Export {
  const stored = new Map(exp.system_roles.map((r) => [r.name.toLowerCase(), r]));
  const { rewritten } = reseededRoles(stored, before, after);
  const system_roles = exp.system_roles.map((r) => {
    const next = rewritten.get(r.name.toLowerCase());
    return next ? seededV1Role(next, r.uuid) : r;
  });
  for (const [key, r] of rewritten) if (!stored.has(key)) system_roles.push(seededV1Role(r));
  return { ...exp, system_roles };
}

/**
 * The v1 permissions each principal of `tenant` holds (user id → permissions): its roles through
 * groups and default access, organisation-wide entries only (inventory group.id entries are bound
 * on workspaces). Parity of a v1 grant is judged against these.
 */
export function heldV1Permissions(exp: V1Export, tenant: V1Tenant): Map<string, Set<string>> {
  const held = new Map<string, Set<string>>();
  for (const p of tenant.principals) {
    const access = v1RolesOf(exp, tenant, p).flatMap((s) => s.role.access.filter((a) => !isInventoryWorkspaceFilter(a as V1AccessInput)));
    held.set(p.user_id, new Set(access.map((a) => a.permission)));
  }
  return held;
}

/** Who to evaluate in one organisation, from relationships alone (a store without a v1 export). */
export interface TenantSubjects {
  /** User ids of the principals of the organisation's groups and direct binding subjects. */
  readonly userIds: string[];
  /** user id → workspaces (not the Root or Default Workspace) where its bindings are made. */
  readonly workspaceIds: Map<string, string[]>;
}

/**
 * The principals of each organisation (members of the groups it owns, subjects of its bindings)
 * and the workspaces below its Default Workspace where each one's bindings are made.
 */
export function subjectsOfTenants(relationships: Iterable<RelationshipTuple>, tenants: readonly TenantIds[], domain: string): Map<string, TenantSubjects> {
  const orgOfTenant = new Map(tenants.map((t) => [t.tenantId, t.orgId]));
  const levelObjects = new Set(tenants.flatMap((t) => [t.rootWorkspaceId, t.defaultWorkspaceId]));
  const groupOrg = new Map<string, string>();
  const members = new Map<string, string[]>();
  const bindingWorkspace = new Map<string, string>();
  const bindingSubjects: { binding: string; type: string; id: string }[] = [];
  for (const t of relationships) {
    if (t.resourceType === TYPES.group && t.relation === "t_owner") {
      const org = orgOfTenant.get(t.subjectId);
      if (org) groupOrg.set(t.resourceId, org);
    } else if (t.resourceType === TYPES.group && t.relation === "t_member" && t.subjectType === TYPES.principal && t.subjectId !== "*") {
      members.set(t.resourceId, [...(members.get(t.resourceId) ?? []), t.subjectId]);
    } else if (t.resourceType === TYPES.workspace && t.relation === "t_binding" && !levelObjects.has(t.resourceId)) {
      bindingWorkspace.set(t.subjectId, t.resourceId);
    } else if (t.resourceType === TYPES.roleBinding && t.relation === "t_subject") {
      bindingSubjects.push({ binding: t.resourceId, type: t.subjectType, id: t.subjectId });
    }
  }
  const prefix = `${domain}/`;
  const userOf = (principal: string) => (principal.startsWith(prefix) ? principal.slice(prefix.length) : principal);
  const out = new Map<string, TenantSubjects>();
  const subjectsOf = (org: string) => {
    let s = out.get(org);
    if (!s) out.set(org, (s = { userIds: [], workspaceIds: new Map() }));
    return s;
  };
  for (const t of tenants) subjectsOf(t.orgId);
  const seen = new Set<string>();
  for (const [group, principals] of members) {
    const org = groupOrg.get(group);
    if (!org) continue;
    for (const p of principals) {
      if (seen.has(`${org} ${p}`)) continue;
      seen.add(`${org} ${p}`);
      subjectsOf(org).userIds.push(userOf(p));
    }
  }
  const orgOfUser = new Map<string, string>();
  for (const [org, s] of out) for (const u of s.userIds) orgOfUser.set(u, org);
  for (const b of bindingSubjects) {
    const ws = bindingWorkspace.get(b.binding);
    if (!ws) continue;
    const users = b.type === TYPES.group ? (members.get(b.id) ?? []).map(userOf) : b.type === TYPES.principal ? [userOf(b.id)] : [];
    for (const u of users) {
      const org = orgOfUser.get(u);
      if (!org) continue;
      const list = subjectsOf(org).workspaceIds;
      const ids = list.get(u) ?? [];
      if (!ids.includes(ws)) ids.push(ws);
      list.set(u, ids);
    }
  }
  return out;
}
