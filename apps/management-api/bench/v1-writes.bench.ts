// A v1 role write (dual write of its v2 bindings + audit row + parity upkeep) against a v2 role
// write, side by side in one run: each round updates a custom role bound to a group through
// PUT /api/rbac/v1/roles/{uuid}/ in a v1-mode organisation and through PUT /api/rbac/v2/roles/{id}/
// in a v2-mode one (alternating, so both see the same machine), then prints p50/p99 and ratios.
// Usage: pnpm --filter @gatehouse/management-api bench:v1-writes (BENCH_BACKEND=pglite|pg, BENCH_ROUNDS)
import { encodeIdentityHeader } from "@gatehouse/auth";
import { openTestStore } from "@gatehouse/store/testing";
import { ascending, percentile } from "@gatehouse/telemetry";
import { buildServer, loadRoleConfiguration } from "../src/index.js";

const backend = process.env["BENCH_BACKEND"] === "pglite" ? "pglite" : "pg";
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 60);
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

const store = await openTestStore(backend === "pg" ? { name: "pg", databaseUrl } : { name: "pglite" });
const server = buildServer({ port: 0, host: "127.0.0.1", logLevel: "silent", readCacheBytes: 0 }, { store, roleConfiguration: await loadRoleConfiguration("stage") });
const base = `http://127.0.0.1:${(await server.start()).port}`;
const headers = (org: string) => ({ "x-rh-identity": encodeIdentityHeader({ orgId: org, userId: `${org}-admin`, isOrgAdmin: true }), "content-type": "application/json" });

async function call(method: string, path: string, org: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(base + path, { method, headers: headers(org), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const PERMISSIONS = [["inventory:hosts:read"], ["inventory:hosts:read", "patch:system:read"]];
const v1Access = (i: number) => PERMISSIONS[i % 2]!.map((permission) => ({ permission, resourceDefinitions: [] }));
const v2Permissions = (i: number) =>
  PERMISSIONS[i % 2]!.map((p) => {
    const [application, resource_type, operation] = p.split(":");
    return { application, resource_type, operation };
  });

// v1 organisation: a group holding a custom role, written through v1.
const v1Group = (await call("POST", "/api/rbac/v1/groups/", "bench-v1", { name: "g" })).json.uuid;
const v1Role = (await call("POST", "/api/rbac/v1/roles/", "bench-v1", { name: "r", access: v1Access(0) })).json.uuid;
await call("POST", `/api/rbac/v1/groups/${v1Group}/roles/`, "bench-v1", { roles: [v1Role] });
// v2 organisation: the same through v2 (its first v2 write switches it to v2).
const v2Group = (await call("POST", "/api/rbac/v1/groups/", "bench-v2", { name: "g" })).json.uuid;
const v2Role = (await call("POST", "/api/rbac/v2/roles/", "bench-v2", { name: "r", description: "", permissions: v2Permissions(0) })).json.id;
const defaultWs = (await call("GET", "/api/rbac/v2/workspaces/?type=default", "bench-v2")).json.data[0].id;
await call("POST", "/api/rbac/v2/role-bindings:batchCreate/", "bench-v2", {
  requests: [{ resource: { id: defaultWs, type: "workspace" }, subject: { id: v2Group, type: "group" }, role: { id: v2Role } }],
});

const v1: number[] = [];
const v2: number[] = [];
for (let i = 1; i <= rounds; i++) {
  let t = performance.now();
  await call("PUT", `/api/rbac/v1/roles/${v1Role}/`, "bench-v1", { name: "r", access: v1Access(i) });
  v1.push(performance.now() - t);
  t = performance.now();
  await call("PUT", `/api/rbac/v2/roles/${v2Role}/`, "bench-v2", { name: "r", description: "", permissions: v2Permissions(i) });
  v2.push(performance.now() - t);
}
const a = ascending(v1);
const b = ascending(v2);
const row = (name: string, s: number[]) => `${name.padEnd(44)} p50 ${percentile(s, 50).toFixed(1).padStart(7)} ms  p99 ${percentile(s, 99).toFixed(1).padStart(7)} ms`;
console.log(`backend ${backend}, ${rounds} rounds each, alternating`);
console.log(row("v1 PUT /roles/{uuid}/ (dual write + parity)", a));
console.log(row("v2 PUT /roles/{id}/", b));
console.log(`ratio v1/v2: p50 ${(percentile(a, 50) / percentile(b, 50)).toFixed(2)}x, p99 ${(percentile(a, 99) / percentile(b, 99)).toFixed(2)}x`);
await server.stop();
await store.close();
