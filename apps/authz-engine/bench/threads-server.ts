// A server process of the threads benchmark (threads.ts), so its CPU (process.cpuUsage, every
// thread of the process) and memory (RSS) are its own:
//   engine-1  the engine on one thread (threads: 1, today's path)
//   engine-2  the same on two threads (threads: 2: one graph in shared memory, SO_REUSEPORT)
//   floor     a bare grpc-js Server answering a constant response (the transport's own cost)
//   prepare   (run first, alone) a store and a checkpoint in the directory given: the fixture's readable
//             hosts plus BENCH_RELATIONSHIPS relationships of the scale data set (bench/scale-data.ts)
// The engines start from that checkpoint (read once, then dropped), each over its own copy of the
// in-process store, so a start takes seconds and no server holds what building the graph left behind.
// Messages from the parent: "cpu" (answers this process's CPU time so far, µs), "memory" (RSS and
// its anonymous part after a full collection of the first thread's heap, bytes), { writes: n } (n
// relationships of new hosts written through the store in commits of 1000, answered once the engine
// applied the last: every thread then holds objects the shared base does not), "exit".
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { RelationshipGraph } from "@gatehouse/evaluator";
import { compileRoleModel } from "@gatehouse/role-config";
import { openStore } from "@gatehouse/store";
import { createSilentLogger, type MetricsJson } from "@gatehouse/telemetry";
// The engine as it is deployed (its build: bench:threads builds it first), so each thread runs
// compiled JavaScript, not source under a TypeScript loader.
import { buildServer, encodeCheckpoint, schemaHash, type CheckpointStore } from "@gatehouse/authz-engine";
import { rel, seedReadableHosts } from "./fixture.js";
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
interface Served {
  port: number;
  write(count: number): Promise<void>;
  /** A full collection on every thread but this one. */
  collect(): Promise<void>;
  /** Each thread's V8 heap as committed (heap total), bytes, in thread order. */
  heaps(): Promise<number[]>;
  /** gRPC calls each thread answered so far, in thread order (empty for the floor). */
  calls(): Promise<number[]>;
  close(): Promise<void>;
}

async function engine(dir: string, threads: number): Promise<Served> {
  const own = join(dir, `engine-${threads}`);
  rmSync(own, { recursive: true, force: true });
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
  let written = 0;
  return {
    port,
    write: async (count) => {
      let revision = 0;
      for (let done = 0; done < count; done += 1000) {
        const hosts = Array.from({ length: Math.min(1000, count - done) }, (_, i) => `written-host-${written + done + i}`);
        ({ revision } = await store.relationships.write("bench-org", { touch: hosts.map((id) => rel("hbi/host", id, "t_workspace", "rbac/workspace", "bench-written")) }));
      }
      written += count;
      while (server.appliedAt(revision) === undefined) await sleep(50);
      // The other threads apply each commit after this one (a message each): let them catch up.
      await sleep(1000);
      shareMs = server.threads()?.lastShareMs;
    },
    collect: async () => {
      await server.threads()?.collect();
    },
    heaps: async () => {
      const all = await server.threads()?.allMetrics();
      if (!all) return [process.memoryUsage().heapTotal];
      return all.map(({ metrics }) => total(metrics, "nodejs_heap_size_total_bytes"));
    },
    calls: async () => {
      const all = await server.threads()?.allMetrics();
      return all ? all.map(({ metrics }) => total(metrics, "grpc_server_handled_total")) : [];
    },
    close: async () => {
      await server.stop();
      await store.close();
    },
  };
}

/** The sum of a metric's series in one thread's metrics. */
const total = (metrics: MetricsJson, name: string) => (metrics.find((m) => m.name === name)?.values ?? []).reduce((sum, v) => sum + v.value, 0);

const floor = async (): Promise<Served> => ({
  ...(await grpcFloor()),
  write: async () => undefined,
  collect: async () => undefined,
  heaps: async () => [process.memoryUsage().heapTotal],
  calls: async () => [],
});

/** The process's resident memory (/proc/self/status: RssAnon, the anonymous part, holds the graph and heaps), bytes. */
function residentParts(): { rssAnon?: number; rssFile?: number; rssShmem?: number } {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
    return { rssAnon: kib("RssAnon"), rssFile: kib("RssFile"), rssShmem: kib("RssShmem") };
  } catch {
    return {}; // not Linux
  }
}

/** How long the engine's last shared base took (engine-2), ms. */
let shareMs: number | undefined;
const dir = process.argv[3]!;
if (role === "prepare") {
  await prepare(dir);
  process.exit(0);
}
const started = role === "floor" ? await floor() : await engine(dir, role === "engine-2" ? 2 : 1);
process.on("message", async (message: string | { writes: number }) => {
  if (message === "cpu") {
    const cpu = process.cpuUsage();
    process.send!({ cpu: cpu.user + cpu.system, calls: await started.calls() });
  } else if (message === "memory") {
    // Every thread's heap collected (gc is exposed to each: V8's flags are the process's), until the
    // resident size stops falling: V8 frees array buffers' memory on a helper thread after a
    // collection, so a reading right after one can still count a graph already let go.
    let usage = process.memoryUsage();
    for (let settled = 0; settled < 10; settled++) {
      await started.collect();
      gc();
      await sleep(250);
      const now = process.memoryUsage();
      const fell = usage.rss - now.rss;
      usage = now;
      if (settled > 0 && fell < 2 ** 20) break;
    }
    process.send!({
      rss: usage.rss,
      ...residentParts(),
      arrayBuffers: usage.arrayBuffers,
      heapUsed: usage.heapUsed,
      heapTotal: usage.heapTotal,
      external: usage.external,
      heaps: await started.heaps(),
      shareMs,
    });
  } else if (typeof message === "object" && message !== null && "writes" in message) {
    void started.write((message as { writes: number }).writes).then(() => process.send!({ written: true }));
  } else if (message === "exit") {
    void started.close().finally(() => process.exit(0));
  }
});
process.send!({ port: started.port });
