// Load generator, run as a child process so its CPU is not charged to the server.
import { credentials, Metadata, type Client } from "@grpc/grpc-js";
import { CheckRequest as Req, CheckResponse as Res, KesselInventoryServiceClient, type CheckRequest } from "@gatehouse/proto";
import { percentile } from "@gatehouse/telemetry";

interface Job {
  kind: "unary";
  /** "http-check": POST /api/kessel/v1beta2/check on `port` (the engine's HTTP port) with `body`. */
  path: "floor" | "check" | "http-check";
  concurrency: number;
  seconds: number;
  port: number;
  request: CheckRequest;
  /** The request as protobuf JSON (http-check). */
  body?: string;
}

/** One HTTP/JSON Check over a keep-alive connection pool; fails on anything but 200 ALLOWED_TRUE/FALSE. */
function httpCheck(job: Job): () => Promise<void> {
  const url = `http://127.0.0.1:${job.port}/api/kessel/v1beta2/check`;
  return async () => {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: job.body ?? "{}" });
    const answer = (await response.json()) as { allowed?: string };
    if (response.status !== 200 || !answer.allowed?.startsWith("ALLOWED_")) throw new Error(`HTTP check answered ${response.status}`);
  };
}
interface StreamJob {
  /** "stream": one request; "walk": follow continuation tokens until an empty page (the SDK's loop). */
  kind: "stream" | "walk";
  port: number;
  request: Parameters<KesselInventoryServiceClient["streamedListObjects"]>[0];
}

async function unary(job: Job) {
  const client = new KesselInventoryServiceClient(`127.0.0.1:${job.port}`, credentials.createInsecure());
  const raw = client as unknown as Client;
  const path = job.path === "floor" ? "/bench.Floor/Check" : "/kessel.inventory.v1beta2.KesselInventoryService/Check";
  const once =
    job.path === "http-check"
      ? httpCheck(job)
      : () =>
          new Promise<void>((resolve, reject) =>
            raw.makeUnaryRequest(
              path,
              (r: CheckRequest) => Buffer.from(Req.encode(r).finish()),
              (b: Buffer) => Res.decode(b),
              job.request,
              new Metadata(),
              (error) => (error ? reject(error) : resolve()),
            ),
          );
  for (let i = 0; i < 200; i++) await once(); // warm-up
  const latencies: number[] = [];
  const deadline = performance.now() + job.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await once();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  client.close();
  return { calls: latencies.length, perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function stream(job: StreamJob) {
  const client = new KesselInventoryServiceClient(`127.0.0.1:${job.port}`, credentials.createInsecure(), {
    "grpc.max_receive_message_length": -1,
  });
  const t0 = performance.now();
  let first = -1;
  let count = 0;
  for await (const _ of client.streamedListObjects(job.request)) {
    if (first < 0) first = performance.now() - t0;
    count++;
  }
  const total = performance.now() - t0;
  client.close();
  return { count, firstMs: first, totalMs: total };
}

async function walk(job: StreamJob) {
  const client = new KesselInventoryServiceClient(`127.0.0.1:${job.port}`, credentials.createInsecure());
  const t0 = performance.now();
  let first = -1;
  let count = 0;
  let pages = 0;
  let token: string | undefined;
  let last = "";
  let ordered = true;
  for (;;) {
    const limit = job.request.pagination?.limit ?? 1000;
    const request = { ...job.request, pagination: token === undefined ? { limit } : { limit, continuationToken: token } };
    let items = 0;
    for await (const item of client.streamedListObjects(request)) {
      if (first < 0) first = performance.now() - t0;
      const id = (item as { object?: { resourceId: string } }).object?.resourceId ?? "";
      if (id <= last) ordered = false;
      last = id;
      token = (item as { pagination?: { continuationToken: string } }).pagination?.continuationToken;
      items++;
    }
    pages++;
    count += items;
    if (items === 0 || !token) break;
  }
  const total = performance.now() - t0;
  client.close();
  return { count, pages, ordered, firstMs: first, totalMs: total };
}

process.on("message", (message: Job | StreamJob) => {
  const run = message.kind === "unary" ? unary(message) : message.kind === "walk" ? walk(message) : stream(message);
  run.then(
    (result) => process.send!({ ok: true, result }),
    (error: unknown) => process.send!({ ok: false, error: String(error) }),
  );
});
