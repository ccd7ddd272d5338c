// A server process of the threads benchmark (threads.ts), so its CPU (process.cpuUsage, every
// thread of the process) and memory (RSS) are its own:
//   engine-1  the engine on one thread (threads: 1, today's path)
//   engine-2  the same on two threads (threads: 2: one graph in shared memory, SO_REUSEPORT)
//   floor     a bare grpc-js Server answering a constant response (the transport's own cost)
//   prepare   (run first, alone) a store and a checkpoint in the directory given: the fixture's readable
//             hosts plus BENCH_RELATIONSHIPS relationships of the scale data set (bench/scale-data.ts)
// The engines start from that checkpoint (read once, then dropped), each over its own copy of the
// in-process store, so a start takes seconds and no server holds what building the graph left behind.
// Messages from the parent: "cpu" (answers this process's CPU time so far, µs), "memory" (RSS after
// a full collection, bytes), "exit".
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { RelationshipGraph } from "@gatehouse/evaluator";
import { compileRoleModel } from "@gatehouse/role-config";
import { openStore } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { encodeCheckpoint, schemaHash, type CheckpointStore } from "../src/graph/checkpoint.js";
import { buildServer } from "../src/index.js";
import { seedReadableHosts } from "./fixture.js";
import { scaleRelationships } from "./scale-data.js";
import { grpcFloor } from "./floor-server.js";

const role = process.argv[2] as "prepare" | "engine-1" | "engine-2" | "floor";
const SIZE = Number(process.env["BENCH_RELATIONSHIPS"] ?? 1_000_000);

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A checkpoint store handing out one checkpoint once (the engine then holds the only reference). */
function onceCheckpoint(revision: number, bytes: Uint8Array): CheckpointStore {
  let held: Uint8Array | undefined = bytes;
  return {
    location: "benchmark",
    list: async () => (held ? [{ key: "bench", revision }] : []),
    read: async () => {
      const given = held!;
      held = undefined;
      return given;
    },
    write: async () => undefined,
  };
}

/**
 * Run once before the servers (its own process, so no server holds what building the graph left
 * behind): a store in `dir`/base with the fixture's tenant, and a checkpoint of its relationships
 * plus the scale data set at its revision.
 */
async function prepare(dir: string): Promise<void> {
  const store = await openStore({ dataDir: join(dir, "base") });
  await seedReadableHosts(
    store,
    "bench-org",
    "bench-user",
    Array.from({ length: 1000 }, (_, i) => `host-${i}`),
  );
  const model = compileRoleModel("stage");
  const snapshot = await store.feed.snapshot();
  const graph = new RelationshipGraph(model);
  graph.startBulk();
  for await (const batch of snapshot.batches) for (const r of batch) graph.add(r);
  for (const r of scaleRelationships({ relationships: SIZE, model }).relationships) graph.add(r);
  graph.compact();
  writeFileSync(join(dir, "checkpoint.bin"), encodeCheckpoint(graph, { storeId: store.storeId, schemaHash: schemaHash(model), revision: snapshot.revision }));
  writeFileSync(join(dir, "revision.json"), JSON.stringify(snapshot.revision));
  await store.close();
}

/** The engine over a copy of the prepared store, started from the prepared checkpoint. */
async function engine(dir: string, threads: number): Promise<{ port: number; close(): Promise<void> }> {
  const own = join(dir, `engine-${threads}`);
  cpSync(join(dir, "base"), own, { recursive: true });
  const store = await openStore({ dataDir: own, pollIntervalMs: 1000 });
  const revision = JSON.parse(readFileSync(join(dir, "revision.json"), "utf8")) as number;
  const file = readFileSync(join(dir, "checkpoint.bin"));
  const server = buildServer({
    host: "127.0.0.1",
    port: 0,
    metricsPort: 0,
    environment: "stage",
    store,
    logger: createSilentLogger(),
    threads,
    checkpoint: { store: onceCheckpoint(revision, new Uint8Array(file.buffer, file.byteOffset, file.byteLength)), intervalMs: 0 },
  });
  const { port } = await server.start();
  shareMs = server.threads()?.lastShareMs;
  return {
    port,
    close: async () => {
      await server.stop();
      await store.close();
    },
  };
}

const floor = grpcFloor;

/** How long the engine's last shared base took (engine-2), ms. */
let shareMs: number | undefined;
const dir = process.argv[3]!;
if (role === "prepare") {
  await prepare(dir);
  process.exit(0);
}
const started = role === "floor" ? await floor() : await engine(dir, role === "engine-2" ? 2 : 1);
process.on("message", (message: string) => {
  if (message === "cpu") {
    const cpu = process.cpuUsage();
    process.send!({ cpu: cpu.user + cpu.system });
  } else if (message === "memory") {
    gc();
    const usage = process.memoryUsage();
    process.send!({ rss: usage.rss, arrayBuffers: usage.arrayBuffers, heapUsed: usage.heapUsed, shareMs });
  } else if (message === "exit") {
    void started.close().finally(() => process.exit(0));
  }
});
process.send!({ port: started.port });
