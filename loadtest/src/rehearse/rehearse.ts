// One rehearsal: the stage topology up, the data set loaded through the ingress, optionally k6's
// scripts at steady state, then the watched traffic (and k6's Check mix) while the faults run one at
// a time, the answers compared with the state after the run, the report written, and everything
// stopped again (also on failure and on Ctrl+C).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { validateManifest } from "../../shared/manifest.ts";
import { scaleOf } from "../../shared/model.ts";
import { machineDescription } from "../report.ts";
import { LOADTEST_ROOT, loadScenarioFile, runLoadTest } from "../run.ts";
import { bulkLoader } from "./bulk-load.ts";
import { runFaults } from "./faults.ts";
import { K6_SCRIPTS, runK6, startK6 } from "./k6.ts";
import { ProcessRegistry } from "./processes.ts";
import { computeFigures, type K6Summary, type RehearsalReport, renderRehearsal, verdicts } from "./report.ts";
import { startTopology, type Topology } from "./topology.ts";
import { Traffic } from "./traffic.ts";

export interface RehearseOptions {
  scale: string;
  fromSource: boolean;
  /** Check mix arrivals per second of the watched traffic. */
  checkRate: number;
  steadyMs: number;
  replicaPauseMs: number;
  checkpointIntervalSeconds: number;
  outDir: string;
  outName: string;
  command: string;
  /** Principals and hosts written straight into the store (`gatehouse import-hosts`) instead of a request each. */
  bulkLoad: boolean;
  /** Run the Node driver's scenarios through the ingress at steady state (results/<name>-node-driver.md). */
  nodeDriver: boolean;
  /** k6 binary: its scripts at steady state, and its Check mix during the faults. */
  k6?: { binary: string; duration: string; rate: number };
  log: (line: string) => void;
}

function describeTopology(t: Topology): RehearsalReport["topology"] {
  const port = (url: string): string => `127.0.0.1:${new URL(url).port}`;
  return [
    { name: "haproxy", endpoint: t.ingressGrpc, role: "ingress: routes rendered from infra's PUBLIC_ROUTES; gRPC (application/grpc, h2c) to the engines' gRPC ports" },
    ...t.managementApis.map((a) => ({ name: a.name, endpoint: port(a.readyUrl), role: "management API (`/api/rbac/`, `/console/`), writes to the primary" })),
    ...t.engines.map((a) => ({ name: a.name, endpoint: port(a.readyUrl), role: "authz-engine (HTTP port; gRPC beside it): snapshots and checkpoints from the replica, change feed from the primary" })),
    { name: t.cache.name, endpoint: port(t.cache.readyUrl), role: "workspace cache on Redis (in-cluster, not behind the ingress)" },
    { name: "postgres primary", endpoint: port(t.databaseUrl), role: "the store (DATABASE_URL)" },
    { name: "postgres replica", endpoint: port(t.databaseReadUrl), role: "streaming replica made with pg_basebackup (the engines' DATABASE_READ_URL)" },
    { name: "redis", endpoint: `127.0.0.1:${t.redis.port}`, role: "the workspace cache's Redis (REDIS_URL)" },
  ];
}

export async function rehearse(o: RehearseOptions): Promise<RehearsalReport> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gatehouse-rehearsal-"));
  // Postgres runs as its own user and must reach its directories.
  chmodSync(dir, 0o755);
  const registry = new ProcessRegistry();
  const interrupted = (signal: NodeJS.Signals): void => {
    o.log(`${signal}: stopping everything the rehearsal started`);
    void registry.stopAll().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  let failed = true;
  try {
    const loadAverageStart = os.loadavg()[0] ?? 0;
    const file = loadScenarioFile();
    const topo = await startTopology(registry, { dir, fromSource: o.fromSource, checkpointIntervalSeconds: o.checkpointIntervalSeconds, log: o.log });
    const dataDir = path.join(dir, "data");
    const g0 = performance.now();
    const driverRun = {
      scale: o.scale,
      dataDir,
      appDb: topo.appDatabaseUrl,
      external: { httpUrl: topo.ingressUrl, grpcTarget: topo.ingressGrpc },
      smoke: false,
      fresh: false,
      concurrency: 64,
      outDir: o.outDir,
      outName: `${o.outName}-node-driver`,
      command: o.command,
      showProgress: false,
      log: o.log,
      ...(o.bulkLoad ? { bulk: bulkLoader({ registry, dir, databaseUrl: topo.databaseUrl, orgId: file.org, fromSource: o.fromSource, env: topo.commonEnv }) } : {}),
    };
    await runLoadTest({ ...driverRun, generateOnly: true });
    const generateSeconds = (performance.now() - g0) / 1000;
    // The Node driver's scenarios through the ingress at steady state (the data is there: it only measures).
    // Its verdicts are its own report's; a failure there must not cost the faults' run.
    if (o.nodeDriver)
      await runLoadTest({ ...driverRun, generateOnly: false }).catch((error: unknown) => o.log(`Node driver scenarios failed: ${error instanceof Error ? error.message : String(error)}`));
    const manifestPath = path.join(dataDir, "manifest.json");
    const manifest = validateManifest(JSON.parse(readFileSync(manifestPath, "utf8")));

    const k6: K6Summary[] = [];
    const k6Env = o.k6 ? { MANIFEST: manifestPath, GRPC_TARGET: topo.ingressGrpc, HTTP_URL: topo.ingressUrl, DURATION: o.k6.duration, RATE: String(o.k6.rate) } : undefined;
    if (o.k6 && k6Env) {
      for (const script of K6_SCRIPTS) {
        o.log(`k6 (steady state): ${script}`);
        k6.push(await runK6(registry, o.k6.binary, script, k6Env, dir, "steady state, no fault"));
      }
    }

    const traffic = new Traffic({
      file,
      manifest,
      ingressUrl: topo.ingressUrl,
      ingressGrpc: topo.ingressGrpc,
      cacheUrl: topo.cacheUrl,
      checkRate: o.checkRate,
      runId: `rehearsal-${Date.now().toString(36)}`,
    });
    traffic.start();
    // k6's Check mix through the faults: started with a long duration and interrupted when they end.
    const duringFaults = o.k6 && k6Env ? startK6(registry, o.k6.binary, "check-mix.ts", { ...k6Env, DURATION: "2h" }, dir, "during the faults") : undefined;
    const faults = await runFaults(topo, { steadyMs: o.steadyMs, replicaPauseMs: o.replicaPauseMs, now: () => traffic.now(), log: o.log });
    if (duringFaults) k6.push(await duringFaults.interrupt());
    const endMs = traffic.now();
    const result = await traffic.stop();
    const figures = computeFigures(result.samples, faults, endMs);
    const { samples: _samples, writes, ...rest } = result;
    const report: RehearsalReport = {
      date: new Date().toISOString().slice(0, 10),
      machine: machineDescription(),
      loadAverageStart,
      loadAverageEnd: os.loadavg()[0] ?? 0,
      command: o.command,
      scale: o.scale,
      hosts: scaleOf(file, o.scale).hosts,
      checkRate: o.checkRate,
      topology: describeTopology(topo),
      generateSeconds,
      load: o.bulkLoad ? "bulk" : "api",
      figures,
      traffic: { ...rest, writes: writes.length },
      k6,
      verdicts: verdicts(figures, result),
    };
    mkdirSync(o.outDir, { recursive: true });
    writeFileSync(path.join(o.outDir, `${o.outName}.json`), JSON.stringify(report, null, 2));
    writeFileSync(path.join(o.outDir, `${o.outName}.md`), renderRehearsal(report));
    failed = false;
    return report;
  } finally {
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
    await registry.stopAll();
    if (failed) o.log(`rehearsal failed; the processes' logs are kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

export const REHEARSAL_RESULTS = path.join(LOADTEST_ROOT, "results");
