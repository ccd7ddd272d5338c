// Figures for running on a role-configuration directory: load (read + validate + generate +
// compile), memory it holds, role seeding into an empty store and again (unchanged), and a
// reload through the running server (unchanged content: diff, in-use check, seeding, graph swap).
// Usage: pnpm --filter @gatehouse/management-api bench:role-config
// (ROLE_CONFIG_REPO=<rbac-config checkout>, default the shared snapshot; BENCH_BACKEND=pglite|pg; BENCH_RUNS)
import { join } from "node:path";
import { loadConfigDirectory } from "@gatehouse/role-config";
import { rbacConfigRepoDir } from "@gatehouse/role-config/testing";
import { openTestStore } from "@gatehouse/store/testing";
import { buildServer, loadRoleConfiguration } from "../src/index.js";

const repo = process.env["ROLE_CONFIG_REPO"] ?? rbacConfigRepoDir();
const backend = process.env["BENCH_BACKEND"] === "pg" ? "pg" : "pglite";
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const runs = Number(process.env["BENCH_RUNS"] ?? 5);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function timed(fn: () => unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

console.log(`repository ${repo}, store ${backend}, ${runs} runs (medians, ms)${(globalThis as { gc?: unknown }).gc ? "" : "; run with --expose-gc for the heap figure"}`);
for (const env of ["stage", "prod"] as const) {
  const dir = join(repo, "configs", env);
  const loads: number[] = [];
  for (let i = 0; i < runs; i++) loads.push(await timed(() => loadConfigDirectory(dir)));

  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const held = await loadRoleConfiguration("stage", dir);
  gc();
  const heldMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;

  const store = await openTestStore(backend === "pg" ? { name: "pg", databaseUrl } : { name: "pglite" });
  const firstSeed = await timed(() => store.roles.seedSystemRoles(held.systemRoles));
  const reseeds: number[] = [];
  for (let i = 0; i < runs; i++) reseeds.push(await timed(() => store.roles.seedSystemRoles(held.systemRoles)));

  const server = buildServer({ port: 0, host: "127.0.0.1", logLevel: "silent", roleConfigDir: dir }, { store });
  await server.start();
  const reloads: number[] = [];
  for (let i = 0; i < runs; i++) reloads.push(await timed(() => server.reloadRoleConfiguration()));
  await server.stop();
  await store.close();

  console.log(
    `${env}: ${held.systemRoles.length} roles | load ${median(loads).toFixed(0)} | held heap ${heldMb.toFixed(1)} MB (rss ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB) | ` +
      `seed empty store ${firstSeed.toFixed(0)} | re-seed unchanged ${median(reseeds).toFixed(0)} | reload ${median(reloads).toFixed(0)}`,
  );
}
