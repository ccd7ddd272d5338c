// Load generator run in a worker thread so that the client does not share the server's event
// loop: `concurrency` loops issue GETs over keep-alive connections until the deadline.
import { parentPort, workerData } from "node:worker_threads";

const { url, headers, seconds, concurrency } = workerData;
const latencies = [];
let errors = 0;
const started = performance.now();
const deadline = started + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      if (res.status !== 200) errors += 1;
    }
  }),
);
parentPort.postMessage({ latencies, errors, elapsed: (performance.now() - started) / 1000 });
