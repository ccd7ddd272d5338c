// Memory under use: builds the scale data set in memory (bench/scale-data.ts, as bench:scale-check),
// measures the graph's bytes per relationship after load, then runs distinct Checks in steps and
// measures again after each step (heap used + array buffers after a full collection), with the
// Check p50 of each step and what the evaluator's cross-check caches hold. The queries are made on
// the fly (none is kept), distinct by construction, so the bench itself holds nothing that grows.
// Run: pnpm --filter @gatehouse/authz-engine bench:memory
//   SCALE_RELATIONSHIPS (default 1,000,000), MEMORY_CHECKS (default 1,000,000), MEMORY_STEPS (10),
//   MEMORY_CACHE_BYTES (the evaluator's check-cache budget; unset: its default), SCALE_LOAD=add (build
//   the graph relationship by relationship instead of a bulk load; the peak RSS of the build is printed).
// A sustained run (heap sampled while checking) is the same with a larger MEMORY_CHECKS and more
// steps; the steps, not a clock, bound the work.
import { loadavg } from "node:os";
import * as evaluator from "@gatehouse/evaluator";
import { check, RelationshipGraph } from "@gatehouse/evaluator";
import { compileRoleModel } from "@gatehouse/role-config";
import { percentile } from "@gatehouse/telemetry";
import { queryStream, scaleRelationships } from "./scale-data.js";
import { held, mib } from "./held-memory.js";

const SIZE = Number(process.env["SCALE_RELATIONSHIPS"] ?? 1_000_000);
const CHECKS = Number(process.env["MEMORY_CHECKS"] ?? 1_000_000);
const STEPS = Number(process.env["MEMORY_STEPS"] ?? 10);
const budget = process.env["MEMORY_CACHE_BYTES"];
// Run from a copy of an earlier commit (for a side-by-side comparison), the cache has no limits to set or report.
const { configureCheckCache, checkCacheStats } = evaluator as Partial<typeof evaluator>;
if (budget !== undefined) configureCheckCache?.({ maxBytes: Number(budget) });
const cacheStats = (g: RelationshipGraph) => checkCacheStats?.(g) ?? { subjects: Number.NaN, resultSubjects: Number.NaN, bytes: Number.NaN, maxBytes: Number.NaN };

const model = compileRoleModel("stage");
const baseline = held();
const started = performance.now();
let graph: RelationshipGraph | null = new RelationshipGraph(model);
const data = scaleRelationships({ relationships: SIZE, model });
// SCALE_LOAD=add: relationship by relationship into the indexes' lists, then compact (the engine's
// snapshot load before the bulk load); default: a bulk load (startBulk), as the engine loads a snapshot.
// (A copy of an earlier commit, for a side-by-side run, has no bulk load: it adds one by one.)
const bulk = process.env["SCALE_LOAD"] !== "add" && typeof (graph as Partial<RelationshipGraph>).startBulk === "function";
if (bulk) graph.startBulk();
for (const r of data.relationships) graph.add(r);
graph.compact();
const peakBuild = process.resourceUsage().maxRSS * 1024;
const buildSeconds = (performance.now() - started) / 1000;
const relationships = graph.size;
const afterLoad = held() - baseline;
const tenants = data.shape.tenants;

const query = queryStream(tenants);
console.log(
  `memory under distinct checks, node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}; ${relationships.toLocaleString("en")} relationships built in ${buildSeconds.toFixed(1)} s` +
    ` (${bulk ? "bulk load" : "added one by one"}, peak RSS ${mib(peakBuild)})` +
    `; check cache budget ${cacheStats(graph).maxBytes.toLocaleString("en")} B`,
);
console.log("\n| checks | held | B per relationship | ratio to after load | check p50 / p99 (this step) | cache: subjects, result tables, bytes | RSS |\n|---|---|---|---|---|---|---|");
const row = (checks: number, bytes: number, times: Float64Array | null) => {
  const stats = cacheStats(graph!);
  let p = "-";
  if (times) {
    const sorted = Array.from(times).sort((a, b) => a - b);
    p = `${percentile(sorted, 50).toFixed(2)} / ${percentile(sorted, 99).toFixed(2)} µs`;
  }
  console.log(
    `| ${checks.toLocaleString("en")} | ${mib(bytes)} | ${(bytes / relationships).toFixed(1)} | ${(bytes / afterLoad).toFixed(3)} | ${p} | ${stats.subjects.toLocaleString("en")}, ${stats.resultSubjects.toLocaleString("en")}, ${mib(stats.bytes)} | ${mib(process.memoryUsage().rss)} |`,
  );
};
row(0, afterLoad, null);
const perStep = Math.ceil(CHECKS / STEPS);
let allowed = 0;
let done = 0;
const checkStarted = performance.now();
for (let step = 0; step < STEPS; step++) {
  const n = Math.min(perStep, CHECKS - done);
  const times = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const q = query(done + k);
    const t0 = performance.now();
    if (check(graph, { type: "hbi/host", id: q.host }, "view", { type: "rbac/principal", id: q.user })) allowed++;
    times[k] = (performance.now() - t0) * 1000;
  }
  done += n;
  row(done, held() - baseline, times);
}
console.log(
  `\n${done.toLocaleString("en")} checks (${((100 * allowed) / done).toFixed(0)}% allowed) in ${((performance.now() - checkStarted) / 1000).toFixed(0)} s of wall time, load average ${loadavg()[0]!.toFixed(1)}`,
);
graph = null;
