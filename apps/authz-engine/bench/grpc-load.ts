// The grpc-js load loop the wire and threads benchmarks' client processes share (wire-client.ts,
// threads-client.ts): `calls` unary calls of one RPC with `concurrency` in flight, lane i on
// client i mod the clients given (one connection each), and the latencies' p50 and p99.
import { Metadata, type Client } from "@grpc/grpc-js";
import { percentile } from "@gatehouse/telemetry";
import { definitionOf, REQUESTS, type Rpc } from "./wire-workload.js";

/** One call of `rpc` on `client`, resolving with the decoded answer. */
export function callOnce<T>(client: Client, rpc: Rpc): Promise<T> {
  const definition = definitionOf(rpc);
  return new Promise<T>((resolve, reject) =>
    client.makeUnaryRequest(
      definition.path,
      definition.requestSerialize as (value: object) => Buffer,
      definition.responseDeserialize as (bytes: Buffer) => T,
      REQUESTS[rpc],
      new Metadata(),
      (error, value) => (error ? reject(error) : resolve(value!)),
    ),
  );
}

export async function runLoad(clients: Client[], rpc: Rpc, calls: number, concurrency: number): Promise<{ calls: number; perSecond: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      const client = clients[lane % clients.length]!;
      while (issued < calls) {
        issued++;
        const t0 = performance.now();
        await callOnce(client, rpc);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { calls: latencies.length, perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** Answers each job message a client process gets with `{ ok, result }` or `{ ok: false, error }` (fixture.ts `ask`). */
export function serveJobs<J>(run: (job: J) => Promise<unknown>): void {
  process.on("message", (job: J) => {
    run(job).then(
      (result) => process.send!({ ok: true, result }),
      (error: unknown) => process.send!({ ok: false, error: String(error) }),
    );
  });
}
