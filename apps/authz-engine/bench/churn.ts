// Churn: what the graph keeps of objects that come and go. Hosts are reported (a placement tuple
// with a fresh id) and deleted again, CHURN_LIVE alive at a time, CHURN_HOSTS in all, in CHURN_STEPS
// steps; after each step, the graph's objects, what it holds (heap used + array buffers after a
// full collection) and the bytes held per object ever named. The graph names every object it was
// ever told of until it is rebuilt, so a long run of fresh ids grows it by this much per id.
// Run: pnpm --filter @gatehouse/authz-engine bench:churn   (CHURN_HOSTS, CHURN_LIVE, CHURN_STEPS)
import { loadavg } from "node:os";
import { RelationshipGraph, type Relationship } from "@gatehouse/evaluator";
import { compileRoleModel } from "@gatehouse/role-config";
import { held, mib } from "./held-memory.js";

const HOSTS = Number(process.env["CHURN_HOSTS"] ?? 1_000_000);
const LIVE = Number(process.env["CHURN_LIVE"] ?? 1000);
const STEPS = Number(process.env["CHURN_STEPS"] ?? 10);

const graph = new RelationshipGraph(compileRoleModel("stage"));
const placement = (n: number): Relationship => ({ resourceType: "hbi/host", resourceId: `churn-host-${n}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: `ws-${n % 100}` });
graph.compact();
const baseline = held();
const startNodes = graph.nodeCount;
console.log(`graph churn, node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}: ${HOSTS.toLocaleString("en")} hosts reported and deleted, ${LIVE} alive at a time`);
console.log("\n| hosts reported | relationships | objects | held | B per object named | RSS |\n|---|---|---|---|---|---|");
const perStep = Math.ceil(HOSTS / STEPS);
let n = 0;
for (let step = 1; step <= STEPS; step++) {
  for (const end = Math.min(HOSTS, step * perStep); n < end; n++) {
    graph.add(placement(n));
    if (n >= LIVE) graph.remove(placement(n - LIVE));
  }
  graph.compact();
  const bytes = held() - baseline;
  const objects = graph.nodeCount - startNodes;
  console.log(
    `| ${n.toLocaleString("en")} | ${graph.size.toLocaleString("en")} | ${graph.nodeCount.toLocaleString("en")} | ${mib(bytes)} | ${(bytes / objects).toFixed(1)} | ${mib(process.memoryUsage().rss)} |`,
  );
}
