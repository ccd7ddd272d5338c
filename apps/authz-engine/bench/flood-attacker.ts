// The connection-flood bench's attacker, in a process of its own (its CPU is not the engine's):
// holds `count` connections from `from`, each sending the HTTP/2 preface, SETTINGS and a header
// block that never ends, and opens a new one whenever the engine closes one. Answers "holding" once
// `count` are open, and "stats" (closed by the engine so far) when asked.
import { connect, type Socket } from "node:net";
import { unfinishedHeaderBlock } from "@gatehouse/telemetry/testing";

interface Job {
  port: number;
  from: string;
  count: number;
}

const bytes = unfinishedHeaderBlock("/kessel.inventory.v1beta2.KesselInventoryService/Check");
let open = 0;
let closedByEngine = 0;
let stopping = false;
const sockets = new Set<Socket>();

function hold(job: Job): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ port: job.port, host: "127.0.0.1", localAddress: job.from }, () => {
      open++;
      socket.write(bytes);
      resolve();
    });
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("data", () => undefined);
    socket.once("close", () => {
      sockets.delete(socket);
      if (socket.bytesWritten > 0) open--;
      if (stopping) return;
      closedByEngine++;
      // Keep the pressure: a new one for each the engine closed.
      setImmediate(() => void hold(job));
      resolve();
    });
  });
}

process.on("message", async (message: { job: Job } | { stats: true } | { stop: true }) => {
  if ("job" in message) {
    const { job } = message;
    for (let i = 0; i < job.count; i += 200) await Promise.all(Array.from({ length: Math.min(200, job.count - i) }, () => hold(job)));
    process.send?.({ ok: true, result: { open } });
  } else if ("stats" in message) {
    process.send?.({ ok: true, result: { open, closedByEngine } });
  } else {
    stopping = true;
    for (const socket of sockets) socket.destroy();
    process.send?.({ ok: true, result: { open, closedByEngine } });
    process.exit(0);
  }
});
