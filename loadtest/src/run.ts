// One full run: start (or reach) a stack, generate the data (resumable), run the scenarios and
// write results/<name>.json and .md. Used by the CLI and by the smoke test.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scaleOf, validateScenarioFile, type ScenarioFile } from "../shared/model.ts";
import { ensureDatabase, openAppDb } from "./app-db.ts";
import { runScenarios, type Log } from "./driver.ts";
import { type GenerateOptions, generate } from "./generate.ts";
import { connectInventory } from "./grpc-client.ts";
import { connectionFailure, managementClient } from "./http-client.ts";
import { progress } from "./pool.ts";
import { machineDescription, renderMarkdown, type RunReport } from "./report.ts";
import { spawnServer, type StackEndpoints } from "./server.ts";

export const LOADTEST_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function loadScenarioFile(file = path.join(LOADTEST_ROOT, "scenarios/scenarios.json")): ScenarioFile {
  return validateScenarioFile(JSON.parse(readFileSync(file, "utf8")));
}

export interface RunOptions {
  scale: string;
  dataDir: string;
  /** Postgres for the server's store (and the app table unless appDb is set); PGlite when absent. */
  databaseUrl?: string;
  /** `postgres://…` or `pglite:<dir>|memory`; default: the database above, else PGlite in dataDir. */
  appDb?: string;
  /** An already running stack; the driver then spawns nothing and reports no server CPU. */
  external?: { httpUrl: string; grpcTarget: string };
  smoke: boolean;
  fresh: boolean;
  /** Throwaway runs (smoke): drop the run's database afterwards. */
  dropDatabaseAfter?: boolean;
  generateOnly: boolean;
  concurrency: number;
  outDir: string;
  outName: string;
  command: string;
  showProgress: boolean;
  log: Log;
  /** Principals and hosts straight into the store instead of a request each (see generate). */
  bulk?: GenerateOptions["bulk"];
}

export async function dropDatabase(url: string): Promise<void> {
  const pg = (await import("pg")).default;
  const target = new URL(url);
  const name = target.pathname.slice(1);
  target.pathname = "/postgres";
  const client = new pg.Client({ connectionString: target.toString() });
  client.on("error", () => undefined); // a dropped connection fails the query below instead of the process
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name.replace(/[^a-z0-9_]/g, "")} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** A running stack the driver was pointed at must answer before anything is generated or measured. */
async function requireReachable(stack: { httpUrl: string; grpcTarget: string }): Promise<void> {
  const hint = "is the stack running (pnpm start)? Without --http-url and --grpc-target the driver starts its own server.";
  const livez = `${stack.httpUrl.replace(/\/$/, "")}/livez`;
  await fetch(livez).catch((error: unknown) => {
    throw new Error(`cannot reach the management API at ${stack.httpUrl} (${connectionFailure(error)}): ${hint}`);
  });
  const grpc = connectInventory(stack.grpcTarget);
  try {
    await grpc.health();
  } catch (error) {
    throw new Error(`cannot reach the authz-engine at ${stack.grpcTarget} (${error instanceof Error ? error.message : String(error)}): ${hint}`);
  } finally {
    grpc.close();
  }
}

export async function runLoadTest(o: RunOptions): Promise<RunReport | undefined> {
  const file = loadScenarioFile();
  const scale = scaleOf(file, o.scale);
  if (o.external) await requireReachable(o.external);
  if (o.fresh) {
    rmSync(o.dataDir, { recursive: true, force: true });
    if (o.databaseUrl && !o.external) await dropDatabase(o.databaseUrl);
  }
  mkdirSync(o.dataDir, { recursive: true });
  // Against a running stack the run's own database still holds the application table (unless --app-db).
  if (o.databaseUrl && !(o.external && o.appDb)) await ensureDatabase(o.databaseUrl);
  const started = performance.now();
  const server = o.external ? undefined : await spawnServer({ dataDir: path.join(o.dataDir, "store"), ...(o.databaseUrl ? { databaseUrl: o.databaseUrl } : {}) });
  const stack: StackEndpoints = server ?? { ...o.external!, pid: undefined };
  if (server) o.log(`server ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const appDbUrl = o.appDb ?? o.databaseUrl ?? `pglite:${path.join(o.dataDir, "app-db")}`;
  const appDb = await openAppDb(appDbUrl);
  const grpc = connectInventory(stack.grpcTarget);
  try {
    const http = managementClient(stack.httpUrl, file.org);
    const t0 = performance.now();
    const manifest = await generate({
      scenarios: file,
      scaleName: o.scale,
      dataDir: o.dataDir,
      domain: "redhat",
      http,
      grpc,
      appDb,
      progress: progress(o.showProgress),
      log: o.log,
      concurrency: o.concurrency,
      ...(o.bulk ? { bulk: o.bulk } : {}),
    });
    o.log(`data ready (${scale.hosts} hosts, ${manifest.workspaceIds.length} workspaces) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    if (o.generateOnly) return undefined;
    const loadAverage = os.loadavg()[0] ?? 0;
    const { scenarios, ratios } = await runScenarios({ file, manifest, grpc, http, appDb, smoke: o.smoke }, stack.pid, o.log);
    const report: RunReport = {
      date: new Date().toISOString().slice(0, 10),
      machine: machineDescription(),
      loadAverage,
      command: o.command,
      scale: o.scale,
      hosts: scale.hosts,
      store: o.external ? "external stack" : o.databaseUrl ? "Postgres" : "embedded PGlite",
      appDb: appDb.kind === "postgres" ? "Postgres" : "PGlite",
      scenarios,
      ratios,
    };
    mkdirSync(o.outDir, { recursive: true });
    writeFileSync(path.join(o.outDir, `${o.outName}.json`), JSON.stringify(report, null, 2));
    writeFileSync(path.join(o.outDir, `${o.outName}.md`), renderMarkdown(report));
    return report;
  } catch (error) {
    if (server) o.log(`server output (tail):\n${server.log().slice(-3000)}`);
    throw error;
  } finally {
    grpc.close();
    await appDb.close();
    await server?.stop();
    if (o.dropDatabaseAfter && o.databaseUrl && !o.external) await dropDatabase(o.databaseUrl);
  }
}
