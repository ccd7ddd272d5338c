// Benchmark data on the real stage schema: one large organisation with a workspace tree, hosts,
// roles, groups (some nested), principals and role bindings at every level.
import { formatRelationship, type ObjectRef, type Relationship, type SubjectRef } from "../src/index.js";
import { ROLE_GRANTS, seededRandom } from "../test/support/random-graphs.js";

export interface StageDataOptions {
  workspaces: number;
  hosts: number;
  bindings: number;
  principals: number;
  groups: number;
  seed?: number;
}

export interface StageData {
  relationships: Relationship[];
  /** Workspace id → parent workspace id (root has none). */
  parentOf: Map<string, string>;
  hostWorkspace: string[];
  /** Workspace id → principals bound there directly or through a group (sampled for true checks). */
  boundAt: Map<string, string[]>;
  principals: string[];
  /** Bound at the root with a role holding inventory:*:*: sees every host. */
  admin: string;
}

const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string, subjectRelation?: string): Relationship =>
  subjectRelation ? { resourceType, resourceId, relation, subjectType, subjectId, subjectRelation } : { resourceType, resourceId, relation, subjectType, subjectId };

export function generateStageData(o: StageDataOptions): StageData {
  const rnd = seededRandom(o.seed ?? 42);
  const int = (n: number): number => Math.floor(rnd() * n);
  const out: Relationship[] = [];
  const tenant = "redhat/o1";
  out.push(rel("rbac/tenant", tenant, "t_platform", "rbac/platform", "stage"));
  out.push(rel("rbac/workspace", "root", "t_parent", "rbac/tenant", tenant), rel("rbac/workspace", "root", "t_tenant", "rbac/tenant", tenant));
  out.push(rel("rbac/workspace", "default", "t_parent", "rbac/workspace", "root"));
  const workspaces = ["root", "default"];
  const depth = [1, 2];
  const parentOf = new Map<string, string>([["default", "root"]]);
  while (workspaces.length < o.workspaces) {
    let parent = int(workspaces.length);
    while (depth[parent]! >= 5) parent = int(workspaces.length);
    const id = `ws${workspaces.length}`;
    out.push(rel("rbac/workspace", id, "t_parent", "rbac/workspace", workspaces[parent]!));
    parentOf.set(id, workspaces[parent]!);
    workspaces.push(id);
    depth.push(depth[parent]! + 1);
  }
  const hostWorkspace: string[] = [];
  for (let i = 0; i < o.hosts; i++) {
    const ws = workspaces[int(workspaces.length)]!;
    hostWorkspace.push(ws);
    out.push(rel("hbi/host", `h${i}`, "t_workspace", "rbac/workspace", ws));
  }
  const roles = Array.from({ length: 20 }, (_, i) => `role${i}`);
  roles.forEach((role, i) => {
    // Every role grants host viewing one way or another, plus a few random grants.
    out.push(rel("rbac/role", role, pick(["t_inventory_hosts_read", "t_inventory_all_read", "t_inventory_hosts_all"]), "rbac/principal", "*"));
    for (const g of ROLE_GRANTS) if (rnd() < 0.2) out.push(rel("rbac/role", role, g, "rbac/principal", "*"));
    if (i + 1 < roles.length && rnd() < 0.2) out.push(rel("rbac/role", role, "t_child", "rbac/role", roles[i + 1 + int(roles.length - i - 1)]!));
  });
  function pick<T>(items: T[]): T {
    return items[int(items.length)]!;
  }
  const principals = Array.from({ length: o.principals }, (_, i) => `redhat/u${i}`);
  const groups = Array.from({ length: o.groups }, (_, i) => `g${i}`);
  const membersOf = new Map<string, string[]>(groups.map((g) => [g, []]));
  for (const p of principals) {
    for (let k = 1 + int(2); k > 0; k--) {
      const g = pick(groups);
      out.push(rel("rbac/group", g, "t_member", "rbac/principal", p));
      membersOf.get(g)!.push(p);
    }
  }
  // A tenth of the groups contain a later group (acyclic nesting).
  groups.forEach((g, i) => {
    if (i + 1 < groups.length && rnd() < 0.1) out.push(rel("rbac/group", g, "t_member", "rbac/group", groups[i + 1 + int(groups.length - i - 1)]!, "member"));
  });
  const boundAt = new Map<string, string[]>();
  for (let i = 0; i < o.bindings; i++) {
    const rb = `rb${i}`;
    out.push(rel("rbac/role_binding", rb, "t_role", "rbac/role", pick(roles)));
    let bound: string[];
    if (rnd() < 0.6) {
      const p = pick(principals);
      out.push(rel("rbac/role_binding", rb, "t_subject", "rbac/principal", p));
      bound = [p];
    } else {
      const g = pick(groups);
      out.push(rel("rbac/role_binding", rb, "t_subject", "rbac/group", g, "member"));
      bound = membersOf.get(g)!;
    }
    const level = rnd();
    const ws = level < 0.001 ? "root" : level < 0.002 ? "default" : pick(workspaces);
    if (level < 0.0005) out.push(rel("rbac/tenant", tenant, "t_binding", "rbac/role_binding", rb));
    else out.push(rel("rbac/workspace", ws, "t_binding", "rbac/role_binding", rb));
    const list = boundAt.get(ws) ?? [];
    list.push(...bound.slice(0, 3));
    boundAt.set(ws, list);
  }
  const admin = "redhat/admin";
  out.push(rel("rbac/role", "admin-role", "t_inventory_all_all", "rbac/principal", "*"));
  out.push(rel("rbac/role_binding", "rb-admin", "t_role", "rbac/role", "admin-role"));
  out.push(rel("rbac/role_binding", "rb-admin", "t_subject", "rbac/principal", admin));
  out.push(rel("rbac/workspace", "root", "t_binding", "rbac/role_binding", "rb-admin"));
  // Random picks can repeat a tuple; SpiceDB rejects a duplicate within one write.
  const unique = [...new Map(out.map((r) => [formatRelationship(r), r])).values()];
  return { relationships: unique, parentOf, hostWorkspace, boundAt, principals, admin };
}

export interface Query {
  resource: ObjectRef;
  permission: string;
  subject: SubjectRef;
}

/** Half the queries use a principal bound somewhere above the host, so both answers are common. */
/**
 * `seed` drives the original generator, whose float arithmetic degenerates into a short cycle (about
 * 11,000 distinct host/principal pairs in 52,000 queries, so many queries repeat exactly); the
 * figures in the README are comparable with it. `random` replaces it (e.g. mulberry32: every query
 * distinct or nearly, about a quarter of them a subject's first check).
 */
export function makeQueries(data: StageData, count: number, seed: number, random?: () => number): Query[] {
  let s = seed;
  const rnd = random ?? ((): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const queries: Query[] = [];
  for (let i = 0; i < count; i++) {
    const host = Math.floor(rnd() * data.hostWorkspace.length);
    let principal = data.principals[Math.floor(rnd() * data.principals.length)]!;
    if (rnd() < 0.5) {
      const candidates: string[] = [];
      for (let ws: string | undefined = data.hostWorkspace[host]; ws; ws = data.parentOf.get(ws)) candidates.push(...(data.boundAt.get(ws) ?? []));
      if (candidates.length > 0) principal = candidates[Math.floor(rnd() * candidates.length)]!;
    }
    queries.push({ resource: { type: "hbi/host", id: `h${host}` }, permission: rnd() < 0.7 ? "view" : "patch_system_view", subject: { type: "rbac/principal", id: principal } });
  }
  return queries;
}
