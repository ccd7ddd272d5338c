// Check speed of two evaluator sources side by side in one process: the same stage data and queries,
// rounds alternating between them, medians of the rounds' p50 (a loaded machine moves both alike).
// Run: EVALUATOR_BASE=<other checkout>/packages/evaluator/src/index.ts \
//        pnpm --filter @gatehouse/evaluator exec node --expose-gc --import tsx bench/compare-checks.ts
// (BENCH_SCALE scales the data, default 0.1; COMPARE_ROUNDS, default 9; COMPARE_CHECKS per round, default 20000.)
import * as current from "../src/index.js";
import { seededRandom } from "../test/support/random-graphs.js";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateStageData, makeQueries, type Query } from "./stage-data.js";

type Evaluator = typeof current;
const basePath = process.env.EVALUATOR_BASE;
if (!basePath) throw new Error("set EVALUATOR_BASE to the other source's src/index.ts");
const base = (await import(basePath)) as Evaluator;

const here = dirname(fileURLToPath(import.meta.url));
const schema = readFileSync(join(here, "../../..", "fixtures/rbac-config/stage/schema.zed"), "utf8");
const scale = Number(process.env.BENCH_SCALE ?? "0.1");
const rounds = Number(process.env.COMPARE_ROUNDS ?? "9");
const perRound = Number(process.env.COMPARE_CHECKS ?? "20000");
const data = generateStageData({
  workspaces: Math.round(10_000 * scale),
  hosts: Math.round(100_000 * scale),
  bindings: Math.round(50_000 * scale),
  principals: Math.round(20_000 * scale),
  groups: Math.round(2_000 * scale),
});
const now = (): number => Number(process.hrtime.bigint()) / 1e3; // µs

function load(evaluator: Evaluator): current.RelationshipGraph {
  const graph = new evaluator.RelationshipGraph(evaluator.compileSchema(schema));
  for (const r of data.relationships) graph.add(r);
  return graph;
}

/** p50 of one round's checks, in µs, and the answers. */
function round(evaluator: Evaluator, graph: current.RelationshipGraph, queries: Query[]): { p50: number; answers: boolean[] } {
  const times = new Float64Array(queries.length);
  const answers: boolean[] = [];
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i]!;
    const t = now();
    answers.push(evaluator.check(graph, q.resource, q.permission, q.subject));
    times[i] = now() - t;
  }
  return { p50: times.sort()[Math.floor(times.length / 2)]!, answers };
}

const sides = [
  { name: "base", evaluator: base, graph: load(base), p50s: { repeated: [] as number[], distinct: [] as number[] } },
  { name: "current", evaluator: current, graph: load(current), p50s: { repeated: [] as number[], distinct: [] as number[] } },
];
const repeated = makeQueries(data, perRound, 7);
let mismatches = 0;
for (let r = 0; r < rounds; r++) {
  // Distinct queries per round (a subject's first checks), the same for both sides.
  const distinct = makeQueries(data, perRound, 0, seededRandom(100 + r));
  const order = r % 2 === 0 ? sides : [...sides].reverse();
  const answers: boolean[][] = [];
  for (const side of order) {
    side.p50s.repeated.push(round(side.evaluator, side.graph, repeated).p50);
    const d = round(side.evaluator, side.graph, distinct);
    side.p50s.distinct.push(d.p50);
    answers.push(d.answers);
  }
  for (let i = 0; i < perRound; i++) if (answers[0]![i] !== answers[1]![i]) mismatches++;
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${data.relationships.length} relationships, ${rounds} alternating rounds of ${perRound} checks each; answers differing: ${mismatches}`);
console.log("| Check p50, median of rounds | base | current | current / base |\n|---|---|---|---|");
for (const kind of ["repeated", "distinct"] as const) {
  const [b, c] = sides.map((s) => median(s.p50s[kind]));
  console.log(`| ${kind} queries | ${b!.toFixed(2)} µs | ${c!.toFixed(2)} µs | ${(c! / b!).toFixed(2)}× |`);
}
console.log(
  `rounds' p50 (µs): ${sides.map((s) => `${s.name} repeated ${s.p50s.repeated.map((x) => x.toFixed(2)).join(" ")}, distinct ${s.p50s.distinct.map((x) => x.toFixed(2)).join(" ")}`).join("; ")}`,
);
