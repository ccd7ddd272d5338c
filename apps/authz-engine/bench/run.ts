// Engine benchmark: server here, load generator in a child process (separate CPU). Compares Check
// with an empty unary handler on the same server (the transport floor), then measures a 100,000-host
// StreamedListObjects and commit-to-visible lag. Run: pnpm --filter @gatehouse/authz-engine bench
// BENCH_TRACING=1 switches OpenTelemetry tracing on (every call sampled) and exports the spans to
// a local collector process; unset, tracing is off as in a default deployment.
import { credentials, Metadata, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { Allowed, type CheckResponse, KesselInventoryServiceClient, KesselInventoryServiceService, type CheckRequest } from "@gatehouse/proto";
import { openStore } from "@gatehouse/store";
import { createSilentLogger, startTracing, type Tracing } from "@gatehouse/telemetry";
import { buildServer } from "../src/index.js";
import { percentile } from "@gatehouse/telemetry";
import { histogramDelta, lagHistogram } from "./stats.js";
import { ask as askHelper, forkHelper, rel } from "./fixture.js";

const HOSTS = Number(process.env["BENCH_HOSTS"] ?? 100_000);
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 4);
// Comma-separated subset of check,list,lag (default: all).
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "check,list,lag").split(","));
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
// A fixed schema so reruns reuse the seeded tuples (writes are idempotent); lag users are per run.
const schema = "bench_engine";

const cpuMs = (since: NodeJS.CpuUsage) => {
  const cpu = process.cpuUsage(since);
  return ((cpu.user + cpu.system) / 1000).toFixed(0);
};

/** Tracing on with an OTLP collector in a child process (BENCH_TRACING=1), or off. */
async function tracingForBench(): Promise<{ tracing: Tracing; spansExported(): Promise<number>; close(): void } | null> {
  if (process.env["BENCH_TRACING"] !== "1") return null;
  const collector = forkHelper("collector.ts");
  const next = <T>() => new Promise<T>((resolve) => collector.once("message", (m) => resolve(m as T)));
  const { endpoint } = await next<{ endpoint: string }>();
  const tracing = startTracing("authz-engine", { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
  return {
    tracing,
    async spansExported() {
      await tracing.shutdown();
      const answer = next<{ spans: number }>();
      collector.send("count");
      return (await answer).spans;
    },
    close: () => collector.kill(),
  };
}

async function main() {
  const traced = await tracingForBench();
  const store = await openStore({ databaseUrl, schema, pollIntervalMs: 1000 });
  const tenant = (await store.tenants.bootstrap("bench-org")).value;
  const ws = tenant.defaultWorkspaceId;
  const grant = [
    rel("rbac/role", "bench-role", "t_inventory_hosts_read", "rbac/principal", "*"),
    rel("rbac/role", "bench-role", "t_inventory_groups_read", "rbac/principal", "*"),
    rel("rbac/role_binding", "bench-binding", "t_role", "rbac/role", "bench-role"),
    rel("rbac/role_binding", "bench-binding", "t_subject", "rbac/principal", "redhat/bench-user"),
    rel("rbac/workspace", ws, "t_binding", "rbac/role_binding", "bench-binding"),
  ];
  await store.relationships.write("bench-org", { touch: grant });
  for (let start = 0; start < HOSTS; start += 10_000) {
    const batch = Array.from({ length: Math.min(10_000, HOSTS - start) }, (_, i) => rel("hbi/host", `host-${String(start + i).padStart(7, "0")}`, "t_workspace", "rbac/workspace", ws));
    await store.relationships.write("bench-org", { touch: batch });
  }

  const floorResponse: CheckResponse = { allowed: Allowed.ALLOWED_TRUE };
  const floorDefinition = { Check: { ...KesselInventoryServiceService.check, path: "/bench.Floor/Check", originalName: "Check" } };
  const server = buildServer({
    host: "127.0.0.1",
    port: 0,
    metricsPort: 0,
    store,
    logger: createSilentLogger(),
    list: { defaultLimit: 1000, maxLimit: HOSTS },
    extraServices: [{ definition: floorDefinition, implementation: { Check: (_c: ServerUnaryCall<CheckRequest, CheckResponse>, cb: sendUnaryData<CheckResponse>) => cb(null, floorResponse) } }],
  });
  const { port, metricsPort } = await server.start();
  const client = forkHelper("client.ts");
  const ask = <T>(job: object): Promise<T> => askHelper<T>(client, job);

  const request: CheckRequest = {
    object: { resourceType: "host", resourceId: "host-0004242", reporter: { type: "hbi" } },
    relation: "view",
    subject: { resource: { resourceType: "principal", resourceId: "redhat/bench-user", reporter: { type: "rbac" } } },
  };
  console.log(`hosts=${HOSTS} duration=${SECONDS}s per cell, node ${process.version}, tracing ${traced ? "on (OTLP to a local collector)" : "off"}`);
  const results: Record<string, { perSecond: number; p50: number; p99: number; cpu: number }> = {};
  if (ONLY.has("check")) console.log("method  inflight  calls/s   p50 ms   p99 ms   server CPU µs/call");
  for (const concurrency of ONLY.has("check") ? [1, 16, 64] : []) {
    for (const path of ["floor", "check"] as const) {
      const cpu0 = process.cpuUsage();
      const r = await ask<{ calls: number; perSecond: number; p50: number; p99: number }>({ kind: "unary", path, concurrency, seconds: SECONDS, port, request });
      const cpu = process.cpuUsage(cpu0);
      const cpuPerCall = (cpu.user + cpu.system) / (r.calls + 200);
      results[`${path}@${concurrency}`] = { ...r, cpu: cpuPerCall };
      console.log(
        `${path.padEnd(7)} ${String(concurrency).padStart(8)} ${r.perSecond.toFixed(0).padStart(8)} ${r.p50.toFixed(3).padStart(8)} ${r.p99.toFixed(3).padStart(8)} ${cpuPerCall.toFixed(1).padStart(10)}`,
      );
    }
    const f = results[`floor@${concurrency}`]!;
    const c = results[`check@${concurrency}`]!;
    console.log(`  ratio check/floor @${concurrency}: throughput ${(f.perSecond / c.perSecond).toFixed(2)}x slower, p50 ${(c.p50 / f.p50).toFixed(2)}x, CPU/call ${(c.cpu / f.cpu).toFixed(2)}x`);
  }

  const listRequest = (limit: number) => ({
    objectType: { resourceType: "host", reporterType: "hbi" },
    relation: "view",
    subject: { resource: { resourceType: "principal", resourceId: "redhat/bench-user", reporter: { type: "rbac" } } },
    pagination: { limit },
  });
  for (let run = 0; ONLY.has("list") && run < 3; run++) {
    const cpu0 = process.cpuUsage();
    const one = await ask<{ count: number; firstMs: number; totalMs: number }>({ kind: "stream", port, request: listRequest(HOSTS) });
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `StreamedListObjects ${one.count} hosts in one stream (run ${run + 1}): first message ${one.firstMs.toFixed(1)} ms, end ${one.totalMs.toFixed(1)} ms, server CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`,
    );
  }
  // What clients do (pages of at most 1000 by contract, following tokens to the empty page). Run 1
  // follows a fresh commit, so its first page computes the lookup; later runs reuse it.
  const fresh = rel("hbi/host", `host-fresh-${process.pid}`, "t_workspace", "rbac/workspace", ws);
  for (let run = 0; ONLY.has("list") && run < 3; run++) {
    // Run 1 asks for the fresh commit (at_least_as_fresh), so the lookup cannot come from the cache.
    const consistency = run === 0 ? { atLeastAsFresh: { token: store.tokens.encode((await store.relationships.write("bench-org", { touch: [fresh] })).revision) } } : undefined;
    const cpu0 = process.cpuUsage();
    const walked = await ask<{ count: number; pages: number; ordered: boolean; firstMs: number; totalMs: number }>({
      kind: "walk",
      port,
      request: { ...listRequest(1000), ...(consistency ? { consistency } : {}) },
    });
    console.log(
      `StreamedListObjects ${walked.count} hosts in ${walked.pages} pages of 1000 (run ${run + 1}${run === 0 ? ", after a commit" : ""}): first message ${walked.firstMs.toFixed(1)} ms, end ${walked.totalMs.toFixed(1)} ms, server CPU ${cpuMs(cpu0)} ms${walked.ordered ? "" : " OUT OF ORDER"}`,
    );
  }

  if (ONLY.has("list")) await store.relationships.write("bench-org", { delete: [fresh] });

  // Commit-to-visible: write a grant through the store, then ONE Check carrying the write's token
  // (at_least_as_fresh): the engine waits until the revision is applied, then answers. Also read,
  // for the same writes, when the engine applied each revision (in-process, same clock) and the
  // engine's own commit-to-applied histogram (scraped from /metrics).
  const local = new KesselInventoryServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  const checkAt = (user: string, token: string) =>
    new Promise<number>((resolve, reject) =>
      local.check(
        {
          ...request,
          object: { resourceType: "workspace", resourceId: ws, reporter: { type: "rbac" } },
          subject: { resource: { resourceType: "principal", resourceId: `redhat/${user}`, reporter: { type: "rbac" } } },
          consistency: { atLeastAsFresh: { token } },
        },
        new Metadata(),
        (e, r) => (e ? reject(e) : resolve(r.allowed)),
      ),
    );
  const grantTo = (user: string) => store.relationships.write("bench-org", { touch: [rel("rbac/role_binding", "bench-binding", "t_subject", "rbac/principal", `redhat/${user}`)] });
  const scrape = async () => lagHistogram(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
  if (ONLY.has("lag")) {
    for (let i = 0; i < 20; i++) await checkAt(`lag-warm-${process.pid}-${i}`, (await grantTo(`lag-warm-${process.pid}-${i}`)).token); // warm-up
    const before = await scrape();
    const visible: number[] = [];
    const appliedAfterReturn: number[] = [];
    for (let i = 0; i < 200; i++) {
      const user = `lag-${process.pid}-${i}`;
      const written = await grantTo(user);
      const returned = performance.now();
      const allowed = await checkAt(user, written.token);
      const answered = performance.now();
      if (allowed !== Allowed.ALLOWED_TRUE) throw new Error(`Check with the write's token did not see write ${written.revision}`);
      visible.push(answered - returned);
      appliedAfterReturn.push(server.appliedAt(written.revision)! - returned);
    }
    const engine = histogramDelta(before, await scrape());
    visible.sort((a, b) => a - b);
    appliedAfterReturn.sort((a, b) => a - b);
    console.log(
      `commit-to-visible over ${visible.length} writes (write returned -> Check at_least_as_fresh answered): p50 ${percentile(visible, 50).toFixed(2)} ms, p99 ${percentile(visible, 99).toFixed(2)} ms, max ${visible.at(-1)!.toFixed(2)} ms`,
    );
    console.log(
      `  engine applied the revision, relative to the write returning (in-process, negative = before): p50 ${percentile(appliedAfterReturn, 50).toFixed(2)} ms, p99 ${percentile(appliedAfterReturn, 99).toFixed(2)} ms`,
    );
    console.log(
      `  gatehouse_engine_feed_apply_lag_seconds (commit_at -> applied, ${engine.count} observations): p50 ${(engine.quantile(0.5) * 1000).toFixed(2)} ms, p99 ${(engine.quantile(0.99) * 1000).toFixed(2)} ms, mean ${((engine.sum / engine.count) * 1000).toFixed(2)} ms (bucket-interpolated)`,
    );
  }

  local.close();
  client.kill();
  if (traced) {
    console.log(`tracing on: the collector received ${await traced.spansExported()} spans`);
    traced.close();
  }
  await server.stop();
  await store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
