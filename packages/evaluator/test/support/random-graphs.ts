// Seeded random relationship graphs for differential tests: the real stage schema (workspace trees,
// groups, nested groups, role bindings at tenant/platform/root/default/other levels, hosts) and a
// small hand schema that exercises `&`, `-`, wildcards and recursion through exclusions.
import type { Model, ObjectRef, Relationship, SubjectRef } from "../../src/index.js";

export type Random = () => number;

/** mulberry32: tiny, fast, and reproducible from a 32-bit seed. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rnd: Random, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string, subjectRelation?: string): Relationship =>
  subjectRelation ? { resourceType, resourceId, relation, subjectType, subjectId, subjectRelation } : { resourceType, resourceId, relation, subjectType, subjectId };

export interface Query {
  resource: ObjectRef;
  permission: string;
  subject: SubjectRef;
}

export interface RandomCase {
  relationships: Relationship[];
  checks: Query[];
  lookups: Array<{ resourceType: string; permission: string; subject: SubjectRef }>;
}

/** V1 grants a random role may hold (stored relations of rbac/role). */
export const ROLE_GRANTS = [
  "t_inventory_hosts_read",
  "t_inventory_hosts_write",
  "t_inventory_hosts_all",
  "t_inventory_all_read",
  "t_inventory_all_all",
  "t_all_all_all",
  "t_patch_system_read",
  "t_patch_all_read",
  "t_content_sources_templates_read",
  "t_advisor_all_read",
  "t_inventory_groups_read",
];

const STAGE_PERMISSIONS: Record<string, string[]> = {
  "rbac/workspace": ["inventory_host_view", "inventory_host_update", "patch_system_view", "patch_template_view", "advisor_recommendation_results_view", "view", "rbac_workspace_view"],
  "hbi/host": ["view", "update", "patch_system_view", "patch_template_view", "advisor_recommendation_results_view"],
  "rbac/tenant": ["inventory_host_view", "patch_system_view"],
  "rbac/group": ["member"],
};

export function randomStageCase(rnd: Random, model: Model, size = 1): RandomCase {
  const grants = ROLE_GRANTS.filter((g) => model.isRelation("rbac/role", g));
  const out: Relationship[] = [];
  const tenant = "redhat/o1";
  out.push(rel("rbac/tenant", tenant, "t_platform", "rbac/platform", "stage"));
  const workspaces = ["root", "default"];
  out.push(rel("rbac/workspace", "root", "t_parent", "rbac/tenant", tenant), rel("rbac/workspace", "root", "t_tenant", "rbac/tenant", tenant));
  out.push(rel("rbac/workspace", "default", "t_parent", "rbac/workspace", "root"));
  const depth = new Map([
    ["root", 1],
    ["default", 2],
  ]);
  for (let i = 0; i < 10 * size; i++) {
    const parent = pick(
      rnd,
      workspaces.filter((w) => depth.get(w)! < 5),
    );
    const id = `ws${i}`;
    workspaces.push(id);
    depth.set(id, depth.get(parent)! + 1);
    out.push(rel("rbac/workspace", id, "t_parent", "rbac/workspace", parent));
  }
  const principals = Array.from({ length: 6 * size }, (_, i) => `redhat/u${i}`);
  const groups = Array.from({ length: 4 * size }, (_, i) => `g${i}`);
  groups.forEach((g, i) => {
    for (const p of principals) if (rnd() < 0.25) out.push(rel("rbac/group", g, "t_member", "rbac/principal", p));
    // Nested groups only point to later groups, so there is no cycle.
    for (const inner of groups.slice(i + 1)) if (rnd() < 0.2) out.push(rel("rbac/group", g, "t_member", "rbac/group", inner, "member"));
  });
  const roles = Array.from({ length: 5 }, (_, i) => `role${i}`);
  roles.forEach((r, i) => {
    for (const g of grants) if (rnd() < 0.2) out.push(rel("rbac/role", r, g, "rbac/principal", "*"));
    for (const child of roles.slice(i + 1)) if (rnd() < 0.15) out.push(rel("rbac/role", r, "t_child", "rbac/role", child));
  });
  // Enough bindings on the root that checks there take the anchored path (more than 16 tuples).
  for (let i = 0; i < 40 * size; i++) {
    const rb = `rb${i}`;
    out.push(rel("rbac/role_binding", rb, "t_role", "rbac/role", pick(rnd, roles)));
    if (rnd() < 0.5) out.push(rel("rbac/role_binding", rb, "t_subject", "rbac/principal", pick(rnd, principals)));
    else out.push(rel("rbac/role_binding", rb, "t_subject", "rbac/group", pick(rnd, groups), "member"));
    const level = rnd();
    if (level < 0.1) out.push(rel("rbac/tenant", tenant, "t_binding", "rbac/role_binding", rb));
    else if (level < 0.2) out.push(rel("rbac/platform", "stage", "t_binding", "rbac/role_binding", rb));
    else if (level < 0.7) out.push(rel("rbac/workspace", "root", "t_binding", "rbac/role_binding", rb));
    else if (level < 0.8) out.push(rel("rbac/workspace", "default", "t_binding", "rbac/role_binding", rb));
    else out.push(rel("rbac/workspace", pick(rnd, workspaces), "t_binding", "rbac/role_binding", rb));
  }
  const hosts = Array.from({ length: 15 * size }, (_, i) => `h${i}`);
  for (const h of hosts) out.push(rel("hbi/host", h, "t_workspace", "rbac/workspace", pick(rnd, workspaces)));

  const subjects: SubjectRef[] = [
    ...principals.map((id) => ({ type: "rbac/principal", id })),
    { type: "rbac/principal", id: "redhat/stranger" },
    ...groups.slice(0, 2).map((id) => ({ type: "rbac/group", id, relation: "member" })),
  ];
  const objects: Record<string, string[]> = { "rbac/workspace": workspaces, "hbi/host": hosts, "rbac/tenant": [tenant], "rbac/group": groups };
  return { relationships: out, ...randomQueries(rnd, objects, STAGE_PERMISSIONS, subjects) };
}

export const HAND_SCHEMA = `definition user {}

definition group {
  relation member: user | group#member
}

definition folder {
  relation parent: folder
  relation viewer: user | group#member | user:*
  relation banned: user | group#member
  relation editor: user | group#member
  permission view = viewer + parent->view - banned
  permission edit = editor & view
  permission mixed = viewer & editor + parent->edit
}

definition doc {
  relation folder: folder
  relation owner: user
  relation blocked: user | group#member
  permission read = folder->view + owner - blocked
  permission write = owner & folder->edit
  permission strict = folder->mixed - folder->edit
}`;

const HAND_PERMISSIONS: Record<string, string[]> = {
  folder: ["view", "edit", "mixed", "viewer", "banned"],
  doc: ["read", "write", "strict"],
  group: ["member"],
};

export function randomHandCase(rnd: Random): RandomCase {
  const out: Relationship[] = [];
  const users = Array.from({ length: 6 }, (_, i) => `u${i}`);
  const groups = Array.from({ length: 4 }, (_, i) => `g${i}`);
  groups.forEach((g, i) => {
    for (const u of users) if (rnd() < 0.3) out.push(rel("group", g, "member", "user", u));
    for (const inner of groups.slice(i + 1)) if (rnd() < 0.25) out.push(rel("group", g, "member", "group", inner, "member"));
  });
  const someone = (): [string, string, string?] => (rnd() < 0.6 ? ["user", pick(rnd, users)] : ["group", pick(rnd, groups), "member"]);
  const folders = Array.from({ length: 7 }, (_, i) => `f${i}`);
  folders.forEach((f, i) => {
    if (i > 0 && rnd() < 0.8) out.push(rel("folder", f, "parent", "folder", folders[Math.floor(rnd() * i)]!));
    for (const relation of ["viewer", "banned", "editor"]) {
      const n = Math.floor(rnd() * 3);
      for (let k = 0; k < n; k++) out.push(rel("folder", f, relation, ...someone()));
    }
    if (rnd() < 0.15) out.push(rel("folder", f, "viewer", "user", "*"));
  });
  const docs = Array.from({ length: 10 }, (_, i) => `d${i}`);
  for (const d of docs) {
    out.push(rel("doc", d, "folder", "folder", pick(rnd, folders)));
    if (rnd() < 0.5) out.push(rel("doc", d, "owner", "user", pick(rnd, users)));
    if (rnd() < 0.4) out.push(rel("doc", d, "blocked", ...someone()));
  }
  const unique = [...new Map(out.map((r) => [JSON.stringify(r), r])).values()];
  const subjects: SubjectRef[] = [...users.map((id) => ({ type: "user", id })), { type: "user", id: "stranger" }, ...groups.slice(0, 2).map((id) => ({ type: "group", id, relation: "member" }))];
  return { relationships: unique, ...randomQueries(rnd, { folder: folders, doc: docs, group: groups }, HAND_PERMISSIONS, subjects) };
}

function randomQueries(rnd: Random, objects: Record<string, string[]>, permissions: Record<string, string[]>, subjects: SubjectRef[]): Pick<RandomCase, "checks" | "lookups"> {
  const types = Object.keys(permissions);
  const checks: Query[] = Array.from({ length: 150 }, () => {
    const type = pick(rnd, types);
    return { resource: { type, id: pick(rnd, objects[type]!) }, permission: pick(rnd, permissions[type]!), subject: pick(rnd, subjects) };
  });
  const lookups = Array.from({ length: 25 }, () => {
    const type = pick(rnd, types);
    return { resourceType: type, permission: pick(rnd, permissions[type]!), subject: pick(rnd, subjects) };
  });
  return { checks, lookups };
}
