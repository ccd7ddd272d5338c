// Cache on vs off: Pattern-2 list answers (evaluator reverse lookup vs cache hit, memory and Redis)
// and root/default lookups (store vs cache hit). Run: pnpm --filter @gatehouse/workspace-cache bench
import { randomUUID } from "node:crypto";
import { Pattern2ListCache, createMemoryCache, createRedisCache, type Cache } from "@gatehouse/cache";
import { RelationshipGraph, compileSchema, lookupResources, type Relationship } from "@gatehouse/evaluator";
import { openStore, type Store } from "@gatehouse/store";
import { percentile } from "@gatehouse/telemetry";
import { createWorkspaceLookup, workspaceDirectoryFromStore } from "@gatehouse/workspace-cache";

const schema = `
definition rbac/principal {}
definition rbac/role {
  relation t_inventory_hosts_read: rbac/principal:*
  permission inventory_host_view = t_inventory_hosts_read
}
definition rbac/role_binding {
  relation t_role: rbac/role
  relation t_subject: rbac/principal
  permission inventory_host_view = (t_subject & t_role->inventory_host_view)
}
definition rbac/workspace {
  relation t_binding: rbac/role_binding
  relation t_parent: rbac/workspace
  permission inventory_host_view = t_binding->inventory_host_view + t_parent->inventory_host_view
}`;

const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string): Relationship => ({ resourceType, resourceId, relation, subjectType, subjectId });

/** root → default → 100 team workspaces → 100 children each (10,102 workspaces); the user is bound on 30 teams. */
function buildGraph(): RelationshipGraph {
  const graph = new RelationshipGraph(compileSchema(schema));
  graph.add(rel("rbac/workspace", "default", "t_parent", "rbac/workspace", "root"));
  graph.add(rel("rbac/role", "viewer", "t_inventory_hosts_read", "rbac/principal", "*"));
  for (let t = 0; t < 100; t++) {
    graph.add(rel("rbac/workspace", `team-${t}`, "t_parent", "rbac/workspace", "default"));
    for (let c = 0; c < 100; c++) graph.add(rel("rbac/workspace", `ws-${t}-${c}`, "t_parent", "rbac/workspace", `team-${t}`));
    if (t % 10 < 3) {
      graph.add(rel("rbac/role_binding", `b-${t}`, "t_role", "rbac/role", "viewer"));
      graph.add(rel("rbac/role_binding", `b-${t}`, "t_subject", "rbac/principal", "redhat/alice"));
      graph.add(rel("rbac/workspace", `team-${t}`, "t_binding", "rbac/role_binding", `b-${t}`));
    }
  }
  return graph;
}

async function measure(name: string, iterations: number, run: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < Math.min(50, iterations); i++) await run(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => percentile(samples, q * 100);
  console.log(`${name.padEnd(46)} p50 ${at(0.5).toFixed(3).padStart(8)} ms   p90 ${at(0.9).toFixed(3).padStart(8)} ms   p99 ${at(0.99).toFixed(3).padStart(8)} ms`);
  return at(0.5);
}

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const caches: [string, Cache][] = [["memory", createMemoryCache()]];
const redis = createRedisCache({ url: redisUrl, keyPrefix: `bench:wsc:${randomUUID()}:`, commandTimeoutMs: 1_000 });
try {
  await redis.waitUntilReady(2_000);
  caches.push(["redis", redis]);
} catch {
  console.log(`(Redis at ${redisUrl} unreachable: Redis rows skipped)`);
}

console.log("## Pattern-2 list: workspace ids for (alice, inventory_host_view), 3,030 of 10,102 accessible");
const graph = buildGraph();
const subject = { type: "rbac/principal", id: "redhat/alice" };
const compute = () => lookupResources(graph, "rbac/workspace", "inventory_host_view", subject);
console.log(`answer size: ${compute().length} ids`);
const off = await measure("cache off (evaluator reverse lookup)", 200, compute);
for (const [kind, cache] of caches) {
  const lists = new Pattern2ListCache(cache, { timeoutMs: 1_000 });
  const query = { tenant: "redhat/bench", revision: 42, subject: "rbac/principal:redhat/alice", relation: "inventory_host_view" };
  const on = await measure(`cache on, hit (${kind})`, 200, () => lists.getOrLoad(query, async () => compute()));
  const miss = await measure(`cache on, miss = compute + store (${kind})`, 100, () => lists.getOrLoad({ ...query, revision: randomUUID().slice(0, 8) }, async () => compute()));
  console.log(`  ratio off/on-hit (${kind}): ${(off / on).toFixed(2)}x; miss overhead ${(miss / off).toFixed(2)}x of off`);
}

console.log("\n## Root/default lookup: store vs cache hit");
const stores: [string, Store][] = [["pglite", await openStore()]];
try {
  stores.push(["postgres", await openStore({ databaseUrl: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test", schema: `bench_wsc_${randomUUID().slice(0, 8)}` })]);
} catch {
  console.log("(Postgres unreachable: Postgres rows skipped)");
}
for (const [backend, store] of stores) {
  await store.tenants.bootstrap("bench-org");
  const directory = workspaceDirectoryFromStore(store);
  const fromStore = await measure(`store only (${backend})`, 300, () => directory.builtInWorkspaces("bench-org"));
  for (const [kind, cache] of caches) {
    const lookup = createWorkspaceLookup({ cache, directory, cacheTimeoutMs: 1_000 });
    const hit = await measure(`cache hit (${kind}) over ${backend}`, 300, () => lookup.builtIn("bench-org"));
    console.log(`  ratio store/cache (${kind}, ${backend}): ${(fromStore / hit).toFixed(2)}x`);
  }
  await store.close();
}
for (const [, cache] of caches) await cache.close();
