// The soak's load (bench/soak.ts), in a process of its own: each operation at up to `rate` per second,
// latencies kept per sample window and answered (p99 per kind, count, errors) when asked.
import { credentials, Metadata } from "@grpc/grpc-js";
import { type CheckRequest, KesselInventoryServiceClient, WriteVisibility } from "@gatehouse/proto";
import { percentile } from "@gatehouse/telemetry";

interface Start {
  port: number;
  metricsPort: number;
  workspaceId: string;
  rate: number;
}

const latencies = new Map<string, number[]>();
let ops = 0;
/** Each failure's text (bounded) and how often it came, per sample window. */
const failures = new Map<string, number>();
let errors = 0;
/** The pending timer of each kind (one at a time, so a day's run holds no more). */
const timers = new Map<string, NodeJS.Timeout>();
let stopped = false;
/** Hosts whose report was acknowledged and that are not deleted yet, oldest first. */
const alive: string[] = [];

async function timed(kind: string, operation: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  try {
    await operation();
  } catch (error) {
    errors++;
    const text = `${kind}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 200);
    failures.set(text, (failures.get(text) ?? 0) + 1);
  }
  ops++;
  let list = latencies.get(kind);
  if (!list) latencies.set(kind, (list = []));
  list.push(performance.now() - t0);
}

function start({ port, metricsPort, workspaceId, rate }: Start): void {
  const client = new KesselInventoryServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  const unary = <T>(method: "check" | "reportResource" | "deleteResource", request: T) =>
    new Promise((resolve, reject) =>
      (client[method] as unknown as (r: T, m: Metadata, cb: (e: Error | null, v: unknown) => void) => void).call(client, request, new Metadata(), (e, v) => (e ? reject(e) : resolve(v))),
    );
  const subject = { resource: { resourceType: "principal", resourceId: "redhat/alice", reporter: { type: "rbac" } } };
  let n = 0;
  const check = (): CheckRequest => ({ object: { resourceType: "host", resourceId: `host-${n++ % 2000}`, reporter: { type: "hbi" } }, relation: "view", subject });
  const base = `http://127.0.0.1:${metricsPort}`;
  let written = 0;
  // At most `rate` per second, one at a time per kind: an engine slower than the rate is measured
  // at its own pace instead of building a queue the latencies would then measure.
  const every = (kind: string, operation: () => Promise<unknown>) => {
    const next = async () => {
      const t0 = performance.now();
      await timed(kind, operation);
      if (!stopped)
        timers.set(
          kind,
          setTimeout(() => void next(), Math.max(0, 1000 / rate - (performance.now() - t0))),
        );
    };
    void next();
  };
  every("grpc-check", () => unary("check", check()));
  every("http-check", async () => {
    const response = await fetch(`${base}/api/kessel/v1beta2/check`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(check()) });
    await response.text();
    if (response.status !== 200) throw new Error(String(response.status));
  });
  // Writes: a host reported, and the oldest acknowledged one deleted once 100 are alive (a bounded
  // set of 100 to 200). Each delete names a host whose report succeeded and that no delete took before, so a
  // delete never repeats while reports lag.
  const report = (id: string) => ({
    type: "host",
    reporterType: "hbi",
    reporterInstanceId: "soak",
    representations: { metadata: { localResourceId: id, apiHref: `https://x/${id}` }, common: { workspace_id: workspaceId } },
    writeVisibility: WriteVisibility.MINIMIZE_LATENCY,
  });
  every("report", async () => {
    // Reports wait for the deletes past twice the bound: deletes are slower than reports, and a live
    // set growing for the whole run would be a growing data set, not a steady load.
    if (alive.length >= 200) return;
    const id = `soak-${written++}`;
    await unary("reportResource", report(id));
    alive.push(id);
  });
  every("delete", async () => {
    if (alive.length <= 100) return;
    const id = alive.shift()!;
    await unary("deleteResource", { reference: { resourceType: "host", resourceId: id, reporter: { type: "hbi" } } });
  });
  every(
    "list",
    () =>
      new Promise<void>((resolve, reject) => {
        const stream = client.streamedListObjects({ objectType: { resourceType: "host", reporterType: "hbi" }, relation: "view", subject, pagination: { limit: 100 } });
        stream.on("data", () => undefined);
        stream.on("end", resolve);
        stream.on("error", reject);
      }),
  );
  every("metrics", async () => {
    await (await fetch(`${base}/metrics`)).text();
  });
}

process.on("message", (message: { start: Start } | { sample: true } | { stop: true }) => {
  if ("start" in message) {
    start(message.start);
    process.send?.({ ok: true, result: null });
  } else if ("sample" in message) {
    const p99: Record<string, number> = {};
    for (const [kind, list] of latencies)
      p99[kind] = percentile(
        list.sort((a, b) => a - b),
        99,
      );
    process.send?.({ ok: true, result: { p99, ops, errors, failures: Object.fromEntries(failures), live: alive.length } });
    latencies.clear();
    failures.clear();
    ops = 0;
    errors = 0;
  } else {
    stopped = true;
    for (const timer of timers.values()) clearTimeout(timer);
    process.send?.({ ok: true, result: null });
    process.exit(0);
  }
});
