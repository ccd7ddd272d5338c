import { connectInventory } from "./src/grpc-client.ts";
import { closedLoop } from "./src/load.ts";
const c = connectInventory("127.0.0.1:19191");
await c.health();
for (const vus of [1, 4, 16]) {
  const cpu = process.cpuUsage();
  const o = await closedLoop(vus, { durationMs: 2000 }, () => c.health());
  const u = process.cpuUsage(cpu);
  console.log(vus, o.requests, o.latencies.summary().p50Ms, "driver cpu ms/req", ((u.user + u.system) / 1000 / o.requests).toFixed(3));
}
c.close();
