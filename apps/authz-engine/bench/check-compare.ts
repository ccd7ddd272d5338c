// Check p50 of this evaluator against another copy of it (an earlier commit), side by side in one
// process: both graphs built from the same scale data (bench/scale-data.ts), the same stream of
// distinct queries given to both in alternating chunks (which one goes first alternates too), a
// p50 per chunk and side, and the median of the paired ratios. On a shared machine this is the
// comparison to quote: both sides see the same load at the same moments.
// Run: COMPARE_EVALUATOR=<other checkout>/packages/evaluator/src/index.ts pnpm --filter @gatehouse/authz-engine bench:check-compare
//   SCALE_RELATIONSHIPS (default 1,000,000), COMPARE_CHUNKS (default 40), COMPARE_CHUNK (checks per chunk, default 5,000),
//   MEMORY_CACHE_BYTES (this evaluator's check-cache budget).
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import * as evaluator from "@gatehouse/evaluator";
import { buildSchema, withGrantExpiration } from "@gatehouse/role-config";
import { percentile } from "@gatehouse/telemetry";
import { queryStream, scaleRelationships } from "./scale-data.js";

type Evaluator = typeof evaluator;
const SIZE = Number(process.env["SCALE_RELATIONSHIPS"] ?? 1_000_000);
const CHUNKS = Number(process.env["COMPARE_CHUNKS"] ?? 40);
const CHUNK = Number(process.env["COMPARE_CHUNK"] ?? 5_000);
const otherPath = process.env["COMPARE_EVALUATOR"];
if (!otherPath) throw new Error("set COMPARE_EVALUATOR to another copy's packages/evaluator/src/index.ts");
const budget = process.env["MEMORY_CACHE_BYTES"];
if (budget !== undefined) evaluator.configureCheckCache({ maxBytes: Number(budget) });

const other = (await import(pathToFileURL(otherPath).href)) as Evaluator;
const zed = buildSchema("stage");
const sides = [
  { name: "this", ev: evaluator },
  { name: "other", ev: other },
].map(({ name, ev }) => {
  const model = ev.compileSchema(withGrantExpiration(ev.parseSchema(zed)) as never);
  const graph = new ev.RelationshipGraph(model as never);
  return { name, ev, model, graph, p50s: [] as number[] };
});
// Both built from one pass over the data; the generator's model is this side's (same schema).
const data = scaleRelationships({ relationships: SIZE, model: sides[0]!.model as evaluator.Model });
for (const r of data.relationships) for (const side of sides) side.graph.add(r);
for (const side of sides) side.graph.compact();
const query = queryStream(data.shape.tenants);

const times = new Float64Array(CHUNK);
const ratios: number[] = [];
for (let c = 0; c < CHUNKS; c++) {
  const order = c % 2 === 0 ? sides : [...sides].reverse();
  for (const side of order) {
    const { ev, graph } = side;
    for (let k = 0; k < CHUNK; k++) {
      const q = query(c * CHUNK + k);
      const t0 = performance.now();
      ev.check(graph as never, { type: "hbi/host", id: q.host }, "view", { type: "rbac/principal", id: q.user });
      times[k] = (performance.now() - t0) * 1000;
    }
    side.p50s.push(
      percentile(
        Array.from(times).sort((a, b) => a - b),
        50,
      ),
    );
  }
  ratios.push(sides[0]!.p50s[c]! / sides[1]!.p50s[c]!);
}
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
console.log(
  `${sides[0]!.graph.size.toLocaleString("en")} relationships, ${CHUNKS} chunks of ${CHUNK.toLocaleString("en")} distinct checks per side, load average ${loadavg()[0]!.toFixed(1)}\n` +
    `check p50, median over chunks: this ${median(sides[0]!.p50s).toFixed(2)} µs, other ${median(sides[1]!.p50s).toFixed(2)} µs; ` +
    `paired ratio this/other: median ${median(ratios).toFixed(3)} (this faster in ${ratios.filter((r) => r < 1).length} of ${ratios.length} chunks)`,
);
