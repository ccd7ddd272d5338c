// Scale benchmark: a skewed many-tenant data set (bench/scale-data.ts) in Postgres, then what a
// replica start and a Check cost at that size: memory per relationship, snapshot load (time to
// ready from the snapshot), checkpoint write/load time and size, time to ready from the checkpoint,
// Check p50/p99 over distinct queries, the feed's apply rate, and listing the largest tenant's hosts.
// Run: pnpm --filter @gatehouse/authz-engine bench:scale   (SCALE_RELATIONSHIPS=10000000 for 10M;
// SCALE_SEED_ONLY=1 seeds the data set and stops; above 2M the seeding uses COPY, see SEED_COPY)
// The data is seeded once per size into schema bench_scale_<size> and reused by later runs.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { check, lookupResources, type Relationship, type RelationshipGraph } from "@gatehouse/evaluator";
import { compileRoleModel } from "@gatehouse/role-config";
import { openStore } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { decodeCheckpoint, fileCheckpointStore, schemaHash } from "../src/graph/checkpoint.js";
import { EngineGraph } from "../src/graph/engine-graph.js";
import type { GraphSource } from "../src/graph/source.js";
import { storeGraphSource } from "../src/graph/store-source.js";
import { distinctQueries, scaleRelationships, userId, workspaceId, type Query } from "./scale-data.js";
import { percentile } from "@gatehouse/telemetry";

const SIZE = Number(process.env["SCALE_RELATIONSHIPS"] ?? 1_000_000);
const QUERIES = Number(process.env["SCALE_QUERIES"] ?? 40_000);
/** Feed measurement: commits of FEED_BATCH new hosts, then as many deleting them again. */
const FEED_COMMITS = 50;
const FEED_BATCH = 1000;
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const ORG = "scale-org";
/** Checkpoints go to this directory and are kept (default: a temporary directory, removed at the end). */
const KEEP_DIR = process.env["SCALE_CHECKPOINT_DIR"];
/** SCALE_FROM_CHECKPOINT=1: only start from the newest checkpoint in SCALE_CHECKPOINT_DIR (in a fresh process: its peak RSS is the load's) and check. */
const FROM_CHECKPOINT = process.env["SCALE_FROM_CHECKPOINT"] === "1";
/**
 * SCALE_CHECKPOINT_THREADS=0: starts read the checkpoint file with one thread and check its CRC-32
 * on the main thread before decoding (the path before the threaded read), for a side-by-side run.
 */
const CHECKPOINT_THREADS = process.env["SCALE_CHECKPOINT_THREADS"] !== "0";
/** SCALE_SKIP_EXTRAS=1: no list of the largest tenant's hosts and no feed measurement (long at 100M). */
const SKIP_EXTRAS = process.env["SCALE_SKIP_EXTRAS"] === "1";
/** Peak resident set of this process so far (bytes). */
const peakRss = () => process.resourceUsage().maxRSS * 1024;
/**
 * Seed with COPY (`psql` on PATH) instead of the store's writes: the relationships go straight into
 * `gh_tuples` (no change feed rows; the snapshot is what a start reads), with the table's primary key
 * and index dropped during the copy and built again after it. Default above 2M relationships
 * (SCALE_SEED_COPY=0/1 to choose).
 */
const SEED_COPY = process.env["SCALE_SEED_COPY"] === undefined ? SIZE > 2_000_000 : process.env["SCALE_SEED_COPY"] === "1";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const memory = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
// CPU time of this process next to wall time: on a shared machine the wall time includes waiting
// for a core; the CPU time is what the work costs (the database's own CPU is not in it).
const cpuSince = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const timed = (wallMs: number, cpuMs: number) => `${seconds(wallMs)} (CPU ${seconds(cpuMs)})`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const model = compileRoleModel("stage");
const logger = createSilentLogger();

function psql(args: string[], input?: (stdin: NodeJS.WritableStream) => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("psql", [databaseUrl, "-v", "ON_ERROR_STOP=1", "-q", ...args], { stdio: [input ? "pipe" : "ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`psql exited with ${code}`))));
    if (input) input(child.stdin!).then(() => child.stdin!.end(), reject);
  });
}

function psqlOutput(sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("psql", [databaseUrl, "-v", "ON_ERROR_STOP=1", "-Atqc", sql], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`psql exited with ${code}`))));
  });
}

const runStarted = performance.now();
let stepStarted = performance.now();
let stepCount = 0;
/** A progress line for long runs: count, rate since the last line and overall, elapsed, RSS, load. */
function progress(what: string, count: number): void {
  const now = performance.now();
  const rate = (count - stepCount) / ((now - stepStarted) / 1000);
  console.log(
    `  ${new Date().toISOString()} ${what} ${count.toLocaleString("en")} (${Math.round(rate).toLocaleString("en")}/s; ${seconds(now - runStarted)} in; RSS ${mib(process.memoryUsage.rss())}; load ${loadavg()[0]!.toFixed(1)})`,
  );
  stepStarted = now;
  stepCount = count;
}

async function seedByCopy(schema: string, relationships: Iterable<Relationship>): Promise<void> {
  const table = `${schema}.gh_tuples`;
  await psql(["-c", `ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS gh_tuples_pkey; DROP INDEX IF EXISTS ${schema}.gh_tuples_object; TRUNCATE ${table}`]);
  let copied = 0;
  await psql(["-c", `COPY ${table} (org_id, resource_type, resource_id, relation, subject_type, subject_id, subject_relation) FROM STDIN`], async (stdin) => {
    let chunk = "";
    for (const r of relationships) {
      chunk += `${ORG}\t${r.resourceType}\t${r.resourceId}\t${r.relation}\t${r.subjectType}\t${r.subjectId}\t${r.subjectRelation ?? ""}\n`;
      if (chunk.length > 1 << 20) {
        if (!stdin.write(chunk)) await once(stdin, "drain");
        chunk = "";
      }
      if (++copied % 5_000_000 === 0) progress("copied", copied);
    }
    stdin.write(chunk);
  });
  if (copied % 5_000_000 !== 0) progress("copied", copied);
  console.log(`  building the primary key and index ...`);
  await psql([
    "-c",
    `SET maintenance_work_mem = '1GB'; ALTER TABLE ${table} ADD PRIMARY KEY (org_id, resource_type, resource_id, relation, subject_type, subject_id, subject_relation); CREATE INDEX gh_tuples_object ON ${table} (resource_type, resource_id); ANALYZE ${table}`,
  ]);
  console.log(`  ${new Date().toISOString()} primary key and index built (${seconds(performance.now() - runStarted)} in)`);
}

/** The store's source with progress lines while a snapshot is read (every 5M rows), and when the indexes are built from it. */
function withProgress(source: GraphSource): GraphSource {
  return {
    ...source,
    async snapshot(onBatch) {
      let read = 0;
      let next = 5_000_000;
      stepStarted = performance.now();
      stepCount = 0;
      const done = await source.snapshot((batch) => {
        onBatch(batch);
        read += batch.length;
        if (read >= next) {
          progress("snapshot rows loaded", read);
          next += 5_000_000;
        }
      });
      if (read % 5_000_000 !== 0) progress("snapshot rows loaded", read);
      console.log("  snapshot read; building the indexes ...");
      return done;
    },
  };
}

async function fromCheckpointOnly(store: Awaited<ReturnType<typeof openStore>>, queries: Query[]): Promise<void> {
  if (KEEP_DIR === undefined) throw new Error("SCALE_FROM_CHECKPOINT=1 needs SCALE_CHECKPOINT_DIR");
  const source = withProgress(storeGraphSource(store));
  const before = memory();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const engine = new EngineGraph({ model, source, logger, checkpoints: { store: fileCheckpointStore(KEEP_DIR, 2, { threads: CHECKPOINT_THREADS }), storeId: store.storeId, intervalMs: 0 } });
  await engine.load();
  const readyMs = performance.now() - started;
  const readyCpu = cpuSince(cpu);
  // User and system apart: the system part is mostly the kernel's pages for the file's bytes, and varies with the machine's memory.
  const readySplit = process.cpuUsage(cpu);
  const peak = peakRss();
  const held = memory() - before;
  const graph = engine.graph;
  const ask = (q: Query) => check(graph, { type: "hbi/host", id: q.host }, "view", { type: "rbac/principal", id: q.user });
  const half = queries.length >> 1;
  for (let i = 0; i < half; i++) ask(queries[i]!);
  const times: number[] = [];
  for (let i = half; i < queries.length; i++) {
    const t0 = performance.now();
    ask(queries[i]!);
    times.push((performance.now() - t0) * 1000);
  }
  times.sort((a, b) => a - b);
  const afterChecks = memory() - before;
  console.log(
    `\nfrom the checkpoint only (${CHECKPOINT_THREADS ? "read by two threads, CRC-32 on a worker thread" : "one thread"}), node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} on ${availableParallelism()} cores\n`,
  );
  console.log("| measure | value |\n|---|---|");
  console.log(`| relationships | ${graph.size.toLocaleString("en")} |`);
  console.log(`| ready from the checkpoint (load + feed replay) | ${timed(readyMs, readyCpu)}: user ${seconds(readySplit.user / 1000)}, system ${seconds(readySplit.system / 1000)} |`);
  console.log(`| peak RSS of the process (start + load) | ${mib(peak)} |`);
  console.log(`| memory per relationship after load / after checks | ${(held / graph.size).toFixed(1)} B / ${(afterChecks / graph.size).toFixed(1)} B (${mib(afterChecks)}) |`);
  console.log(`| Check p50 / p99 (${times.length.toLocaleString("en")} distinct queries) | ${percentile(times, 50).toFixed(2)} µs / ${percentile(times, 99).toFixed(2)} µs |`);
  await engine.close();
  await store.close();
}

async function main() {
  const store = await openStore({ databaseUrl, schema: `bench_scale_${SIZE}`, pollIntervalMs: 1000 });
  await store.tenants.bootstrap(ORG);
  const source = withProgress(storeGraphSource(store));
  const data = scaleRelationships({ relationships: SIZE, model });
  // Written last by the seeding, so an interrupted seeding is redone.
  const marker: Relationship = { resourceType: "rbac/tenant", resourceId: `scale-seeded-${SIZE}`, relation: "t_platform", subjectType: "rbac/platform", subjectId: "stage" };

  // Is the data there already? (The marker is written last.)
  const seeded = (await psqlOutput(`SELECT count(*) FROM bench_scale_${SIZE}.gh_tuples WHERE resource_id = '${marker.resourceId}' AND relation = 't_platform'`)).trim() === "1";
  let seedMs = 0;
  if (seeded) {
    for (const _ of data.relationships); // only the shape is needed
  } else if (SEED_COPY) {
    console.log(`seeding ${SIZE} relationships into schema bench_scale_${SIZE} with COPY (once per size) ...`);
    const started = performance.now();
    await seedByCopy(`bench_scale_${SIZE}`, data.relationships);
    // The marker through the store: a committed write, so the head revision is past the seeding.
    await store.relationships.write(ORG, { touch: [marker] });
    seedMs = performance.now() - started;
  } else {
    console.log(`seeding ${SIZE} relationships into schema bench_scale_${SIZE} (once per size) ...`);
    const started = performance.now();
    let batch: Relationship[] = [];
    for (const r of data.relationships) {
      batch.push(r);
      if (batch.length === 10_000) {
        await store.relationships.write(ORG, { touch: batch });
        batch = [];
      }
    }
    await store.relationships.write(ORG, { touch: [...batch, marker] });
    seedMs = performance.now() - started;
  }
  if (process.env["SCALE_SEED_ONLY"] === "1") {
    console.log(`seeded (${seeded ? "already there" : seconds(seedMs)}); SCALE_SEED_ONLY=1, stopping`);
    await store.close();
    return;
  }
  const tenants = data.shape.tenants;
  const largest = tenants[0]!;
  const totalHosts = tenants.reduce((n, t) => n + t.hosts, 0);
  if (FROM_CHECKPOINT) return await fromCheckpointOnly(store, distinctQueries(tenants, totalHosts, QUERIES));

  // 1. Time to ready from the snapshot (the checkpoint directory is still empty), and memory.
  const dir = KEEP_DIR ?? (await mkdtemp(join(tmpdir(), "gh-scale-checkpoints-")));
  const checkpoints = fileCheckpointStore(dir, 2, { threads: CHECKPOINT_THREADS });
  let written = { revision: 0, bytes: 0, seconds: 0 };
  // The queries first, so the memory measured after the checks is the graph's and its caches', not the bench's.
  const queries = distinctQueries(tenants, totalHosts, QUERIES);
  const before = memory();
  let started = performance.now();
  let cpu = process.cpuUsage();
  let fromSnapshot: EngineGraph | null = new EngineGraph({
    model,
    source,
    logger,
    checkpoints: { store: checkpoints, storeId: store.storeId, intervalMs: 0, onWritten: (w) => (written = w) },
  });
  await fromSnapshot.load();
  const snapshotMs = performance.now() - started;
  const snapshotCpu = cpuSince(cpu);
  const relationships = fromSnapshot.graph.size;
  const peakSnapshot = peakRss();
  const afterLoad = memory();
  console.log(`  ready from the snapshot: ${timed(snapshotMs, snapshotCpu)}, peak RSS ${mib(peakSnapshot)}, held ${mib(afterLoad - before)}; checking ...`);

  // 2. Check over distinct queries: random hosts (tenants weighted by size), users of the host's
  // tenant (admins and others) and now and then of another tenant. Half warm up, half is measured.
  let graph: RelationshipGraph | null = fromSnapshot.graph;
  const ask = (q: Query) => check(graph!, { type: "hbi/host", id: q.host }, "view", { type: "rbac/principal", id: q.user });
  const half = queries.length >> 1;
  for (let i = 0; i < half; i++) ask(queries[i]!);
  const times: number[] = [];
  let allowed = 0;
  const answers: boolean[] = [];
  for (let i = half; i < queries.length; i++) {
    const t0 = performance.now();
    const answer = ask(queries[i]!);
    times.push((performance.now() - t0) * 1000);
    answers.push(answer);
    if (answer) allowed++;
  }
  times.sort((a, b) => a - b);
  const afterChecks = memory();

  // 3. Lookup of the largest tenant's hosts by its tenant-level admin (first call cold, then median).
  const admin = { type: "rbac/principal", id: userId(largest.id, 0) };
  const lookupTimes: number[] = [];
  let found = 0;
  for (let i = 0; i < (SKIP_EXTRAS ? 0 : 5); i++) {
    const t0 = performance.now();
    found = lookupResources(graph!, "hbi/host", "view", admin).length;
    lookupTimes.push(performance.now() - t0);
  }
  const lookupCold = lookupTimes[0] ?? Number.NaN;
  const lookupWarm = percentile(
    lookupTimes.slice(1).sort((a, b) => a - b),
    50,
  );

  // 4. Checkpoint: write (encode + file), then load it back (read + verify + decode).
  console.log(`  Check p50 ${percentile(times, 50).toFixed(2)} µs; writing the checkpoint ...`);
  await fromSnapshot.writeCheckpoint();
  const [ref] = await checkpoints.list();
  const fileBytes = (await stat(join(dir, ref!.key))).size;
  await fromSnapshot.close();
  fromSnapshot = null;
  graph = null;
  memory();
  console.log(`  checkpoint written (${mib(fileBytes)} in ${seconds(written.seconds * 1000)}); reading it back ...`);
  started = performance.now();
  cpu = process.cpuUsage();
  let decoded: ReturnType<typeof decodeCheckpoint> | null = decodeCheckpoint(await checkpoints.read(ref!.key), model, { storeId: store.storeId, schemaHash: schemaHash(model) });
  const checkpointLoadMs = performance.now() - started;
  const checkpointLoadCpu = cpuSince(cpu);
  if (decoded.graph.size !== relationships) throw new Error("checkpoint round trip lost relationships");
  decoded = null;
  memory();

  // 5. Time to ready from the checkpoint (newest checkpoint, then the change feed after it).
  console.log(`  checkpoint load ${timed(checkpointLoadMs, checkpointLoadCpu)}; starting from it ...`);
  started = performance.now();
  cpu = process.cpuUsage();
  const fromCheckpoint = new EngineGraph({ model, source, logger, checkpoints: { store: checkpoints, storeId: store.storeId, intervalMs: 0 } });
  await fromCheckpoint.load();
  const checkpointReadyMs = performance.now() - started;
  const checkpointReadyCpu = cpuSince(cpu);
  if (fromCheckpoint.graph.size !== relationships) throw new Error("the replica started from the checkpoint differs in size");
  const same = queries.slice(half).every((q, i) => check(fromCheckpoint.graph, { type: "hbi/host", id: q.host }, "view", { type: "rbac/principal", id: q.user }) === answers[i]);
  if (!same) throw new Error("the replica started from the checkpoint answers differently");
  await fromCheckpoint.close();

  // 6. Feed apply rate: commits written after the checkpoint (new hosts in the largest tenant, then
  // their deletion, so the data set is unchanged for the next run), then followed from the
  // checkpoint's revision into the checkpoint's graph: fetch + apply, as a replica catching up.
  let feedGraph: RelationshipGraph | null = decodeCheckpoint(await checkpoints.read(ref!.key), model, { storeId: store.storeId, schemaHash: schemaHash(model) }).graph;
  const fromRevision = ref!.revision;
  const feedHosts = Array.from({ length: FEED_COMMITS }, (_, c) =>
    Array.from(
      { length: FEED_BATCH },
      (_, i): Relationship => ({ resourceType: "hbi/host", resourceId: `feed-${c}-${i}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: workspaceId(largest.id, 0) }),
    ),
  );
  for (const touch of SKIP_EXTRAS ? [] : feedHosts) await store.relationships.write(ORG, { touch });
  for (const del of SKIP_EXTRAS ? [] : feedHosts) await store.relationships.write(ORG, { delete: del });
  const target = await source.headRevision();
  const sizeBefore = feedGraph.size;
  let feedChanges = 0;
  let feedCommits = 0;
  started = performance.now();
  cpu = process.cpuUsage();
  await new Promise<void>((resolve, reject) => {
    if (target <= fromRevision) return resolve();
    const handle = source.follow(
      fromRevision,
      (batch) => {
        for (const change of batch.changes) {
          if (change.op === "add") feedGraph!.add(change.relationship);
          else feedGraph!.remove(change.relationship);
        }
        feedChanges += batch.changes.length;
        feedCommits++;
        if (batch.revision >= target) {
          void handle.stop();
          resolve();
        }
      },
      reject,
    );
  });
  const feedMs = performance.now() - started;
  const feedCpu = cpuSince(cpu);
  if (feedGraph.size !== sizeBefore) throw new Error("the feed replay did not return the graph to its size");
  feedGraph = null;
  if (KEEP_DIR === undefined) await rm(dir, { recursive: true, force: true });
  await store.close();

  const rows: Array<[string, string]> = [
    ["relationships (tenants; largest tenant's hosts)", `${relationships.toLocaleString("en")} (${tenants.length.toLocaleString("en")}; ${largest.hosts.toLocaleString("en")})`],
    [
      "memory per relationship after load / after checks",
      `${((afterLoad - before) / relationships).toFixed(0)} B / ${((afterChecks - before) / relationships).toFixed(0)} B (${mib(afterChecks - before)})`,
    ],
    ["ready from the snapshot (Postgres)", timed(snapshotMs, snapshotCpu)],
    ["peak RSS of the process after the snapshot load", mib(peakSnapshot)],
    ["checkpoint write (encode + file) / size", `${seconds(written.seconds * 1000)} / ${mib(fileBytes)} (${(fileBytes / relationships).toFixed(1)} B per relationship)`],
    ["checkpoint load (read + CRC-32 + decode)", timed(checkpointLoadMs, checkpointLoadCpu)],
    [
      "ready from the checkpoint (load + feed replay)",
      `${timed(checkpointReadyMs, checkpointReadyCpu)}: ${(snapshotMs / checkpointReadyMs).toFixed(1)}× faster (CPU ${(snapshotCpu / checkpointReadyCpu).toFixed(1)}×)`,
    ],
    [
      `Check p50 / p99 (${times.length.toLocaleString("en")} distinct queries, ${((100 * allowed) / times.length).toFixed(0)}% allowed)`,
      `${percentile(times, 50).toFixed(2)} µs / ${percentile(times, 99).toFixed(2)} µs`,
    ],
    [
      `feed apply: ${feedChanges.toLocaleString("en")} changes in ${feedCommits} commits, followed from the checkpoint's revision`,
      `${timed(feedMs, feedCpu)}: ${Math.round(feedChanges / (feedMs / 1000)).toLocaleString("en")} changes/s (${Math.round(feedChanges / (feedCpu / 1000)).toLocaleString("en")} per CPU second)`,
    ],
    [`lookup of the largest tenant's hosts (${found.toLocaleString("en")})`, `${lookupCold.toFixed(0)} ms cold, ${lookupWarm.toFixed(0)} ms median of 4 more`],
  ];
  console.log(`\nscale benchmark, node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores${seedMs ? `, seeded in ${seconds(seedMs)}` : ""}\n`);
  console.log("| measure | value |\n|---|---|");
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
}

await main();
