// Profiling helper: only the evaluator's checks at a given scale (node --cpu-prof --import tsx ...).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { check, compileSchema, RelationshipGraph } from "../src/index.js";
import { generateStageData } from "./stage-data.js";

const here = dirname(fileURLToPath(import.meta.url));
const schema = readFileSync(join(here, "../../..", "fixtures/rbac-config/stage/schema.zed"), "utf8");
const scale = Number(process.env.BENCH_SCALE ?? "0.1");
const data = generateStageData({ workspaces: 10_000 * scale, hosts: 100_000 * scale, bindings: 100_000 * scale, principals: 20_000 * scale, groups: 2_000 * scale });
const graph = new RelationshipGraph(compileSchema(schema));
for (const r of data.relationships) graph.add(r);
const start = performance.now();
let allowed = 0;
const n = 200_000;
for (let i = 0; i < n; i++) {
  const host = `h${(i * 7919) % data.hostWorkspace.length}`;
  const principal = data.principals[(i * 104729) % data.principals.length]!;
  if (check(graph, { type: "hbi/host", id: host }, i % 3 === 0 ? "patch_system_view" : "view", { type: "rbac/principal", id: principal })) allowed++;
}
console.log(`${(((performance.now() - start) * 1000) / n).toFixed(2)} µs per check, ${allowed} allowed`);
