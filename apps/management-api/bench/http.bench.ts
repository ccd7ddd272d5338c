// HTTP benchmark of the management API: reads/s and latency percentiles of the workspace and role
// lists at fixed concurrency over keep-alive connections, batchCreate of 100 bindings, and the
// role-binding list and by-subject reads of those 100 bindings.
// Usage: pnpm --filter @gatehouse/management-api bench
// (BENCH_BACKEND=pglite|pg, BENCH_SECONDS, BENCH_CONCURRENCY, BENCH_BATCH_ROUNDS, READ_CACHE_BYTES=0 to measure uncached reads)
import { Worker } from "node:worker_threads";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { openTestStore } from "@gatehouse/store/testing";
import { percentile } from "@gatehouse/telemetry";
import { buildServer, loadRoleConfiguration } from "../src/index.js";

const backend = process.env["BENCH_BACKEND"] === "pglite" ? "pglite" : "pg";
const seconds = Number(process.env["BENCH_SECONDS"] ?? 10);
const concurrency = Number(process.env["BENCH_CONCURRENCY"] ?? 16);
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const V2 = "/api/rbac/v2";

const store = await openTestStore(backend === "pg" ? { name: "pg", databaseUrl } : { name: "pglite" });
const readCacheBytes = Number(process.env["READ_CACHE_BYTES"] ?? 64 * 1024 * 1024);
const server = buildServer({ port: 0, host: "127.0.0.1", logLevel: "silent", readCacheBytes }, { store, roleConfiguration: await loadRoleConfiguration("stage") });
const { port } = await server.start();
const base = `http://127.0.0.1:${port}`;
const adminHeaders = { "x-rh-identity": encodeIdentityHeader({ orgId: "bench", userId: "bench-admin", isOrgAdmin: true }), "content-type": "application/json" };
const userHeaders = { "x-rh-identity": encodeIdentityHeader({ orgId: "bench", userId: "bench-user" }) };

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function load(name: string, path: string, headers: Record<string, string>): Promise<void> {
  const worker = new Worker(new URL("./load-worker.mjs", import.meta.url), { workerData: { url: base + path, headers, seconds, concurrency } });
  const result = await new Promise<{ latencies: number[]; errors: number; elapsed: number }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  await worker.terminate();
  const latencies = result.latencies.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(34)} ${(latencies.length / result.elapsed).toFixed(0).padStart(6)} req/s  p50 ${percentile(latencies, 50).toFixed(2)} ms  p99 ${percentile(latencies, 99).toFixed(2)} ms  errors ${result.errors}`,
  );
}

// Seed: 200 workspaces, 50 custom roles, 100 groups.
for (let i = 0; i < 200; i += 1) await call("POST", `${V2}/workspaces/`, adminHeaders, { name: `ws ${i}` });
for (let i = 0; i < 50; i += 1) {
  await call("POST", `${V2}/roles/`, adminHeaders, { name: `role ${i}`, permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] });
}
const groups: string[] = [];
for (let i = 0; i < 100; i += 1) groups.push((await call("POST", "/api/rbac/v1/groups/", adminHeaders, { name: `group ${i}` })).json.uuid);
const roleId = (await call("GET", `${V2}/roles/?name=role 0`, adminHeaders)).json.data[0].id as string;
await call("GET", `${V2}/workspaces/`, userHeaders);

console.log(`backend ${backend}, concurrency ${concurrency}, ${seconds} s per scenario, read cache ${readCacheBytes > 0 ? "on" : "off"}`);
await load("GET /workspaces/ (org admin)", `${V2}/workspaces/?limit=10`, adminHeaders);
await load("GET /workspaces/ (user, evaluator)", `${V2}/workspaces/?limit=10`, userHeaders);
await load("GET /roles/ (org admin)", `${V2}/roles/?limit=10`, adminHeaders);

// batchCreate(100): each round binds the 100 groups on a fresh workspace (100 new bindings).
const rounds = Number(process.env["BENCH_BATCH_ROUNDS"] ?? 30);
const batch: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  const ws = (await call("POST", `${V2}/workspaces/`, adminHeaders, { name: `batch ${round}` })).json.id as string;
  const requests = groups.map((id) => ({ resource: { id: ws, type: "workspace" }, subject: { id, type: "group" }, role: { id: roleId } }));
  const t0 = performance.now();
  const res = await call("POST", `${V2}/role-bindings:batchCreate/`, adminHeaders, { requests });
  batch.push(performance.now() - t0);
  if (res.status !== 201) throw new Error(`batchCreate answered ${res.status}: ${JSON.stringify(res.json)}`);
}
batch.sort((a, b) => a - b);
console.log(`POST role-bindings:batchCreate (100)  median ${percentile(batch, 50).toFixed(1)} ms  p99 ${percentile(batch, 99).toFixed(1)} ms  (${rounds} rounds)`);

// Role-binding reads on a workspace holding the last round's 100 bindings (plus inherited default access).
const bound = (await call("GET", `${V2}/workspaces/?name=batch ${rounds - 1}`, adminHeaders)).json.data[0].id as string;
await load("GET /role-bindings/ (100 bound)", `${V2}/role-bindings/?resource_type=workspace&resource_id=${bound}&limit=10`, adminHeaders);
await load("GET /role-bindings/by-subject/ (100)", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${bound}&limit=10`, adminHeaders);

await server.stop();
await store.close();
