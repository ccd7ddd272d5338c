// The first engine thread's side of the others: it starts them, shares its graph with them in
// shared memory, posts each commit it applied to every one of them, moves the base forward once
// enough changes piled up in the threads' overlays, and replaces a thread that died.
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import type { Model, RelationshipGraph } from "@gatehouse/evaluator";
import type { Store } from "@gatehouse/store";
import type { Logger, MetricsJson } from "@gatehouse/telemetry";
import type { EngineConfig } from "../config.js";
import type { EngineGraph } from "../graph/engine-graph.js";
import type { ChangeBatch } from "../graph/source.js";
import type { ThreadMetrics } from "../metrics.js";
import { graphOfBase, shareGraph, type SharedBase } from "./shared-graph.js";
import { serveStoreCalls, storeFacts, type StoreFacts } from "./store-bridge.js";
import type { ThreadMessage } from "./worker-source.js";

/** What a thread is started with (structured-cloned: plain data and the store's message port). */
export interface WorkerData {
  index: number;
  config: EngineConfig;
  facts: StoreFacts;
  logLevel: string;
  storePort: MessagePort;
}

/** Messages of a thread to the first one: it serves; its metrics (asked by `metrics`); a scrape it took asks for every thread's. */
export type WorkerReport = { type: "ready"; port: number } | { type: "metrics"; id: number; metrics: MetricsJson } | { type: "metrics-request"; id: number } | { type: "collected"; id: number };

/** Changes since the base after which a new base is shared: a floor, or this fraction of the graph. */
const REBASE_MIN_CHANGES = 4096;
const REBASE_FRACTION = 1 / 64;
const rebaseAfter = (relationships: number) => Math.max(REBASE_MIN_CHANGES, Math.ceil(relationships * REBASE_FRACTION));
/** Id bytes of room per object: twice a graph's mean id length, and at least this. */
const MIN_ROOM_ID_BYTES = 48;

/**
 * Room after a base's node arrays for the objects the commits until the next base add: each change
 * adds at most two (its resource and its subject), so twice the changes that make a new base, and a
 * batch's worth over (a base is made after the batch that crossed the line). Untouched room costs
 * address space only; a thread that outgrows it copies the node arrays, as without room.
 */
function roomFor(graph: RelationshipGraph): { nodes: number; idBytes: number } {
  const nodes = 2 * rebaseAfter(graph.size) + 2 * REBASE_MIN_CHANGES;
  const meanId = graph.nodeCount === 0 ? 0 : graph.idArrays().offsets[graph.nodeCount]! / graph.nodeCount;
  return { nodes, idBytes: nodes * Math.max(MIN_ROOM_ID_BYTES, Math.ceil(2 * meanId)) };
}

export interface EngineThreadsOptions {
  /** Threads in all, this one included. */
  count: number;
  store: Store;
  graph: EngineGraph;
  /** The schema the graph is on now. */
  model: () => Model;
  /** The config of the other threads (cloneable: no functions, no open handles). */
  config: EngineConfig;
  logger: Logger;
  /** This thread's metrics (thread 0 of allMetrics). */
  ownMetrics?: () => Promise<MetricsJson>;
  /** A thread exited while the engine ran (it is replaced). */
  onExit?: (index: number, code: number) => void;
}

/**
 * Flags of this process that apply to every thread and are passed on: a CPU or heap profile
 * (`node --cpu-prof`) then covers each thread, one file per thread (named by thread id).
 */
const PER_THREAD_FLAG = /^--(cpu-prof|heap-prof)/;

/** The worker's entry: the built file, or the source under a TypeScript loader (tests, benchmarks). */
function workerEntry(): { url: URL; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith(".ts");
  const passed = process.execArgv.filter((flag) => PER_THREAD_FLAG.test(flag));
  return fromSource
    ? { url: new URL("./worker.ts", import.meta.url), execArgv: ["--import", "tsx", "--conditions=source", ...passed] }
    : { url: new URL("./worker.js", import.meta.url), execArgv: passed };
}

/**
 * Posts `question` to `worker` and resolves with the first report `answer` accepts (a value other
 * than undefined), or undefined if the thread exits first.
 */
function ask<T>(worker: Worker, question: ThreadMessage, answer: (report: WorkerReport) => T | undefined): Promise<T | undefined> {
  return new Promise((resolve) => {
    const onReport = (report: WorkerReport) => {
      const value = answer(report);
      if (value === undefined) return;
      done();
      resolve(value);
    };
    const onExit = () => {
      done();
      resolve(undefined);
    };
    const done = () => {
      worker.off("message", onReport);
      worker.off("exit", onExit);
    };
    worker.on("message", onReport);
    worker.once("exit", onExit);
    worker.postMessage(question);
  });
}

export class EngineThreads {
  private readonly workers: Array<Worker | undefined>;
  private base: SharedBase | undefined;
  private since: ChangeBatch[] = [];
  private sinceChanges = 0;
  private stopping = false;
  /** Ids of the questions asked of the threads (metrics, collections), so each answer finds its question. */
  private asked = 0;
  /** Threads started, replacements included (diagnostics, tests). */
  started = 0;
  /** How long the last shared base took to make and adopt, ms (diagnostics, benchmark). */
  lastShareMs = 0;

  constructor(private readonly options: EngineThreadsOptions) {
    this.workers = new Array<Worker | undefined>(options.count).fill(undefined);
  }

  /** Shares the graph and starts the other threads; resolves once each serves. */
  async start(): Promise<void> {
    this.share();
    await Promise.all(this.workers.map((_, index) => (index === 0 ? undefined : this.spawn(index))));
  }

  /** The threads serving now besides this one. */
  get running(): Worker[] {
    return this.workers.filter((w): w is Worker => w !== undefined);
  }

  /**
   * Copies the graph at its applied revision into shared memory, answers from the copy here too
   * (the graph's own arrays are then released) and sends it to every thread.
   */
  share(): void {
    const began = performance.now();
    const { graph, store } = this.options;
    const model = this.options.model();
    const base = shareGraph(graph.graph, model, store.storeId, graph.appliedRevision, roomFor(graph.graph));
    // This thread applies each commit first: it writes the objects they add into the room, where
    // the others find them.
    graph.adopt(graphOfBase(base, model, store.storeId, "write"), base.revision);
    this.base = base;
    this.since = [];
    this.sinceChanges = 0;
    this.post({ type: "base", base });
    this.lastShareMs = performance.now() - began;
  }

  /** The first thread applied `batch`: every thread applies it; the base moves on when due. */
  applied(batch: ChangeBatch): void {
    if (this.stopping) return;
    this.since.push(batch);
    this.sinceChanges += batch.changes.length;
    this.post({ type: "batch", batch });
    if (this.sinceChanges >= rebaseAfter(this.options.graph.graph.size)) this.share();
  }

  private post(message: ThreadMessage): void {
    for (const worker of this.workers) worker?.postMessage(message);
  }

  private spawn(index: number): Promise<void> {
    const { store, logger } = this.options;
    const channel = new MessageChannel();
    serveStoreCalls(store, channel.port1);
    const { url, execArgv } = workerEntry();
    const data: WorkerData = { index, config: this.options.config, facts: storeFacts(store), logLevel: logger.level, storePort: channel.port2 };
    const worker = new Worker(url, { workerData: data, transferList: [channel.port2], execArgv });
    this.started++;
    this.workers[index] = worker;
    // The base and every commit after it, then each commit as it is applied (in order: one port).
    if (this.base) worker.postMessage({ type: "base", base: this.base } satisfies ThreadMessage);
    for (const batch of this.since) worker.postMessage({ type: "batch", batch } satisfies ThreadMessage);
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on("message", (report: WorkerReport) => {
        if (report.type === "ready") {
          ready = true;
          resolve();
        } else if (report.type === "metrics-request") {
          void this.allMetrics().then((threads) => worker.postMessage({ type: "metrics-all", id: report.id, threads } satisfies ThreadMessage));
        }
      });
      worker.on("error", (error) => logger.error({ err: error, thread: index }, "engine thread failed"));
      worker.once("exit", (code) => {
        channel.port1.close();
        if (this.workers[index] === worker) this.workers[index] = undefined;
        if (this.stopping) return;
        this.options.onExit?.(index, code);
        if (!ready) {
          reject(new Error(`engine thread ${index} exited (code ${code}) before it served`));
          return;
        }
        // Its connections are gone (their calls fail as UNAVAILABLE; clients retry on another):
        // a new thread binds the port again.
        logger.warn({ thread: index, code }, "engine thread exited; starting a new one");
        this.spawn(index).catch((error: unknown) => logger.error({ err: error, thread: index }, "engine thread could not be replaced"));
      });
    });
  }

  /**
   * Every thread's metrics (each has its own registry), this one's first, then the others in thread
   * order; a thread that exits before it answers is left out.
   */
  allMetrics(): Promise<ThreadMetrics[]> {
    const id = this.asked++;
    const others = this.workers.map((worker, thread) =>
      worker === undefined || thread === 0
        ? undefined
        : ask(worker, { type: "metrics", id }, (report) => (report.type === "metrics" && report.id === id ? { thread, metrics: report.metrics } : undefined)),
    );
    const own = this.options.ownMetrics?.().then((metrics): ThreadMetrics => ({ thread: 0, metrics }));
    return Promise.all([own, ...others]).then((all) => all.filter((t): t is ThreadMetrics => t !== undefined));
  }

  /** A full garbage collection on every other thread (where the process runs with `--expose-gc`; benchmarks): resolves once each is done. */
  async collect(): Promise<void> {
    const id = this.asked++;
    await Promise.all(this.running.map((worker) => ask(worker, { type: "collect", id }, (report) => (report.type === "collected" && report.id === id ? true : undefined))));
  }

  /** Makes thread `index` fail as a defect would (tests and drills: it ends its connections, exits and is replaced). */
  fail(index: number): void {
    this.workers[index]?.postMessage({ type: "fail" } satisfies ThreadMessage);
  }

  /** Asks every thread to drain and stop, and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.running.map(
        (worker) =>
          new Promise<void>((resolve) => {
            worker.once("exit", () => resolve());
            worker.postMessage({ type: "stop" } satisfies ThreadMessage);
          }),
      ),
    );
  }
}
