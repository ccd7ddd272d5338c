// Command line: generate (data only), drive (full run), smoke (small scale, seconds).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { runFailures } from "./report.ts";
import { REHEARSAL_RESULTS, rehearse } from "./rehearse/rehearse.ts";
import { LOADTEST_ROOT, runLoadTest, type RunOptions } from "./run.ts";

const DEFAULT_PG = "postgres://postgres@127.0.0.1:5432/test";

/** The run owns a database of its own next to DATABASE_URL's, never the shared test database. */
function ownDatabase(base: string, scale: string): string {
  const url = new URL(base);
  url.pathname = `/gatehouse_loadtest_${scale.toLowerCase()}`;
  return url.toString();
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("must be a non-negative integer");
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("must be a positive integer");
  return n;
}

interface Flags {
  scale: string;
  dataDir?: string;
  store: "postgres" | "pglite";
  databaseUrl?: string;
  appDb?: string;
  httpUrl?: string;
  grpcTarget?: string;
  fresh: boolean;
  concurrency: number;
  out: string;
  name?: string;
  progress: boolean;
}

function options(flags: Flags, extra: Pick<RunOptions, "smoke" | "generateOnly">): RunOptions {
  const external = flags.httpUrl && flags.grpcTarget ? { httpUrl: flags.httpUrl, grpcTarget: flags.grpcTarget } : undefined;
  if ((flags.httpUrl === undefined) !== (flags.grpcTarget === undefined)) throw new Error("--http-url and --grpc-target go together");
  const databaseUrl = flags.store === "postgres" ? (flags.databaseUrl ?? ownDatabase(process.env["DATABASE_URL"] ?? DEFAULT_PG, flags.scale)) : undefined;
  return {
    scale: flags.scale,
    dataDir: path.resolve(flags.dataDir ?? path.join(LOADTEST_ROOT, ".data", `${flags.scale}-${flags.store}`)),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(flags.appDb ? { appDb: flags.appDb } : {}),
    ...(external ? { external } : {}),
    fresh: flags.fresh,
    concurrency: flags.concurrency,
    outDir: path.resolve(flags.out),
    outName: flags.name ?? `${extra.smoke ? "smoke" : "full"}-${flags.scale}`,
    command: `pnpm --filter @gatehouse/loadtest ${extra.smoke ? "smoke" : extra.generateOnly ? "generate-data" : "drive"} ${process.argv.slice(3).join(" ")}`.trim(),
    showProgress: flags.progress && process.stderr.isTTY === true,
    log: (line) => console.error(line),
    ...extra,
  };
}

function common(command: Command, defaultScale: string, defaultStore: "postgres" | "pglite"): Command {
  return command
    .option("--scale <name>", "data scale (smoke, 1k, 10k, 100k, 1M)", defaultScale)
    .option("--data-dir <dir>", "generator state, manifest and PGlite files (default loadtest/.data/<scale>-<store>)")
    .option("--store <kind>", "Gatehouse store for the spawned server: postgres | pglite", defaultStore)
    .option("--database-url <url>", "Postgres for the store and the app table (default: DATABASE_URL's server, database gatehouse_loadtest_<scale>)")
    .option("--app-db <url>", "application table: postgres://… or pglite:<dir>|memory")
    .option("--http-url <url>", "use a running stack: management API base URL")
    .option("--grpc-target <host:port>", "use a running stack: authz-engine gRPC address")
    .option("--fresh", "delete the generator state (and the run's own database) first", false)
    .option("--concurrency <n>", "ReportResource calls in flight while loading hosts", positiveInt, 64)
    .option("--out <dir>", "where results JSON and Markdown go", path.join(LOADTEST_ROOT, "results"))
    .option("--name <name>", "results file name (default full-<scale> / smoke-<scale>)")
    .option("--no-progress", "no progress bars");
}

const program = new Command("loadtest").description("Gatehouse load tests: data generator and Node driver for the k6 scenarios");

common(program.command("generate").description("load the deterministic data set (resumable)"), "100k", "postgres").action(async (flags: Flags) => {
  await runLoadTest(options(flags, { smoke: false, generateOnly: true }));
});

common(program.command("drive").description("generate if needed, then run every scenario and write the results table"), "100k", "postgres").action(async (flags: Flags) => {
  const report = await runLoadTest(options(flags, { smoke: false, generateOnly: false }));
  if (!report) return;
  const failures = runFailures(report, "full");
  console.log(`results written to ${flags.out}; targets ${report.ratios.targetsMet ? "met" : "NOT met"}`);
  if (failures.length > 0) throw new Error(`run FAILED:\n  ${failures.join("\n  ")}`);
});

common(program.command("smoke").description("small scale, short durations, throwaway data and database (CI)"), "smoke", "postgres").action(async (flags: Flags) => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gatehouse-loadtest-"));
  try {
    const databaseUrl = flags.store === "postgres" ? (flags.databaseUrl ?? ownDatabase(process.env["DATABASE_URL"] ?? DEFAULT_PG, `smoke_${process.pid}`)) : undefined;
    const run = options({ ...flags, dataDir: flags.dataDir ?? tmp, ...(databaseUrl ? { databaseUrl } : {}) }, { smoke: true, generateOnly: false });
    const own = flags.databaseUrl === undefined;
    const report = await runLoadTest({ ...run, fresh: own, dropDatabaseAfter: own });
    const failures = report ? runFailures(report, "smoke") : [];
    if (failures.length > 0) throw new Error(`smoke run FAILED:\n  ${failures.join("\n  ")}`);
    console.log("smoke run passed");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

interface RehearseFlags {
  scale: string;
  fromSource: boolean;
  checkRate: number;
  steady: number;
  replicaPause: number;
  checkpointInterval: number;
  nodeDriver: boolean;
  apiLoad: boolean;
  k6?: string;
  k6Duration: string;
  k6Rate: number;
  out: string;
  name?: string;
}

program
  .command("rehearse")
  .description("the stage topology as separate processes behind HAProxy, the data set, faults one at a time under load, and a report")
  .option("--scale <name>", "data scale (1k, 10k, 100k, ...)", "1k")
  .option("--from-source", "run the apps' TypeScript sources (nothing built) instead of dist/", false)
  .option("--check-rate <n>", "watched Check mix arrivals per second", positiveInt, 100)
  .option("--steady <seconds>", "steady time before, between and after the faults", positiveInt, 20)
  .option("--replica-pause <seconds>", "how long the replica's WAL replay stays paused at least (0: until an engine was replaced on it and it is behind)", nonNegativeInt, 15)
  .option("--checkpoint-interval <seconds>", "the engines' checkpoint interval", positiveInt, 10)
  .option("--api-load", "load principals and hosts through the public APIs (a request each) instead of in bulk into the store", false)
  .option("--node-driver", "run the Node driver's scenarios through the ingress at steady state first", false)
  .option("--k6 <binary>", "run the k6 scripts at steady state and k6's Check mix through the faults")
  .option("--k6-duration <duration>", "each steady-state k6 script's duration", "1m")
  .option("--k6-rate <n>", "k6's arrival rate (check-mix, checkself-http)", positiveInt, 800)
  .option("--out <dir>", "where the report goes", REHEARSAL_RESULTS)
  .option("--name <name>", "report file name (default rehearsal-<scale>)")
  .action(async (flags: RehearseFlags) => {
    if (flags.k6 && !existsSync(flags.k6)) throw new Error(`no k6 binary at ${flags.k6}`);
    const report = await rehearse({
      scale: flags.scale,
      fromSource: flags.fromSource,
      checkRate: flags.checkRate,
      steadyMs: flags.steady * 1000,
      replicaPauseMs: flags.replicaPause * 1000,
      checkpointIntervalSeconds: flags.checkpointInterval,
      nodeDriver: flags.nodeDriver,
      bulkLoad: !flags.apiLoad,
      outDir: path.resolve(flags.out),
      outName: flags.name ?? `rehearsal-${flags.scale}`,
      command: `pnpm rehearse ${process.argv.slice(3).join(" ")}`.trim(),
      ...(flags.k6 ? { k6: { binary: flags.k6, duration: flags.k6Duration, rate: flags.k6Rate } } : {}),
      log: (line) => console.error(line),
    });
    const v = report.verdicts;
    console.log(`report written to ${path.join(path.resolve(flags.out), `${flags.name ?? `rehearsal-${flags.scale}`}.md`)}`);
    const failures = [...(v.noWrongAnswer ? [] : [`${report.traffic.wrongAnswers.length} wrong answers`]), ...(v.noLostWrite ? [] : [`${report.traffic.lostWrites.length} acknowledged writes lost`])];
    if (failures.length > 0) throw new Error(`rehearsal FAILED: ${failures.join("; ")}`);
  });

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
