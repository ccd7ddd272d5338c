// Feed apply, read from Postgres against the same changes applied from memory, side by side in one
// process: the change-feed commits of the scale bench (FEED_COMMITS commits of FEED_BATCH new hosts
// in the largest tenant's default workspace, then as many deleting them), applied to a graph of
// FEED_GRAPH relationships built in memory from bench/scale-data.ts. Each round runs both, in
// alternating order:
//   postgres: the store's follower reads the commits (`follow`, as a replica catching up) and each
//             batch is applied to the graph as it arrives;
//   memory:   the same batches, read once before the rounds, applied to the graph.
// A third line reads the feed without applying it (`changesSince` in pages of 1,000 commits), so
// the read's own cost is apart. FEED_FROM_CHECKPOINT=1 starts every round of both paths from a
// graph freshly decoded from a checkpoint of the same graph, as a replica catching up after its
// start (the first commit then pays the copies the graph makes of the checkpoint's arrays);
// unset, both paths apply to one graph that already made them. Medians over the rounds; CPU time
// is this process's (the database's CPU is not in it).
// Run: DATABASE_URL=postgres://…/<db> pnpm --filter @gatehouse/authz-engine bench:feed
//   (FEED_GRAPH=1000000 by default, FEED_ROUNDS=7, FEED_COMMITS=100, FEED_BATCH=1000,
//   FEED_FROM_CHECKPOINT=1)
// The commits are written into a schema of their own, dropped at the end.
import { availableParallelism, loadavg } from "node:os";
import { RelationshipGraph, type Relationship } from "@gatehouse/evaluator";
import { compileRoleModel } from "@gatehouse/role-config";
import { openStore } from "@gatehouse/store";
import { dropSchema } from "@gatehouse/store/testing";
import { percentile } from "@gatehouse/telemetry";
import { decodeCheckpoint, encodeCheckpoint, schemaHash } from "../src/graph/checkpoint.js";
import type { ChangeBatch } from "../src/graph/source.js";
import { storeGraphSource } from "../src/graph/store-source.js";
import { scaleRelationships, workspaceId } from "./scale-data.js";

const GRAPH = Number(process.env["FEED_GRAPH"] ?? 1_000_000);
const ROUNDS = Number(process.env["FEED_ROUNDS"] ?? 7);
const COMMITS = Number(process.env["FEED_COMMITS"] ?? 100);
const BATCH = Number(process.env["FEED_BATCH"] ?? 1000);
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const FROM_CHECKPOINT = process.env["FEED_FROM_CHECKPOINT"] === "1";
const ORG = "scale-org";
const schema = `bench_feed_${process.pid}`;

const cpuSince = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000)).toLocaleString("en");

async function main() {
  const model = compileRoleModel("stage");
  const data = scaleRelationships({ relationships: GRAPH, model });
  let graph = new RelationshipGraph(model);
  for (const r of data.relationships) graph.add(r);
  graph.compact();
  const largest = data.shape.tenants[0]!;

  const store = await openStore({ databaseUrl, schema, pollIntervalMs: 1000 });
  try {
    await store.tenants.bootstrap(ORG);
    const source = storeGraphSource(store);
    const from = await source.headRevision();
    const half = COMMITS >> 1;
    const hosts = Array.from({ length: half }, (_, c) =>
      Array.from(
        { length: BATCH },
        (_, i): Relationship => ({ resourceType: "hbi/host", resourceId: `feed-${c}-${i}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: workspaceId(largest.id, 0) }),
      ),
    );
    for (const touch of hosts) await store.relationships.write(ORG, { touch });
    for (const del of hosts) await store.relationships.write(ORG, { delete: del });
    const target = await source.headRevision();
    const identity = { storeId: store.storeId, schemaHash: schemaHash(model) };
    const checkpoint = FROM_CHECKPOINT ? encodeCheckpoint(graph, { ...identity, revision: from }) : undefined;

    const apply = (batch: ChangeBatch) => {
      for (const change of batch.changes) {
        if (change.op === "add") graph.add(change.relationship);
        else graph.remove(change.relationship);
      }
    };
    const sizeBefore = graph.size;

    // Follows from `from` until the target revision; each batch goes to `onBatch`.
    const follow = (onBatch: (batch: ChangeBatch) => void) =>
      new Promise<void>((resolve, reject) => {
        const handle = source.follow(
          from,
          (batch) => {
            onBatch(batch);
            if (batch.revision >= target) {
              void Promise.resolve(handle.stop()).then(resolve, reject);
            }
          },
          reject,
        );
      });

    const batches: ChangeBatch[] = [];
    await follow((b) => batches.push(b));
    const changes = batches.reduce((n, b) => n + b.changes.length, 0);

    type Result = { wall: number; cpu: number };
    const results: Record<"postgres" | "memory" | "read", Result[]> = { postgres: [], memory: [], read: [] };
    const run = async (kind: "postgres" | "memory" | "read") => {
      if (checkpoint && kind !== "read") graph = decodeCheckpoint(checkpoint, model, identity).graph;
      const started = performance.now();
      const cpu = process.cpuUsage();
      if (kind === "postgres") await follow(apply);
      else if (kind === "memory") for (const b of batches) apply(b);
      else {
        let last = from;
        for (;;) {
          const page = await store.feed.changesSince(last, 1000);
          if (page.length === 0) break;
          last = page[page.length - 1]!.revision;
          if (last >= target) break;
        }
      }
      results[kind].push({ wall: performance.now() - started, cpu: cpuSince(cpu) });
      if (graph.size !== sizeBefore) throw new Error("the feed did not return the graph to its size");
    };
    // One warm-up round of each (the first changes copy lists into the graph's overlay).
    await run("memory");
    await run("postgres");
    await run("read");
    for (const k of Object.keys(results) as (keyof typeof results)[]) results[k].length = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const order: ("postgres" | "memory" | "read")[] = round % 2 === 0 ? ["postgres", "memory", "read"] : ["read", "memory", "postgres"];
      for (const kind of order) await run(kind);
    }

    console.log(
      `\nfeed bench, node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores: ${changes.toLocaleString("en")} changes in ${batches.length} commits, graph of ${graph.size.toLocaleString("en")} relationships${FROM_CHECKPOINT ? " decoded from a checkpoint each round" : ""}, ${ROUNDS} rounds (medians)\n`,
    );
    console.log("| path | wall | CPU | changes/s | per CPU second |\n|---|---|---|---|---|");
    const label = { postgres: "read from Postgres and applied (follow)", memory: "applied from memory", read: "read from Postgres only (changesSince)" };
    for (const kind of ["postgres", "memory", "read"] as const) {
      const wall = median(results[kind].map((r) => r.wall));
      const cpu = median(results[kind].map((r) => r.cpu));
      console.log(`| ${label[kind]} | ${wall.toFixed(0)} ms | ${cpu.toFixed(0)} ms | ${rate(changes, wall)} | ${rate(changes, cpu)} |`);
    }
    const ratio = median(results.postgres.map((r, i) => r.cpu / results.memory[i]!.cpu));
    console.log(`\nCPU per round, Postgres / memory (median of paired rounds): ${ratio.toFixed(2)}×`);
  } finally {
    await store.close();
    await dropSchema(databaseUrl, schema);
  }
}

await main();
