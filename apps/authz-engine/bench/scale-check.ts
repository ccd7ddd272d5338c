// Check over the scale data set in memory, without Postgres: builds the graph from the generator
// and times distinct-query Checks (the same queries as bench:scale). Quick to rerun while working on
// the evaluator's hot path, and to profile (`node --cpu-prof`).
// Run: pnpm --filter @gatehouse/authz-engine bench:scale-check   (SCALE_RELATIONSHIPS, SCALE_QUERIES,
// SCALE_ROUNDS: the query set is measured that many times over fresh graphs, medians reported)
import { check, RelationshipGraph } from "@gatehouse/evaluator";
import { compileRoleModel } from "@gatehouse/role-config";
import { percentile } from "@gatehouse/telemetry";
import { distinctQueries, scaleRelationships } from "./scale-data.js";

const SIZE = Number(process.env["SCALE_RELATIONSHIPS"] ?? 290_000);
const QUERIES = Number(process.env["SCALE_QUERIES"] ?? 40_000);
const ROUNDS = Number(process.env["SCALE_ROUNDS"] ?? 3);
const model = compileRoleModel("stage");

const built = performance.now();
const data = scaleRelationships({ relationships: SIZE, model });
const graph = new RelationshipGraph(model);
for (const r of data.relationships) graph.add(r);
// As the engine does after a snapshot (SCALE_NO_COMPACT=1 leaves the per-key lists, for comparison).
if (process.env["SCALE_NO_COMPACT"] !== "1") graph.compact();
const buildMs = performance.now() - built;
const tenants = data.shape.tenants;
const queries = distinctQueries(
  tenants,
  tenants.reduce((n, t) => n + t.hosts, 0),
  QUERIES,
);
const half = queries.length >> 1;

const p50s: number[] = [];
const p99s: number[] = [];
let allowed = 0;
for (let round = 0; round < ROUNDS; round++) {
  // A write empties the evaluator's per-graph caches, so every round starts cold like the first.
  const marker = { resourceType: "rbac/tenant", resourceId: `round-${round}`, relation: "t_platform", subjectType: "rbac/platform", subjectId: "stage" };
  graph.add(marker);
  graph.remove(marker);
  const ask = (i: number) => check(graph, { type: "hbi/host", id: queries[i]!.host }, "view", { type: "rbac/principal", id: queries[i]!.user });
  for (let i = 0; i < half; i++) ask(i);
  const times = new Float64Array(queries.length - half);
  allowed = 0;
  for (let i = half; i < queries.length; i++) {
    const t0 = performance.now();
    if (ask(i)) allowed++;
    times[i - half] = (performance.now() - t0) * 1000;
  }
  const sorted = Array.from(times).sort((a, b) => a - b);
  p50s.push(percentile(sorted, 50));
  p99s.push(percentile(sorted, 99));
}
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
console.log(
  `${graph.size.toLocaleString("en")} relationships (built in ${(buildMs / 1000).toFixed(1)} s), ${queries.length - half} distinct checks x ${ROUNDS} rounds, ${((100 * allowed) / (queries.length - half)).toFixed(0)}% allowed: ` +
    `p50 ${median(p50s).toFixed(2)} µs, p99 ${median(p99s).toFixed(2)} µs (rounds p50 ${p50s.map((x) => x.toFixed(2)).join(" ")})`,
);
