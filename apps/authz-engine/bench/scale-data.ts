// Synthetic relationships in the shape of a large console: many tenants of very different sizes
// (hosts per tenant fall off as a power of the tenant's rank, so most tenants are small and a few
// hold 100k+ hosts), nested workspaces, groups, and role bindings at every level (tenant, root,
// default and child workspaces). Deterministic for a given size and seed, and streamed: the
// relationships are yielded one by one, only the tenants' descriptions are kept.
import type { Model, Relationship } from "@gatehouse/evaluator";
import type { GraphSource } from "../src/graph/source.js";

export interface ScaleTenant {
  id: string;
  hosts: number;
  users: number;
  workspaces: number;
}

export interface ScaleShape {
  /** Every tenant generated, in rank order (largest first). */
  tenants: ScaleTenant[];
  /** Relationships yielded. */
  relationships: number;
}

export interface ScaleOptions {
  /** Stop after exactly this many relationships. */
  relationships: number;
  seed?: number;
  /** Stored relations of rbac/role that take `rbac/principal:*` (permissions roles can grant). */
  model: Model;
}

/** A small fast PRNG (mulberry32), so the same options give the same data. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string, subjectRelation?: string): Relationship =>
  subjectRelation === undefined ? { resourceType, resourceId, relation, subjectType, subjectId } : { resourceType, resourceId, relation, subjectType, subjectId, subjectRelation };

export const hostId = (tenant: string, n: number) => `${tenant}-h${n}`;
export const userId = (tenant: string, n: number) => `redhat/${tenant}-u${n}`;
export const workspaceId = (tenant: string, n: number) => (n === 0 ? `${tenant}-default` : `${tenant}-ws${n}`);
/** The role every tenant's first user holds at the tenant level: it can view hosts. */
export const ADMIN_ROLE = "scale-role-0";
const ROLES = 60;

function rolePermissions(model: Model): string[] {
  const role = model.typeIndex("rbac/role");
  if (role === undefined) throw new Error("the model has no rbac/role");
  return model.slots.filter((s) => s.typeIndex === role && s.stored && s.allowed.some((a) => a.type === "rbac/principal" && a.wildcard)).map((s) => s.name);
}

/**
 * Yields the relationships; the returned shape is complete once the generator is exhausted.
 * Hosts take about three quarters of the relationships, as in a real inventory.
 */
export function scaleRelationships(options: ScaleOptions): { shape: ScaleShape; relationships: Generator<Relationship> } {
  const shape: ScaleShape = { tenants: [], relationships: 0 };
  const rand = random(options.seed ?? 20);
  const permissions = rolePermissions(options.model);
  const needed = ["t_inventory_hosts_read", "t_inventory_groups_read"].filter((p) => permissions.includes(p));
  const target = options.relationships;
  // Largest tenant: a fifth of the relationships as hosts; rank r gets largest / r^1.3.
  const largest = Math.max(10, Math.floor(target / 5));

  function* generate(): Generator<Relationship> {
    const emit = function* (r: Relationship): Generator<Relationship> {
      if (shape.relationships >= target) return;
      shape.relationships++;
      yield r;
    };
    // Shared roles (as the platform's system roles are): role 0 can view hosts, the others draw
    // 3-12 permissions, two thirds of them including host viewing.
    for (let role = 0; role < ROLES; role++) {
      const granted = new Set<string>(role === 0 || rand() < 0.66 ? needed : []);
      const extra = 3 + Math.floor(rand() * 10);
      for (let i = 0; i < extra; i++) granted.add(permissions[Math.floor(rand() * permissions.length)]!);
      for (const permission of granted) yield* emit(rel("rbac/role", `scale-role-${role}`, permission, "rbac/principal", "*"));
    }
    for (let rank = 1; shape.relationships < target; rank++) {
      const t = `scale-t${rank}`;
      const hosts = Math.max(1 + Math.floor(rand() * 8), Math.floor(largest / rank ** 1.3));
      const workspaces = 1 + Math.min(2000, Math.floor(Math.sqrt(hosts) / 3));
      const users = Math.max(2, Math.min(20_000, Math.floor(hosts / 15)));
      const groups = Math.max(1, Math.floor(users / 25));
      shape.tenants.push({ id: t, hosts: 0, users, workspaces });
      const tenant = shape.tenants[shape.tenants.length - 1]!;

      yield* emit(rel("rbac/tenant", t, "t_platform", "rbac/platform", "stage"));
      yield* emit(rel("rbac/workspace", `${t}-root`, "t_parent", "rbac/tenant", t));
      yield* emit(rel("rbac/workspace", workspaceId(t, 0), "t_parent", "rbac/workspace", `${t}-root`));
      // Nested workspaces: half hang under one of the last few created (deep chains), half anywhere.
      for (let w = 1; w < workspaces; w++) {
        const parent = rand() < 0.5 ? Math.max(0, w - 1 - Math.floor(rand() * 3)) : Math.floor(rand() * w);
        yield* emit(rel("rbac/workspace", workspaceId(t, w), "t_parent", "rbac/workspace", workspaceId(t, parent)));
      }
      for (let u = 0; u < users; u++) {
        const group = Math.floor(rand() * groups);
        yield* emit(rel("rbac/group", `${t}-g${group}`, "t_member", "rbac/principal", userId(t, u)));
        if (groups > 1 && rand() < 0.3) yield* emit(rel("rbac/group", `${t}-g${(group + 1) % groups}`, "t_member", "rbac/principal", userId(t, u)));
      }
      // Bindings: the first user at the tenant level (admin), then root, default and every third
      // workspace, to a group or a single user.
      let binding = 0;
      const bind = function* (resourceType: string, resourceId: string, role: string, subject: Relationship["subjectId"] | null): Generator<Relationship> {
        const b = `${t}-b${binding++}`;
        yield* emit(rel("rbac/role_binding", b, "t_role", "rbac/role", role));
        if (subject === null) yield* emit(rel("rbac/role_binding", b, "t_subject", "rbac/group", `${t}-g${Math.floor(rand() * groups)}`, "member"));
        else yield* emit(rel("rbac/role_binding", b, "t_subject", "rbac/principal", subject));
        yield* emit(rel(resourceType, resourceId, "t_binding", "rbac/role_binding", b));
      };
      const anyRole = () => `scale-role-${1 + Math.floor(rand() * (ROLES - 1))}`;
      yield* bind("rbac/tenant", t, ADMIN_ROLE, userId(t, 0));
      yield* bind("rbac/workspace", `${t}-root`, anyRole(), null);
      yield* bind("rbac/workspace", workspaceId(t, 0), anyRole(), null);
      for (let w = 1; w < workspaces; w += 3) {
        yield* bind("rbac/workspace", workspaceId(t, w), anyRole(), rand() < 0.7 ? null : userId(t, Math.floor(rand() * users)));
      }
      // Hosts: a third in the default workspace, the rest spread over the workspaces.
      for (let h = 0; h < hosts && shape.relationships < target; h++) {
        const w = rand() < 0.33 ? 0 : Math.floor(rand() * workspaces);
        yield* emit(rel("hbi/host", hostId(t, h), "t_workspace", "rbac/workspace", workspaceId(t, w)));
        tenant.hosts++;
      }
    }
  }

  return { shape, relationships: generate() };
}

/** A Check's host and user. */
export interface Query {
  host: string;
  user: string;
}

/**
 * `count` distinct (host, user) pairs: hosts drawn with tenants weighted by size, users of the
 * host's tenant (its admin 40% of the time) and now and then of another tenant.
 */
export function distinctQueries(tenants: ScaleTenant[], totalHosts: number, count: number): Query[] {
  const rand = random(4242);
  const cumulative: number[] = [];
  let sum = 0;
  for (const t of tenants) cumulative.push((sum += t.hosts));
  const seen = new Set<string>();
  const queries: Query[] = [];
  for (let attempts = 0; queries.length < count && attempts < count * 10; attempts++) {
    const pick = Math.floor(rand() * totalHosts);
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! <= pick) lo = mid + 1;
      else hi = mid;
    }
    const tenant = tenants[lo]!;
    const host = hostId(tenant.id, Math.floor(rand() * tenant.hosts));
    const roll = rand();
    const userTenant = roll < 0.1 ? tenants[Math.floor(rand() * tenants.length)]! : tenant;
    const user = userId(userTenant.id, roll < 0.4 ? 0 : Math.floor(rand() * userTenant.users));
    const key = `${host} ${user}`;
    if (seen.has(key)) continue;
    seen.add(key);
    queries.push({ host, user });
  }
  return queries;
}

/**
 * Query i of an endless stream of distinct checks, made on demand (nothing is kept): hosts in a fixed pseudo-random order covering every host once per round (an odd
 * stride over the host ordinals), the user chosen by the round, so no (host, user) pair repeats
 * while rounds < the smallest tenant's users (2): 1M checks at 1M relationships take two rounds.
 * One in ten asks for a user of another tenant (denied, as a cross-tenant request would be).
 */
export function queryStream(tenants: ScaleTenant[]): (i: number) => Query {
  const cumulative = new Float64Array(tenants.length);
  let total = 0;
  for (let t = 0; t < tenants.length; t++) cumulative[t] = total += tenants[t]!.hosts;
  let stride = Math.floor(total * 0.618) | 1;
  while (gcd(stride, total) !== 1) stride += 2;
  const salt = Math.floor(random(777)() * 2 ** 30);
  return (i: number): Query => {
    const round = Math.floor(i / total);
    const ordinal = (i * stride) % total;
    let lo = 0;
    let hi = tenants.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! <= ordinal) lo = mid + 1;
      else hi = mid;
    }
    const tenant = tenants[lo]!;
    const h = ordinal - (lo === 0 ? 0 : cumulative[lo - 1]!);
    // The same for a host in every round, so the round alone changes the user (no pair repeats).
    const mix = (Math.imul(ordinal ^ salt, 0x9e3779b1) >>> 0) % 1000;
    const other = mix < 100 ? tenants[(lo + 1 + round) % tenants.length]! : tenant;
    const user = userId(other.id, (mix < 400 ? round : mix + round) % other.users);
    return { host: hostId(tenant.id, h), user };
  };
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** A graph source holding `relationships` at revision 1 ("t1") and nothing after: an engine in process, no store. */
export function fixedSource(relationships: Relationship[]): GraphSource {
  return {
    snapshot: async (onBatch) => (onBatch(relationships), { revision: 1 }),
    follow: () => ({ stop() {} }),
    headRevision: async () => 1,
    encodeToken: (revision) => `t${revision}`,
    decodeToken: (token) => Number(token.slice(1)),
  };
}
