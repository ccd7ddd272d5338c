// Concurrent-writer throughput: role-binding batchCreate through the store's command path with
// 1, 4 and 16 tenants writing at once (each tenant one writer: a tenant's own writes are
// serialized by design). Reports the median of BENCH_ROUNDS rounds per tenant count and the
// per-write latency (p50/p99 over every batch of every round). With BENCH_WAIT_EVENTS=1 (pg), a
// separate connection samples pg_stat_activity every 10 ms during the rounds and reports what
// the store's backends were doing (wait event, or CPU/client when not waiting).
// Run: pnpm --filter @gatehouse/store bench:writers   (pg at DATABASE_URL, and PGlite;
// BENCH_BACKENDS=pg for one of them; BENCH_LABEL names the rows, BENCH_JSON=1 adds JSON lines)
import pg from "pg";
import type { Store } from "../src/index.js";
import { openTestStore, testBackends, type TestStore } from "../src/testing.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCHES = Number(process.env.BENCH_WRITER_BATCHES ?? 40); // per tenant and round
const GRANTS = Number(process.env.BENCH_WRITER_GRANTS ?? 10); // grants per batchCreate
const TENANTS = (process.env.BENCH_WRITER_TENANTS ?? "1,4,16").split(",").map(Number);
const WAIT_EVENTS = process.env.BENCH_WAIT_EVENTS === "1";
const LABEL = process.env.BENCH_LABEL ?? "";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** Nearest-rank percentile. */
function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Tenant {
  org: string;
  workspaces: string[];
}

async function prepare(store: Store, count: number): Promise<Tenant[]> {
  const users = Array.from({ length: ROUNDS * BATCHES * GRANTS }, (_, i) => ({ userId: `u${i}`, username: `user${i}` }));
  const tenants: Tenant[] = [];
  for (let t = 0; t < count; t++) {
    const org = `bench-w${count}-${t}`;
    await store.tenants.bootstrap(org);
    for (let i = 0; i < users.length; i += 500) await store.principals.upsert(org, users.slice(i, i + 500));
    const workspaces: string[] = [];
    for (let i = 0; i < 5; i++) workspaces.push((await store.workspaces.create(org, { name: `ws${i}` })).value.id);
    tenants.push({ org, workspaces });
  }
  return tenants;
}

/** One round: every tenant writes BATCHES batches back to back, all tenants at once. */
async function round(store: Store, tenants: Tenant[], roleId: string, r: number, latencies: number[]): Promise<number> {
  const t0 = performance.now();
  await Promise.all(
    tenants.map(async ({ org, workspaces }) => {
      for (let b = 0; b < BATCHES; b++) {
        const first = (r * BATCHES + b) * GRANTS;
        const started = performance.now();
        await store.roleBindings.batchCreate(
          org,
          Array.from({ length: GRANTS }, (_, i) => ({
            resource: { type: "workspace" as const, id: workspaces[i % workspaces.length]! },
            subject: { type: "principal" as const, id: `u${first + i}` },
            roleId,
          })),
        );
        latencies.push(performance.now() - started);
      }
    }),
  );
  return (tenants.length * BATCHES) / ((performance.now() - t0) / 1000);
}

/** Samples the wait events of the store's backends until stopped; returns each one's share of the samples. */
function sampleWaitEvents(databaseUrl: string, schema: string): { stop(): Promise<Record<string, number>> } {
  const counts = new Map<string, number>();
  let samples = 0;
  let stopped = false;
  const client = new pg.Client({ connectionString: databaseUrl });
  const loop = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query<{ what: string }>(
        `SELECT CASE WHEN state = 'idle in transaction' THEN 'ClientRead (in transaction)'
                     WHEN wait_event IS NULL THEN 'CPU' ELSE wait_event_type || ':' || wait_event END AS what
         FROM pg_stat_activity WHERE application_name = $1 AND state <> 'idle'`,
        [`gatehouse-store:${schema}`],
      );
      samples++;
      for (const { what } of rows) counts.set(what, (counts.get(what) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 10));
    }
    await client.end();
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      // Average number of the store's backends in each state at a sample.
      return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Number((v / samples).toFixed(2))]));
    },
  };
}

async function main() {
  console.log(`| label | backend | tenants | batchCreate/s (median of ${ROUNDS}) | grants/s | rounds | write p50 ms | write p99 ms |${WAIT_EVENTS ? " backends by state (average count) |" : ""}`);
  console.log(`|---|---|---|---|---|---|---|---|${WAIT_EVENTS ? "---|" : ""}`);
  const only = process.env.BENCH_BACKENDS?.split(",");
  for (const backend of (await testBackends()).filter((b) => !only || only.includes(b.name))) {
    for (const count of TENANTS) {
      const store: TestStore = await openTestStore(backend, { poolSize: Math.max(10, count + 4) });
      try {
        const [role] = (await store.roles.seedSystemRoles([{ name: "Bench viewer", access: [{ permission: "inventory:hosts:read" }] }])).value.roles;
        const tenants = await prepare(store, count);
        const rates: number[] = [];
        const latencies: number[] = [];
        const sampler = WAIT_EVENTS && backend.name === "pg" ? sampleWaitEvents(backend.databaseUrl, store.schema) : undefined;
        for (let r = 0; r < ROUNDS; r++) rates.push(await round(store, tenants, role!.id, r, latencies));
        const waits = await sampler?.stop();
        const m = median(rates);
        const p50 = percentile(latencies, 50);
        const p99 = percentile(latencies, 99);
        const waitText = waits
          ? ` ${Object.entries(waits)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")} |`
          : "";
        console.log(
          `| ${LABEL} | ${backend.name} | ${count} | ${m.toFixed(0)} | ${(m * GRANTS).toFixed(0)} | ${rates.map((x) => x.toFixed(0)).join(" ")} | ${p50.toFixed(1)} | ${p99.toFixed(1)} |${waitText}`,
        );
        if (process.env.BENCH_JSON === "1") console.log(`JSON ${JSON.stringify({ label: LABEL, backend: backend.name, tenants: count, median: m, rates, p50, p99, waits })}`);
      } finally {
        await store.close();
      }
    }
  }
}

await main();
