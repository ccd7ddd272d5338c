// Cost of expiration on Check, side by side in one run (`pnpm --filter @gatehouse/evaluator bench:expiration`):
// the stage schema as is; the same with `use expiration` and `with expiration` subject types on role
// bindings but no expiring relationship; and the same with a tenth of the binding subjects expiring
// (none due during the run). Same data and queries; rounds alternate between the graphs; BENCH_SCALE
// scales the data (default 0.2).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { check, compileSchema, RelationshipGraph, type ObjectRef, type Relationship, type SubjectRef } from "../src/index.js";
import { seededRandom } from "../test/support/random-graphs.js";
import { generateStageData } from "./stage-data.js";

const here = dirname(fileURLToPath(import.meta.url));
const schema = readFileSync(join(here, "../../..", "fixtures/rbac-config/stage/schema.zed"), "utf8");
const SUBJECT = "relation t_subject: rbac/principal | rbac/group#member";
if (!schema.includes(SUBJECT)) throw new Error("the stage schema's role binding subject relation changed; update the bench");
const expiringSchema = `use expiration\n${schema.replace(SUBJECT, "relation t_subject: rbac/principal | rbac/group#member | rbac/principal with expiration | rbac/group#member with expiration")}`;

const scale = Number(process.env.BENCH_SCALE ?? "0.2");
const data = generateStageData({
  workspaces: Math.round(10_000 * scale),
  hosts: Math.round(100_000 * scale),
  bindings: Math.round(50_000 * scale),
  principals: Math.round(20_000 * scale),
  groups: Math.round(2_000 * scale),
});
const far = Date.now() + 365 * 24 * 3_600_000;
const load = (text: string, expiring: (r: Relationship, i: number) => boolean): RelationshipGraph => {
  const graph = new RelationshipGraph(compileSchema(text));
  data.relationships.forEach((r, i) => graph.add(expiring(r, i) ? { ...r, expiresAt: far + i } : r));
  return graph;
};
const graphs: Array<[string, RelationshipGraph]> = [
  ["stage schema, no expiration", load(schema, () => false)],
  ["`use expiration` schema, nothing expiring", load(expiringSchema, () => false)],
  ["`use expiration`, 10 % of binding subjects expiring (none due)", load(expiringSchema, (r, i) => r.relation === "t_subject" && i % 10 === 0)],
];

interface Query {
  resource: ObjectRef;
  permission: string;
  subject: SubjectRef;
}
const rnd = seededRandom(7);
const queries: Query[] = Array.from({ length: 20_000 }, () => ({
  resource: { type: "hbi/host", id: `h${Math.floor(rnd() * data.hostWorkspace.length)}` },
  permission: rnd() < 0.7 ? "view" : "patch_system_view",
  subject: { type: "rbac/principal", id: data.principals[Math.floor(rnd() * data.principals.length)]! },
}));

const now = (): number => Number(process.hrtime.bigint()) / 1e3;
const p50s = graphs.map(() => [] as number[]);
const p99s = graphs.map(() => [] as number[]);
for (let round = 0; round < 5; round++) {
  graphs.forEach(([, graph], g) => {
    graph.add({ resourceType: "hbi/host", resourceId: `bench-round-${round}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: "root" }); // a write: caches start cold each round
    for (const q of queries.slice(0, 2000)) check(graph, q.resource, q.permission, q.subject);
    const times: number[] = [];
    for (const q of queries) {
      const t = now();
      check(graph, q.resource, q.permission, q.subject);
      times.push(now() - t);
    }
    times.sort((a, b) => a - b);
    p50s[g]!.push(times[Math.floor(times.length / 2)]!);
    p99s[g]!.push(times[Math.floor(times.length * 0.99)]!);
  });
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${data.relationships.length} relationships, ${queries.length} checks per round, 5 alternating rounds; medians of the rounds' p50 / p99`);
console.log("| Graph | Check p50 | Check p99 | p50 vs first |\n|---|---|---|---|");
graphs.forEach(([label], g) => {
  console.log(`| ${label} | ${median(p50s[g]!).toFixed(2)} µs | ${median(p99s[g]!).toFixed(2)} µs | ${(median(p50s[g]!) / median(p50s[0]!)).toFixed(2)}× |`);
});
