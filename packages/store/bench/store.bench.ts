// Store benchmarks, each on PGlite and on real Postgres (DATABASE_URL or the local default):
//   1. role-binding creation throughput, batches of 100 grants
//   2. change-feed lag from commit to the follower (p50 / p99)
//   3. snapshot load time for BENCH_TUPLES tuples (default 1,000,000)
// Run: pnpm --filter @gatehouse/store bench
import type { Relationship, Store } from "../src/index.js";
import { DEFAULT_TEST_DATABASE_URL, openTestStore, testBackends, type TestBackend } from "../src/testing.js";

const TUPLES = Number(process.env.BENCH_TUPLES ?? 1_000_000);
const BINDING_BATCHES = Number(process.env.BENCH_BINDING_BATCHES ?? 30);
const LAG_WRITES = Number(process.env.BENCH_LAG_WRITES ?? 300);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const fmt = (n: number) => n.toFixed(1);

async function bindingThroughput(store: Store): Promise<string[]> {
  const org = "bench-bindings";
  const { value: t } = await store.tenants.bootstrap(org);
  const [role] = (await store.roles.seedSystemRoles([{ name: "Bench viewer", access: [{ permission: "inventory:hosts:read" }] }])).value.roles;
  const users = Array.from({ length: BINDING_BATCHES * 100 }, (_, i) => ({ userId: `u${i}`, username: `user${i}` }));
  for (let i = 0; i < users.length; i += 500) await store.principals.upsert(org, users.slice(i, i + 500));
  const workspaces: string[] = [];
  for (let i = 0; i < 10; i++) workspaces.push((await store.workspaces.create(org, { name: `ws${i}` })).value.id);
  const times: number[] = [];
  const started = performance.now();
  for (let b = 0; b < BINDING_BATCHES; b++) {
    const grants = Array.from({ length: 100 }, (_, i) => ({
      resource: { type: "workspace" as const, id: workspaces[i % workspaces.length]! },
      subject: { type: "principal" as const, id: `u${b * 100 + i}` },
      roleId: role!.id,
    }));
    const t0 = performance.now();
    await store.roleBindings.batchCreate(org, grants);
    times.push(performance.now() - t0);
  }
  const total = (performance.now() - started) / 1000;
  void t;
  return [`binding batchCreate (100/batch, ${BINDING_BATCHES} batches)`, `${fmt((BINDING_BATCHES * 100) / total)} grants/s`, `batch p50 ${fmt(pct(times, 50))} ms, p99 ${fmt(pct(times, 99))} ms`];
}

async function feedLag(store: Store): Promise<string[]> {
  const org = "bench-lag";
  await store.tenants.bootstrap(org);
  const from = await store.feed.headRevision();
  const lags: number[] = [];
  const committedAt = new Map<number, number>();
  const received = new Map<number, number>();
  const follower = store.feed.follow(from, (changes) => {
    const now = performance.now();
    for (const c of changes) received.set(c.revision, now);
  });
  for (let i = 0; i < LAG_WRITES; i++) {
    const r: Relationship = { resourceType: "hbi/host", resourceId: `lag${i}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: "w" };
    const { revision } = await store.relationships.write(org, { touch: [r] });
    // The write resolves right after COMMIT returns: that is the commit time seen by the writer.
    committedAt.set(revision, performance.now());
    await new Promise((res) => setTimeout(res, 2)); // a steady trickle, not one burst
  }
  const last = from + LAG_WRITES;
  while (follower.revision < last) await new Promise((res) => setTimeout(res, 5));
  await follower.stop();
  for (const [rev, t] of committedAt) lags.push(Math.max(0, received.get(rev)! - t));
  return [`change-feed lag (${LAG_WRITES} writes)`, `p50 ${fmt(pct(lags, 50))} ms`, `p99 ${fmt(pct(lags, 99))} ms`];
}

async function snapshotLoad(store: Store): Promise<string[]> {
  const org = "bench-snap";
  await store.tenants.bootstrap(org);
  const chunk = 50_000;
  for (let i = 0; i < TUPLES; i += chunk) {
    const touch: Relationship[] = [];
    for (let j = i; j < Math.min(TUPLES, i + chunk); j++) {
      touch.push({ resourceType: "hbi/host", resourceId: `h${j}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: `w${j % 1000}` });
    }
    await store.relationships.write(org, { touch });
  }
  const runs: number[] = [];
  let count = 0;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    const snap = await store.feed.snapshot({ batchSize: 10_000 });
    count = 0;
    for await (const batch of snap.batches) count += batch.length;
    runs.push(performance.now() - t0);
  }
  return [`snapshot load (${count.toLocaleString("en")} tuples, 3 runs)`, `median ${fmt(pct(runs, 50) / 1000)} s`, `${fmt(count / (pct(runs, 50) / 1000) / 1000)}k tuples/s`];
}

async function main() {
  const backends = await testBackends();
  const rows: string[][] = [];
  for (const backend of backends) {
    const label = backend.name === "pg" ? `pg (${(backend as Extract<TestBackend, { name: "pg" }>).databaseUrl === DEFAULT_TEST_DATABASE_URL ? "local" : "DATABASE_URL"})` : "pglite (memory)";
    for (const measure of [bindingThroughput, feedLag, snapshotLoad]) {
      const store = await openTestStore(backend, { pollIntervalMs: 1000 });
      try {
        const [what, a, b] = await measure(store);
        rows.push([label, what!, a!, b!]);
        console.error(`done: ${label} ${what}`);
      } finally {
        await store.close();
      }
    }
  }
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), 8));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(line(["backend", "measurement", "result", "detail"]));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
}

await main();
