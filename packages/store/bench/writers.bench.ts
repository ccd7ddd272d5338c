// Concurrent-writer throughput: role-binding batchCreate through the store's command path with
// 1, 4 and 16 tenants writing at once (each tenant one writer: a tenant's own writes are
// serialized by design). Reports the median of BENCH_ROUNDS rounds per tenant count.
// Run: pnpm --filter @gatehouse/store bench:writers   (pg at DATABASE_URL, and PGlite;
// BENCH_BACKENDS=pg for one of them)
import type { Store } from "../src/index.js";
import { openTestStore, testBackends } from "../src/testing.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCHES = Number(process.env.BENCH_WRITER_BATCHES ?? 40); // per tenant and round
const GRANTS = Number(process.env.BENCH_WRITER_GRANTS ?? 10); // grants per batchCreate
const TENANTS = (process.env.BENCH_WRITER_TENANTS ?? "1,4,16").split(",").map(Number);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Tenant {
  org: string;
  workspaces: string[];
}

async function prepare(store: Store, count: number, roleId: string): Promise<Tenant[]> {
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
  void roleId;
  return tenants;
}

/** One round: every tenant writes BATCHES batches back to back, all tenants at once. */
async function round(store: Store, tenants: Tenant[], roleId: string, r: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(
    tenants.map(async ({ org, workspaces }) => {
      for (let b = 0; b < BATCHES; b++) {
        const first = (r * BATCHES + b) * GRANTS;
        await store.roleBindings.batchCreate(
          org,
          Array.from({ length: GRANTS }, (_, i) => ({
            resource: { type: "workspace" as const, id: workspaces[i % workspaces.length]! },
            subject: { type: "principal" as const, id: `u${first + i}` },
            roleId,
          })),
        );
      }
    }),
  );
  return (tenants.length * BATCHES) / ((performance.now() - t0) / 1000);
}

async function main() {
  console.log(`| backend | tenants | batchCreate/s (median of ${ROUNDS}) | grants/s | rounds |`);
  console.log("|---|---|---|---|---|");
  const only = process.env.BENCH_BACKENDS?.split(",");
  for (const backend of (await testBackends()).filter((b) => !only || only.includes(b.name))) {
    for (const count of TENANTS) {
      const store = await openTestStore(backend, { poolSize: Math.max(10, count + 4) });
      try {
        const [role] = (await store.roles.seedSystemRoles([{ name: "Bench viewer", access: [{ permission: "inventory:hosts:read" }] }])).value.roles;
        const tenants = await prepare(store, count, role!.id);
        const rates: number[] = [];
        for (let r = 0; r < ROUNDS; r++) rates.push(await round(store, tenants, role!.id, r));
        const m = median(rates);
        console.log(`| ${backend.name} | ${count} | ${m.toFixed(0)} | ${(m * GRANTS).toFixed(0)} | ${rates.map((x) => x.toFixed(0)).join(" ")} |`);
      } finally {
        await store.close();
      }
    }
  }
}

await main();
