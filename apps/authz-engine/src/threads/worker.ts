// An engine thread besides the first (threads/pool.ts starts it): the whole engine surface on the
// same ports (SO_REUSEPORT), answering from the shared graph, its store calls made by the first thread.
import { parentPort, workerData } from "node:worker_threads";
import { createLogger } from "@gatehouse/telemetry";
import { createEngineMetrics, type ThreadMetrics } from "../metrics.js";
import { buildServer } from "../server.js";
import type { WorkerData, WorkerReport } from "./pool.js";
import { bridgedStore } from "./store-bridge.js";
import { threadRole, type ThreadMessage } from "./worker-source.js";

const data = workerData as WorkerData;
const port = parentPort!;
const store = bridgedStore(data.facts, data.storePort);
const role = threadRole(store);
const logger = createLogger({ name: "authz-engine", level: data.logLevel }).child({ thread: data.index });
const metrics = createEngineMetrics();
// A scrape this thread takes shows every thread's metrics: the first thread gathers them.
let metricsAsked = 0;
const metricsAnswers = new Map<number, (threads: ThreadMetrics[]) => void>();
const allMetrics = () =>
  new Promise<ThreadMetrics[]>((resolve) => {
    const id = metricsAsked++;
    metricsAnswers.set(id, resolve);
    port.postMessage({ type: "metrics-request", id } satisfies WorkerReport);
  });
const server = buildServer({ ...data.config, store, thread: { ...role, allMetrics }, logger, metrics, threads: 1 });
let stopping = false;
// A defect reached the top: the connections are ended first (their calls fail as UNAVAILABLE, never
// answered wrongly), then the thread exits once their sockets have closed (timers run after the
// loop's close callbacks); the first thread starts a new one. Exiting with connections still open
// could have the runtime read into a stream whose JavaScript side is already gone.
process.on("uncaughtException", (error) => {
  logger.fatal({ err: error }, "engine thread failed; ending its connections and exiting");
  server.abort();
  setTimeout(() => process.exit(1), 0);
});
port.on("message", (message: ThreadMessage) => {
  if (message.type === "metrics") {
    void metrics.metrics.registry.getMetricsAsJSON().then((json) => port.postMessage({ type: "metrics", id: message.id, metrics: json } satisfies WorkerReport));
    return;
  }
  if (message.type === "metrics-all") {
    metricsAnswers.get(message.id)?.(message.threads);
    metricsAnswers.delete(message.id);
    return;
  }
  if (message.type === "collect") {
    (globalThis as { gc?: () => void }).gc?.();
    port.postMessage({ type: "collected", id: message.id } satisfies WorkerReport);
    return;
  }
  if (message.type === "fail") {
    setImmediate(() => {
      throw new Error("engine thread failure requested");
    });
    return;
  }
  if (message.type !== "stop") {
    role.receive(message);
    return;
  }
  if (stopping) return;
  stopping = true;
  void server.stop().finally(() => process.exit(0));
});
const started = await server.start();
port.postMessage({ type: "ready", port: started.port } satisfies WorkerReport);
