// The impact of a role-configuration change at the load test's 100k-host scale plus 10,000 small
// organisations, as a store holds them (tenant trees, default groups bound to the platform parent
// roles at the three levels, seeded roles, groups bound on workspaces, hosts in workspaces):
//   - incremental: the change (a seeded role losing its write permissions, version raised) re-evaluates only
//     the permissions it can reach;
//   - full: every catalogued permission evaluated before and after (what a change reaching every
//     permission, e.g. of the role or binding definitions, costs).
// Each principal carries its v1 permissions on both sides (default access, admin default access,
// its groups' roles; the seeded roles reseeded by the version rule), as a store's impact does, so
// v1 parity flips are evaluated too.
// Each: wall time of building both graphs and evaluating, the checks made, what was found.
// Usage: pnpm --filter @gatehouse/gatehouse bench:config-impact
//   (BENCH_ORGS small organisations, default 10000; BENCH_HOSTS, default 100000; BENCH_PRINCIPALS
//   of the large organisation, default 10000; BENCH_WORKSPACES, default 2000; BENCH_GROUPS, default 100;
//   BENCH_PARITY=0 leaves the principals' v1 permissions out: no parity evaluated)
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoleConfiguration, seededRolesOf, type RoleConfiguration } from "@gatehouse/management-api";
import {
  bindingTuples,
  computeConfigImpact,
  defaultAssetTypes,
  deterministicId,
  evaluateConfigImpact,
  groupMemberTuple,
  reseededRoles,
  reseedRelationships,
  roleChildTuple,
  rolePermissionTuple,
  subjectsOfTenants,
  tenantResourceId,
  tenantTreeTuples,
  type ImpactTenant,
  type RelationshipTuple,
  type TenantIds,
} from "@gatehouse/rbac";
import { check, configureCheckCache, RelationshipGraph, type Relationship } from "@gatehouse/evaluator";
import { environmentDir } from "@gatehouse/role-config";
import { PLATFORM_ROLES } from "@gatehouse/store";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ORGS = env("BENCH_ORGS", 10_000);
const HOSTS = env("BENCH_HOSTS", 100_000);
const PRINCIPALS = env("BENCH_PRINCIPALS", 10_000);
const WORKSPACES = env("BENCH_WORKSPACES", 2_000);
const GROUPS = env("BENCH_GROUPS", 100);
const PARITY = env("BENCH_PARITY", 1) !== 0;
const DOMAIN = "redhat";

// Deterministic pseudo-random numbers (the same data every run).
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

/** The configuration: Gatehouse's stage files; the change: "Patch administrator" keeps only reading. */
const from = await loadRoleConfiguration("stage");
const changedDir = mkdtempSync(join(tmpdir(), "bench-impact-"));
cpSync(environmentDir("stage"), changedDir, { recursive: true });
const rolesFile = join(changedDir, "roles/patch.json");
const roles = JSON.parse(readFileSync(rolesFile, "utf8"));
const patchAdmin = roles.roles.find((r: { name: string }) => r.name === "Patch administrator");
patchAdmin.access = [{ permission: "patch:*:read" }];
patchAdmin.version += 1;
writeFileSync(rolesFile, JSON.stringify(roles));
const to = await loadRoleConfiguration("stage", changedDir);
rmSync(changedDir, { recursive: true, force: true });

const started = performance.now();
const tuples: RelationshipTuple[] = [];
const seededId = (name: string) => deterministicId("seeded", name.toLowerCase());
const seeded = seededRolesOf(from);
for (const r of seeded) for (const p of new Set(r.permissions)) tuples.push(rolePermissionTuple(seededId(r.name), p));
for (const parent of PLATFORM_ROLES) {
  for (const r of seeded) if ((parent.audience === "user" ? r.platform_default : r.admin_default) && r.scope === parent.scope) tuples.push(roleChildTuple(parent.id, seededId(r.name)));
}
const bindable = seeded.filter((r) => !r.platform_default && !r.admin_default && r.scope === "default").map((r) => seededId(r.name));
const nameOfId = new Map(seeded.map((r) => [seededId(r.name), r.name.toLowerCase()]));
/** The seeded roles (lower-case names) each principal holds in v1: default access, admin default access, its groups' roles. */
const heldRoles = new Map<string, Set<string>>();
const holds = (orgId: string, user: string, roleId: string) => {
  const key = `${orgId} ${user}`;
  const set = heldRoles.get(key) ?? new Set<string>();
  set.add(nameOfId.get(roleId)!);
  heldRoles.set(key, set);
};
const owner = (group: string, tenantId: string): RelationshipTuple => ({ resourceType: "rbac/group", resourceId: group, relation: "t_owner", subjectType: "rbac/tenant", subjectId: tenantId });

/** One organisation as a store bootstraps it, with `users` members of its default group. */
function organisation(orgId: string, users: string[]): TenantIds {
  const ids = { orgId, tenantId: tenantResourceId(DOMAIN, orgId), rootWorkspaceId: deterministicId("root", orgId), defaultWorkspaceId: deterministicId("default", orgId) };
  tuples.push(...tenantTreeTuples(ids));
  const everyone = deterministicId("users", orgId);
  const admins = deterministicId("admins", orgId);
  tuples.push(owner(everyone, ids.tenantId), owner(admins, ids.tenantId));
  for (const u of users) tuples.push(groupMemberTuple(everyone, DOMAIN, u));
  tuples.push(groupMemberTuple(admins, DOMAIN, users[0]!));
  for (const r of seeded) {
    if (r.platform_default) for (const u of users) holds(orgId, u, seededId(r.name));
    if (r.admin_default) holds(orgId, users[0]!, seededId(r.name));
  }
  for (const parent of PLATFORM_ROLES) {
    const at = parent.scope === "tenant" ? { type: "rbac/tenant", id: ids.tenantId } : { type: "rbac/workspace", id: parent.scope === "root" ? ids.rootWorkspaceId : ids.defaultWorkspaceId };
    tuples.push(...bindingTuples(at, deterministicId("default-binding", orgId, parent.id), parent.id, parent.audience === "user" ? everyone : admins));
  }
  return ids;
}

const tenants: TenantIds[] = [];
// The load test's large organisation: workspaces under the Default Workspace, groups bound on them, hosts in them.
const bigUsers = Array.from({ length: PRINCIPALS }, (_, i) => `u${i}`);
const big = organisation("big", bigUsers);
tenants.push(big);
const workspaces: string[] = [];
for (let i = 0; i < WORKSPACES; i++) {
  const id = deterministicId("ws", String(i));
  const parent = i < 20 ? big.defaultWorkspaceId : pick(workspaces.slice(0, Math.max(20, Math.floor(i / 2))));
  tuples.push({ resourceType: "rbac/workspace", resourceId: id, relation: "t_parent", subjectType: "rbac/workspace", subjectId: parent });
  workspaces.push(id);
}
for (let g = 0; g < GROUPS; g++) {
  const group = deterministicId("group", String(g));
  tuples.push(owner(group, big.tenantId));
  for (let m = g; m < PRINCIPALS; m += GROUPS) tuples.push(groupMemberTuple(group, DOMAIN, bigUsers[m]!));
  for (let b = 0; b < 3; b++) {
    const at = { type: "rbac/workspace", id: pick(workspaces) };
    const role = pick(bindable);
    tuples.push(...bindingTuples(at, deterministicId("binding", String(g), String(b)), role, group));
    for (let m = g; m < PRINCIPALS; m += GROUPS) holds("big", bigUsers[m]!, role);
  }
}
for (let h = 0; h < HOSTS; h++) tuples.push({ resourceType: "hbi/host", resourceId: `host-${h}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: pick(workspaces) });
// Many small organisations: five users each, one group bound to a seeded role at the Default Workspace.
for (let o = 0; o < ORGS; o++) {
  const orgId = `org-${o}`;
  const users = Array.from({ length: 5 }, (_, i) => `${orgId}-u${i}`);
  const ids = organisation(orgId, users);
  const group = deterministicId("group", orgId);
  tuples.push(owner(group, ids.tenantId), groupMemberTuple(group, DOMAIN, users[1]!));
  const role = pick(bindable);
  tuples.push(...bindingTuples({ type: "rbac/workspace", id: ids.defaultWorkspaceId }, deterministicId("binding", orgId), role, group));
  holds(orgId, users[1]!, role);
  tenants.push(ids);
}
const after = reseedRelationships(tuples, {
  storedIds: new Map(seeded.map((r) => [r.name.toLowerCase(), seededId(r.name)])),
  before: seeded,
  after: seededRolesOf(to),
  parents: PLATFORM_ROLES.map((p) => ({ id: p.id, audience: p.audience, scope: p.scope })),
  newRoleId: seededId,
});
const subjects = subjectsOfTenants(tuples, tenants, DOMAIN);
const { effective } = reseededRoles(new Set(seeded.map((r) => r.name.toLowerCase())), seeded, seededRolesOf(to));
const before = new Map(seeded.map((r) => [r.name.toLowerCase(), r]));
// Principals holding the same roles share one set of permissions per side.
const heldCache = new Map<string, { heldBefore: Set<string>; heldAfter: Set<string> }>();
const heldOf = (orgId: string, user: string) => {
  const names = [...(heldRoles.get(`${orgId} ${user}`) ?? [])].sort();
  const key = names.join("|");
  let held = heldCache.get(key);
  if (!held) {
    const permissions = (roles: Map<string, { permissions: readonly string[] }>) => new Set(names.flatMap((n) => roles.get(n)?.permissions ?? []));
    heldCache.set(key, (held = { heldBefore: permissions(before), heldAfter: permissions(effective) }));
  }
  return held;
};
const impactTenants: ImpactTenant[] = tenants.map((t) => ({
  orgId: t.orgId,
  ids: t,
  principals: (subjects.get(t.orgId)?.userIds ?? []).map((u) => {
    const workspaceIds = subjects.get(t.orgId)?.workspaceIds.get(u);
    return { userId: u, ...(PARITY ? heldOf(t.orgId, u) : {}), ...(workspaceIds ? { workspaceIds } : {}) };
  }),
}));
const principals = impactTenants.reduce((n, t) => n + t.principals.length, 0);
console.log(
  `data: ${tenants.length} organisations, ${principals} principals, ${HOSTS} hosts, ${WORKSPACES} workspaces, ${tuples.length} relationships (built in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
);

const side = (config: RoleConfiguration, relationships: RelationshipTuple[]) => ({ model: config.model, schemaAst: config.schemaAst, relationships, seededRoles: seededRolesOf(config) });
const catalog = defaultAssetTypes();
const report = (label: string, seconds: number, impact: ReturnType<typeof computeConfigImpact>) =>
  console.log(
    `${label}: ${seconds.toFixed(1)} s, ${impact.summary.permissionsEvaluated} of ${impact.summary.permissions} permissions, ${impact.summary.checks} checks; lost ${impact.summary.lost}, gained ${impact.summary.gained}, parity broken ${impact.summary.parityBroken}, restored ${impact.summary.parityRestored}`,
  );

if (process.env["BENCH_CHECK_CACHE_BYTES"] !== undefined) configureCheckCache({ maxBytes: Number(process.env["BENCH_CHECK_CACHE_BYTES"]) });
let t0 = performance.now();
const incremental = evaluateConfigImpact({ before: side(from, tuples), after: side(to, after), tenants: impactTenants, catalog, domain: DOMAIN });
report("incremental (graphs built, changed permissions only)", (performance.now() - t0) / 1000, incremental.impact);

t0 = performance.now();
const graphOf = (config: RoleConfiguration, relationships: RelationshipTuple[]) => {
  const graph = new RelationshipGraph(config.model);
  graph.startBulk();
  for (const t of relationships) graph.add(t as Relationship);
  graph.compact();
  return {
    check: (r: { type: string; id: string }, p: string, s: { type: string; id: string }) => check(graph, r, p, s),
    isDefined: (type: string, p: string) => graph.model.isPermission(type, p) || graph.model.isRelation(type, p),
  };
};
const sides = { before: graphOf(from, tuples), after: graphOf(to, after) };
const built = (performance.now() - t0) / 1000;
const full = computeConfigImpact({ catalog, domain: DOMAIN, tenants: impactTenants, ...sides });
report(`full (graphs built in ${built.toFixed(1)} s, every permission)`, (performance.now() - t0) / 1000, full);
const same = (["lost", "gained", "parityBroken", "parityRestored"] as const).every((k) => full.summary[k] === incremental.impact.summary[k]);
if (!same) {
  console.error("the incremental impact differs from the full one");
  process.exitCode = 1;
}
