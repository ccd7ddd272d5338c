// Profiling helper: the bench's full-scale check lines only (the original query mix, then the
// distinct mulberry32 queries), e.g. node --cpu-prof --import tsx bench/profile-distinct.ts. SPLIT=1
// also prints p50 of a subject's first check and of its later ones; ROUNDS repeats after a write.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { check, compileSchema, RelationshipGraph, type ObjectRef, type SubjectRef } from "../src/index.js";
import { seededRandom } from "../test/support/random-graphs.js";
import { generateStageData, type StageData } from "./stage-data.js";

const here = dirname(fileURLToPath(import.meta.url));
const schema = readFileSync(join(here, "../../..", "fixtures/rbac-config/stage/schema.zed"), "utf8");
const scale = Number(process.env.BENCH_SCALE ?? "1");
const data = generateStageData({
  workspaces: Math.round(10_000 * scale),
  hosts: Math.round(100_000 * scale),
  bindings: Math.round(50_000 * scale),
  principals: Math.round(20_000 * scale),
  groups: Math.round(2_000 * scale),
});
interface Query {
  resource: ObjectRef;
  permission: string;
  subject: SubjectRef;
}
function makeQueries(d: StageData, count: number, seed: number, random?: () => number): Query[] {
  let s = seed;
  const rnd = random ?? ((): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const queries: Query[] = [];
  for (let i = 0; i < count; i++) {
    const host = Math.floor(rnd() * d.hostWorkspace.length);
    let principal = d.principals[Math.floor(rnd() * d.principals.length)]!;
    if (rnd() < 0.5) {
      const candidates: string[] = [];
      for (let ws: string | undefined = d.hostWorkspace[host]; ws; ws = d.parentOf.get(ws)) candidates.push(...(d.boundAt.get(ws) ?? []));
      if (candidates.length > 0) principal = candidates[Math.floor(rnd() * candidates.length)]!;
    }
    queries.push({ resource: { type: "hbi/host", id: `h${host}` }, permission: rnd() < 0.7 ? "view" : "patch_system_view", subject: { type: "rbac/principal", id: principal } });
  }
  return queries;
}
const now = (): number => Number(process.hrtime.bigint()) / 1e3;
function time(graph: RelationshipGraph, queries: Query[]): string {
  for (const q of queries.slice(0, 2000)) check(graph, q.resource, q.permission, q.subject);
  const times: number[] = [];
  const seen = new Set<string>(queries.slice(0, 2000).map((q) => q.subject.id));
  const first: number[] = [];
  const later: number[] = [];
  for (const q of queries) {
    const t = now();
    check(graph, q.resource, q.permission, q.subject);
    const dt = now() - t;
    times.push(dt);
    (seen.has(q.subject.id) ? later : first).push(dt);
    seen.add(q.subject.id);
  }
  if (process.env.SPLIT) {
    first.sort((a, b) => a - b);
    later.sort((a, b) => a - b);
    console.log(`  first ${first.length} p50 ${first[first.length >> 1]!.toFixed(2)}; later ${later.length} p50 ${later[later.length >> 1]!.toFixed(2)}`);
  }
  times.sort((a, b) => a - b);
  const p = (x: number): string => times[Math.floor((x / 100) * times.length)]!.toFixed(2);
  return `p50 ${p(50)} µs / p99 ${p(99)} µs`;
}
const graph = new RelationshipGraph(compileSchema(schema));
for (const r of data.relationships) graph.add(r);
const rounds = Number(process.env.ROUNDS ?? "1");
for (let i = 0; i < rounds; i++) {
  graph.add({ resourceType: "hbi/host", resourceId: `h-round-${i}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: "root" });
  console.log(`plain    ${time(graph, makeQueries(data, 50_000, 7))}`);
  console.log(`distinct ${time(graph, makeQueries(data, 50_000, 0, seededRandom(7)))}`);
}
