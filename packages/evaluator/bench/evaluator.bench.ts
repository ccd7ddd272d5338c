// Benchmark: the evaluator against embedded SpiceDB on the same data, in one run.
// Run: pnpm --filter @gatehouse/evaluator bench   (BENCH_SCALE=0.1 for a quick run)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { check, compileSchema, lookupResources, RelationshipGraph } from "../src/index.js";
import { seededRandom } from "../test/support/random-graphs.js";
import { SpiceDbOracle } from "../test/support/spicedb-oracle.js";
import { generateStageData, makeQueries, type Query, type StageData, type StageDataOptions } from "./stage-data.js";

const here = dirname(fileURLToPath(import.meta.url));
const schema = readFileSync(join(here, "../../..", "fixtures/rbac-config/stage/schema.zed"), "utf8");
const scale = Number(process.env.BENCH_SCALE ?? "1");
const FULL: StageDataOptions = {
  workspaces: Math.round(10_000 * scale),
  hosts: Math.round(100_000 * scale),
  bindings: Math.round(50_000 * scale),
  principals: Math.round(20_000 * scale),
  groups: Math.round(2_000 * scale),
};
/** SpiceDB embedded answers a Check on this schema in tens of milliseconds, so the side-by-side
 * run uses a subset of the data (the same data for both); override with SPICEDB_SCALE. */
const spiceScale = Number(process.env.SPICEDB_SCALE ?? "0.01");
const SUBSET: StageDataOptions = {
  workspaces: Math.round(10_000 * spiceScale),
  hosts: Math.round(100_000 * spiceScale),
  bindings: Math.round(50_000 * spiceScale),
  principals: Math.round(20_000 * spiceScale),
  groups: Math.round(2_000 * spiceScale),
};
const OUR_CHECKS = 50_000;
const SPICEDB_CHECKS = Number(process.env.SPICEDB_CHECKS ?? "200");

const gc = (): void => {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error("run with --expose-gc (the bench script does)");
  collect();
  collect();
};
const now = (): number => Number(process.hrtime.bigint()) / 1e3; // µs
const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const fmt = (us: number): string => (us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${us.toFixed(2)} µs`);

function loadOurs(data: StageData): { graph: RelationshipGraph; ms: number; bytesPerRelationship: number } {
  gc();
  const before = process.memoryUsage().heapUsed;
  const start = now();
  const graph = new RelationshipGraph(compileSchema(schema));
  for (const r of data.relationships) graph.add(r);
  const ms = (now() - start) / 1000;
  gc();
  return { graph, ms, bytesPerRelationship: (process.memoryUsage().heapUsed - before) / graph.size };
}

function timeOurChecks(graph: RelationshipGraph, queries: Query[]): { sorted: number[]; perSecond: number; answers: boolean[] } {
  for (const q of queries.slice(0, 2000)) check(graph, q.resource, q.permission, q.subject); // warm-up
  const times: number[] = [];
  const answers: boolean[] = [];
  const start = now();
  for (const q of queries) {
    const t = now();
    answers.push(check(graph, q.resource, q.permission, q.subject));
    times.push(now() - t);
  }
  const total = now() - start;
  return { sorted: times.sort((a, b) => a - b), perSecond: (queries.length / total) * 1e6, answers };
}

function median(fn: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = now();
    fn();
    times.push(now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

async function sideBySide(row: (...cells: string[]) => void): Promise<void> {
  const data = generateStageData(SUBSET);
  const ours = loadOurs(data);
  const queries = makeQueries(data, SPICEDB_CHECKS, 13);
  const ourChecks = timeOurChecks(ours.graph, queries);
  const loadStart = now();
  const spicedb = await SpiceDbOracle.start(schema, data.relationships);
  const spiceLoadMs = (now() - loadStart) / 1000;
  for (const q of queries.slice(0, 10)) await spicedb.check(q.resource, q.permission, q.subject);
  const spiceTimes: number[] = [];
  let mismatches = 0;
  const spiceStart = now();
  for (const [i, q] of queries.entries()) {
    const t = now();
    if ((await spicedb.check(q.resource, q.permission, q.subject)) !== ourChecks.answers[i]) mismatches++;
    spiceTimes.push(now() - t);
  }
  const spicePerSecond = (queries.length / (now() - spiceStart)) * 1e6;
  spiceTimes.sort((a, b) => a - b);
  const subjects = queries.slice(0, 10).map((q) => q.subject);
  const ourWs = subjects.map((s) => median(() => lookupResources(ours.graph, "rbac/workspace", "inventory_host_view", s), 3)).sort((a, b) => a - b);
  const spiceWs: number[] = [];
  let lookupMismatches = 0;
  for (const s of subjects) {
    const t = now();
    const theirs = await spicedb.lookupResources("rbac/workspace", "inventory_host_view", s);
    spiceWs.push(now() - t);
    if (JSON.stringify(theirs) !== JSON.stringify(lookupResources(ours.graph, "rbac/workspace", "inventory_host_view", s))) lookupMismatches++;
  }
  spiceWs.sort((a, b) => a - b);
  const admin = { type: "rbac/principal", id: data.admin };
  let ourHosts: string[] = [];
  const ourHostsTime = median(() => (ourHosts = lookupResources(ours.graph, "hbi/host", "view", admin)), 5);
  const t = now();
  const spiceHosts = await spicedb.lookupResources("hbi/host", "view", admin);
  const spiceHostsTime = now() - t;
  await spicedb.close();
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(0)}×`;
  row(`Side by side on a subset (${data.relationships.length} relationships: ${JSON.stringify(SUBSET)})`, "Gatehouse evaluator", "SpiceDB embedded", "SpiceDB / ours");
  row("Load time", fmt(ours.ms * 1000), fmt(spiceLoadMs * 1000), ratio(spiceLoadMs, ours.ms));
  row(`Check p50 (${queries.length} identical queries)`, fmt(percentile(ourChecks.sorted, 50)), fmt(percentile(spiceTimes, 50)), ratio(percentile(spiceTimes, 50), percentile(ourChecks.sorted, 50)));
  row("Check p99", fmt(percentile(ourChecks.sorted, 99)), fmt(percentile(spiceTimes, 99)), ratio(percentile(spiceTimes, 99), percentile(ourChecks.sorted, 99)));
  row("Checks/s (sequential)", ourChecks.perSecond.toFixed(0), spicePerSecond.toFixed(1), ratio(ourChecks.perSecond, spicePerSecond));
  row("Check answers differing", "", `${mismatches} of ${queries.length}`, "");
  row("lookupResources workspaces p50 (10 subjects)", fmt(percentile(ourWs, 50)), fmt(percentile(spiceWs, 50)), ratio(percentile(spiceWs, 50), percentile(ourWs, 50)));
  row("Lookup answers differing", "", `${lookupMismatches} of ${subjects.length}`, "");
  row(`lookupResources all hosts (${ourHosts.length} / ${spiceHosts.length})`, fmt(ourHostsTime), fmt(spiceHostsTime), ratio(spiceHostsTime, ourHostsTime));
  if (JSON.stringify(ourHosts) !== JSON.stringify(spiceHosts)) row("Host lookup answers differ!", "", "", "");
}

function fullScale(row: (...cells: string[]) => void): void {
  const data = generateStageData(FULL);
  const ours = loadOurs(data);
  const queries = makeQueries(data, OUR_CHECKS, 7);
  const checks = timeOurChecks(ours.graph, queries);
  const distinct = timeOurChecks(ours.graph, makeQueries(data, OUR_CHECKS, 0, seededRandom(7)));
  const subjects = queries.slice(0, 50).map((q) => q.subject);
  const wsTimes = subjects.map((s) => median(() => lookupResources(ours.graph, "rbac/workspace", "inventory_host_view", s), 3)).sort((a, b) => a - b);
  const admin = { type: "rbac/principal", id: data.admin };
  let hostCount = 0;
  const hostsTime = median(() => (hostCount = lookupResources(ours.graph, "hbi/host", "view", admin).length), 5);
  // A write that adds an object of the listed type, then the first listing after it (the per-type
  // order must absorb the new id); each run adds a different host.
  let added = 0;
  const addedTimes: number[] = [];
  for (let i = 0; i < 7; i++) {
    ours.graph.add({ resourceType: "hbi/host", resourceId: `h-added-${added++}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: "root" });
    const t = now();
    hostCount = lookupResources(ours.graph, "hbi/host", "view", admin).length;
    addedTimes.push(now() - t);
  }
  const afterAdd = addedTimes.sort((a, b) => a - b)[3]!;
  // An intersection of arrows over the same relation (`view & t_workspace->patch_system_view`): the
  // 50 subjects, then the admin once its role also grants patch (every host qualifies).
  const patchTimes = subjects.map((s) => median(() => lookupResources(ours.graph, "hbi/host", "patch_system_view", s), 3)).sort((a, b) => a - b);
  ours.graph.add({ resourceType: "rbac/role", resourceId: "admin-role", relation: "t_patch_all_read", subjectType: "rbac/principal", subjectId: "*" });
  let patchCount = 0;
  const patchTime = median(() => (patchCount = lookupResources(ours.graph, "hbi/host", "patch_system_view", admin).length), 5);
  const allowed = checks.answers.filter(Boolean).length / checks.answers.length;
  row(`Evaluator at full scale (${data.relationships.length} relationships: ${JSON.stringify(FULL)})`, "Result", "Target", "");
  row("Load time", `${(ours.ms / 1000).toFixed(2)} s`, "", "");
  row("Memory per relationship", `${ours.bytesPerRelationship.toFixed(0)} B`, "≤ 300 B", "");
  row(`Check p50 (${queries.length} checks, ${(allowed * 100).toFixed(0)}% allowed)`, fmt(percentile(checks.sorted, 50)), "≤ 5 µs", "");
  row("Check p99", fmt(percentile(checks.sorted, 99)), "", "");
  row("Checks/s (one core, sequential)", checks.perSecond.toFixed(0), "", "");
  row(`Check p50 / p99, ${OUR_CHECKS} distinct queries (mulberry32)`, `${fmt(percentile(distinct.sorted, 50))} / ${fmt(percentile(distinct.sorted, 99))}`, "", "");
  row("lookupResources workspaces p50 / p99 (50 subjects)", `${fmt(percentile(wsTimes, 50))} / ${fmt(percentile(wsTimes, 99))}`, "", "");
  row(`lookupResources hosts (${hostCount - added} found)`, fmt(hostsTime), "≤ 100 ms", "");
  row(`lookupResources hosts right after adding one host (${hostCount} found)`, fmt(afterAdd), "", "");
  row("lookupResources hosts patch_system_view p50 / p99 (50 subjects)", `${fmt(percentile(patchTimes, 50))} / ${fmt(percentile(patchTimes, 99))}`, "", "");
  row(`lookupResources hosts patch_system_view (${patchCount} found)`, fmt(patchTime), "", "");
  ours.graph = undefined as unknown as RelationshipGraph;
  for (const bindings of [1_000, 10_000, 100_000].map((b) => Math.round(b * scale))) {
    const scaled = generateStageData({ ...FULL, bindings });
    const loaded = loadOurs(scaled);
    const result = timeOurChecks(loaded.graph, makeQueries(scaled, 20_000, 11));
    row(`Check p50 / p99 at ${bindings} bindings`, `${fmt(percentile(result.sorted, 50))} / ${fmt(percentile(result.sorted, 99))}`, "within 2×", "");
  }
}

async function main(): Promise<void> {
  const tables: string[][][] = [[], []];
  const rowInto =
    (table: string[][]) =>
    (...cells: string[]): void => {
      table.push(cells);
      console.error(cells.join(" | "));
    };
  fullScale(rowInto(tables[0]!));
  await sideBySide(rowInto(tables[1]!));
  for (const rows of tables) {
    console.log(`\n| ${rows[0]!.join(" | ")} |\n|${rows[0]!.map(() => "---").join("|")}|`);
    for (const r of rows.slice(1)) console.log(`| ${r.join(" | ")} |`);
  }
}

await main();
