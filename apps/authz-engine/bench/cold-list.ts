// StreamedListObjects on a freshly started engine: time to the first item and to the end, with the
// answer ordered lazily as it is sent ("lazy", the engine as it is) against the whole answer looked
// up and sorted before the first item ("eager", the behaviour before: `lookupResources`, then the
// page), side by side in one process, alternating. Every round builds a fresh engine graph from the
// same relationships (nothing cached: no lookup result, no per-type order), so each list is cold.
// The handler runs in process and items are encoded as for the wire; the transport is left out.
// Each figure is wall time with the process's CPU time in brackets (on a shared machine the wall
// time is mostly waiting for a core).
// Lists: a user who sees all LIST_HOSTS hosts (default 100,000) and one who sees a tenth of them
// (one of ten workspaces), each listed whole in one stream and as a first page of 1,000.
// Run: pnpm --filter @gatehouse/authz-engine bench:cold-list   (LIST_HOSTS, LIST_ROUNDS=7)
import { availableParallelism, loadavg } from "node:os";
import { compileSchema, lookupResources, type Relationship, SortedIdList } from "@gatehouse/evaluator";
import { percentile } from "@gatehouse/telemetry";
import { createSilentLogger } from "@gatehouse/telemetry";
import { readFileSync } from "node:fs";
import type { EngineContext } from "../src/commands/context.js";
import { LookupCache } from "../src/commands/lookup-cache.js";
import { openWritePolicy } from "../src/commands/write-policy.js";
import { EngineGraph } from "../src/graph/engine-graph.js";
import { listHandlers } from "../src/handlers/lists.js";
import { fixedSource, random } from "./scale-data.js";
import { rel } from "./fixture.js";

const HOSTS = Number(process.env["LIST_HOSTS"] ?? 100_000);
const ROUNDS = Number(process.env["LIST_ROUNDS"] ?? 7);
const WORKSPACES = 10;
const schema = readFileSync(new URL("../../../fixtures/rbac-config/stage/schema.zed", import.meta.url), "utf8");
const model = compileSchema(schema);

function grant(ws: string, user: string): Relationship[] {
  const binding = `b-${ws}-${user}`;
  return [
    rel("rbac/role_binding", binding, "t_role", "rbac/role", "readers"),
    rel("rbac/role_binding", binding, "t_subject", "rbac/principal", `redhat/${user}`),
    rel("rbac/workspace", ws, "t_binding", "rbac/role_binding", binding),
  ];
}

// Ten child workspaces under a root; "all" is granted on the root, "tenth" on one child. Host ids
// are interned in a shuffled order, as hosts reported over time would be.
const relationships: Relationship[] = [rel("rbac/role", "readers", "t_inventory_hosts_read", "rbac/principal", "*"), ...grant("root", "all"), ...grant("ws-3", "tenth")];
for (let w = 0; w < WORKSPACES; w++) relationships.push(rel("rbac/workspace", `ws-${w}`, "t_parent", "rbac/workspace", "root"));
const rand = random(42);
const hosts = Array.from({ length: HOSTS }, (_, i) => i);
for (let i = hosts.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [hosts[i], hosts[j]] = [hosts[j]!, hosts[i]!];
}
for (const h of hosts) relationships.push(rel("hbi/host", `host-${String(h).padStart(7, "0")}`, "t_workspace", "rbac/workspace", `ws-${h % WORKSPACES}`));

async function freshEngine(mode: "lazy" | "eager"): Promise<EngineContext> {
  const source = fixedSource(relationships);
  const graph = new EngineGraph({ model, source, logger: createSilentLogger() });
  await graph.load();
  const lookupCache = new LookupCache();
  if (mode === "eager") {
    // The behaviour before: the whole answer found and sorted (`lookupResources`) before any page.
    lookupCache.getOrCompute = (_graph, _revision, key, _compute) => {
      const [, , objectType, permission, subject] = key.split("\u0000") as string[];
      const [type, rest] = subject!.split(/:(.*)/s) as [string, string];
      const id = rest.slice(0, rest.lastIndexOf("#"));
      return new SortedIdList(lookupResources(graph.graph, objectType!, permission!, { type, id }));
    };
  }
  return {
    graph,
    source,
    model,
    now: Date.now,
    domain: "redhat",
    freshnessTimeoutMs: 1000,
    listDefaultLimit: 1000,
    listMaxLimit: HOSTS,
    lookupCache,
    writer: undefined as unknown as EngineContext["writer"],
    writePolicy: openWritePolicy,
  };
}

/** CPU time of this process so far, ms (wall time on a loaded machine is mostly waiting for a core). */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function list(ctx: EngineContext, user: string, limit: number): Promise<{ first: number; end: number; firstCpu: number; endCpu: number; count: number; last: string }> {
  let first = 0;
  let firstCpu = 0;
  let count = 0;
  let last: Buffer | undefined;
  const startedCpu = cpuMs();
  const started = performance.now();
  await listHandlers(ctx).streamedListObjects(
    {
      objectType: { resourceType: "host", reporterType: "hbi" },
      relation: "view",
      subject: { resource: { resourceType: "principal", resourceId: `redhat/${user}`, reporter: { type: "rbac" } } },
      pagination: { limit },
    },
    { identity: null, cancelled: () => false },
    (message) => {
      if (count === 0) {
        first = performance.now() - started;
        firstCpu = cpuMs() - startedCpu;
      }
      count++;
      last = message as Buffer;
    },
  );
  const end = performance.now() - started;
  return { first, end, firstCpu, endCpu: cpuMs() - startedCpu, count, last: last ? last.toString("latin1") : "" };
}

const cases = [
  { user: "all", limit: HOSTS, label: `all ${HOSTS.toLocaleString("en")} hosts, one stream` },
  { user: "all", limit: 1000, label: `all ${HOSTS.toLocaleString("en")} hosts, first page of 1,000` },
  { user: "tenth", limit: HOSTS, label: `${(HOSTS / WORKSPACES).toLocaleString("en")} of ${HOSTS.toLocaleString("en")} hosts, one stream` },
  { user: "tenth", limit: 1000, label: `${(HOSTS / WORKSPACES).toLocaleString("en")} of ${HOSTS.toLocaleString("en")} hosts, first page of 1,000` },
];

async function main() {
  const load = loadavg()[0]!.toFixed(1);
  const results = new Map<string, { first: number[]; end: number[]; firstCpu: number[]; endCpu: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    const order: ("lazy" | "eager")[] = round % 2 === 0 ? ["lazy", "eager"] : ["eager", "lazy"];
    for (const c of cases) {
      const outputs: string[] = [];
      for (const mode of order) {
        const ctx = await freshEngine(mode);
        const r = await list(ctx, c.user, c.limit);
        outputs.push(`${r.count}:${r.last}`);
        const key = `${c.label}\u0000${mode}`;
        if (!results.has(key)) results.set(key, { first: [], end: [], firstCpu: [], endCpu: [] });
        const into = results.get(key)!;
        into.first.push(r.first);
        into.end.push(r.end);
        into.firstCpu.push(r.firstCpu);
        into.endCpu.push(r.endCpu);
        await ctx.graph.close();
      }
      if (outputs[0] !== outputs[1]) throw new Error(`lazy and eager lists differ (${c.label})`);
    }
  }
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  console.log(
    `\ncold StreamedListObjects (fresh engine each list), node ${process.version}, load average ${load} → ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores, ${ROUNDS} rounds, medians, wall (CPU of this process)\n`,
  );
  console.log("| list | eager (before): first item / end | lazy (after): first item / end |\n|---|---|---|");
  const cell = (r: { first: number[]; end: number[]; firstCpu: number[]; endCpu: number[] }) =>
    `${median(r.first).toFixed(1)} ms (${median(r.firstCpu).toFixed(1)}) / ${median(r.end).toFixed(0)} ms (${median(r.endCpu).toFixed(0)})`;
  for (const c of cases) {
    console.log(`| ${c.label} | ${cell(results.get(`${c.label}\u0000eager`)!)} | ${cell(results.get(`${c.label}\u0000lazy`)!)} |`);
  }
}

await main();
