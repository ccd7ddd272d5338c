// An engine thread besides the first (threads/pool.ts starts it): the whole engine surface on the
// same ports (SO_REUSEPORT), answering from the shared graph, its store calls made by the first thread.
import { parentPort, workerData } from "node:worker_threads";
import { createLogger } from "@gatehouse/telemetry";
import { buildServer } from "../server.js";
import type { WorkerData, WorkerReport } from "./pool.js";
import { bridgedStore } from "./store-bridge.js";
import { threadRole, type ThreadMessage } from "./worker-source.js";

const data = workerData as WorkerData;
const port = parentPort!;
const store = bridgedStore(data.facts, data.storePort);
const role = threadRole(store);
const logger = createLogger({ name: "authz-engine", level: data.logLevel }).child({ thread: data.index });
const server = buildServer({ ...data.config, store, thread: role, logger, threads: 1 });
let stopping = false;
port.on("message", (message: ThreadMessage) => {
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
