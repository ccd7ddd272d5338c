// Fresh Checks from one client while another source holds the gRPC port's whole connection table
// with header blocks that never end (and reopens each one the engine closes). The engine runs with
// its default limits (10,000 connections) but a long headers deadline (see HEADERS_TIMEOUT_MS); the attacker is a separate
// process on 127.0.0.2, the checking client on 127.0.0.1 (distinct loopback addresses are distinct
// sources). Reports the share of Checks that succeed and their latency, on one client connection
// and on a new connection per Check, before and during the flood.
// Run: pnpm --filter @gatehouse/authz-engine bench:flood   (BENCH_FLOOD_CONNECTIONS, BENCH_FLOOD_CHECKS)
import { credentials, Metadata } from "@grpc/grpc-js";
import { type CheckRequest, KesselInventoryServiceClient } from "@gatehouse/proto";
import { openStore } from "@gatehouse/store";
import { createSilentLogger, percentile } from "@gatehouse/telemetry";
import { buildServer } from "../src/index.js";
import { ask, forkHelper, seedReadableHosts } from "./fixture.js";

const CONNECTIONS = Number(process.env["BENCH_FLOOD_CONNECTIONS"] ?? 10_000);
const CHECKS = Number(process.env["BENCH_FLOOD_CHECKS"] ?? 5000);
const FRESH_CLIENTS = Number(process.env["BENCH_FLOOD_FRESH_CLIENTS"] ?? 500);
/**
 * The engine's headers deadline. Its default (20 s) closes the attacker's connections before a
 * loaded machine has opened 10,000 of them; a long one here keeps the whole table held, so the
 * figure is the one at the cap.
 */
const HEADERS_TIMEOUT_MS = Number(process.env["BENCH_FLOOD_HEADERS_TIMEOUT_MS"] ?? 600_000);

const store = await openStore({ pollIntervalMs: 50 });
const ws = await seedReadableHosts(store, "bench-flood", "alice", ["host-0"]);
const engine = buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, store, logger: createSilentLogger(), connections: { headersTimeoutMs: HEADERS_TIMEOUT_MS } });
const { port, metricsPort } = await engine.start();
const check: CheckRequest = {
  object: { resourceType: "workspace", resourceId: ws, reporter: { type: "rbac" } },
  relation: "view",
  subject: { resource: { resourceType: "principal", resourceId: "redhat/alice", reporter: { type: "rbac" } } },
};

function once(client: KesselInventoryServiceClient): Promise<boolean> {
  // A deadline so a Check the engine never answers counts as failed instead of hanging the bench.
  const deadline = Date.now() + 5000;
  return new Promise((resolve) => client.check(check, new Metadata(), { deadline }, (error) => resolve(!error)));
}

interface Figures {
  ok: number;
  total: number;
  p50: number;
  p99: number;
}

async function measure(checks: number, clientFor: (i: number) => KesselInventoryServiceClient, closeEach: boolean): Promise<Figures> {
  const latencies: number[] = [];
  let ok = 0;
  for (let i = 0; i < checks; i++) {
    const client = clientFor(i);
    const t0 = performance.now();
    if (await once(client)) ok++;
    latencies.push(performance.now() - t0);
    if (closeEach) client.close();
  }
  latencies.sort((a, b) => a - b);
  return { ok, total: checks, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const fresh = () => new KesselInventoryServiceClient(`127.0.0.1:${port}`, credentials.createInsecure(), { "grpc.use_local_subchannel_pool": 1 });
const shared = fresh();
const line = (label: string, f: Figures) => console.log(`${label.padEnd(46)} ${f.ok}/${f.total} ok (${((100 * f.ok) / f.total).toFixed(2)} %)  p50 ${f.p50.toFixed(2)} ms  p99 ${f.p99.toFixed(2)} ms`);

for (let i = 0; i < 500; i++) await once(shared);
line("no flood, one connection", await measure(CHECKS, () => shared, false));
line("no flood, a new connection per Check", await measure(FRESH_CLIENTS, fresh, true));

const attacker = forkHelper("flood-attacker.ts");
const held = await ask<{ open: number }>(attacker, { job: { port, from: "127.0.0.2", count: CONNECTIONS } });
console.log(`attacker holds ${held.open} connections with unfinished header blocks (127.0.0.2)`);
line("flood, one connection", await measure(CHECKS, () => shared, false));
line("flood, a new connection per Check", await measure(FRESH_CLIENTS, fresh, true));
const stats = await ask<{ open: number; closedByEngine: number }>(attacker, { stats: true });
const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
const closed = metrics.split("\n").filter((l) => l.startsWith("gatehouse_engine_grpc_connections_closed_total") || l.startsWith("gatehouse_engine_grpc_connections_refused_total"));
console.log(`attacker: ${stats.open} open at the end, ${stats.closedByEngine} closed by the engine meanwhile (and reopened)`);
for (const l of closed) console.log(`  ${l}`);
await ask(attacker, { stop: true });
shared.close();
await engine.stop();
await store.close();
