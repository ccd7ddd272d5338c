// A server process of the wire benchmark (wire.ts), so its CPU (process.cpuUsage) is its own:
//   engine  the authz engine over Postgres (DATABASE_URL), 1,000 readable hosts
//   floor   a bare grpc-js Server (default options) whose handlers answer a constant response
//   h2      the same constant answers over node:http2 directly: gRPC framing by hand, the response
//           message encoded once, no grpc-js (the "leaner HTTP/2 path" experiment)
// Messages from the parent: "cpu" (answers this process's CPU time so far, µs), "exit".
import { constants, createServer, type ServerHttp2Stream } from "node:http2";
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { createSilentLogger } from "@gatehouse/telemetry";
import { openStore } from "@gatehouse/store";
import { buildServer } from "../src/index.js";
import { seedReadableHosts } from "./fixture.js";
import { definitionOf, FLOOR_RESPONSES, RPCS } from "./wire-workload.js";

const role = process.argv[2] as "engine" | "floor" | "h2";

async function engine(): Promise<{ port: number; close(): Promise<void> }> {
  const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const store = await openStore({ databaseUrl, schema: "bench_wire", pollIntervalMs: 1000 });
  await seedReadableHosts(
    store,
    "bench-org",
    "bench-user",
    Array.from({ length: 1000 }, (_, i) => `host-${i}`),
  );
  const server = buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, store, logger: createSilentLogger() });
  const { port } = await server.start();
  return {
    port,
    close: async () => {
      await server.stop();
      await store.close();
    },
  };
}

async function floor(): Promise<{ port: number; close(): Promise<void> }> {
  const server = new Server();
  const definition: Record<string, unknown> = {};
  const implementation: UntypedServiceImplementation = {};
  for (const rpc of RPCS) {
    definition[rpc] = definitionOf(rpc);
    const response = FLOOR_RESPONSES[rpc];
    implementation[rpc] = (_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => callback(null, response);
  }
  server.addService(definition as never, implementation);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
  return { port, close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}

/** gRPC over node:http2 by hand: read the framed request, answer a pre-framed message and the status trailer. */
async function h2(): Promise<{ port: number; close(): Promise<void> }> {
  const framed = new Map<string, Buffer>();
  for (const rpc of RPCS) {
    const definition = definitionOf(rpc);
    const message = (definition.responseSerialize as (value: unknown) => Buffer)(FLOOR_RESPONSES[rpc]);
    const frame = Buffer.allocUnsafe(5 + message.length);
    frame.writeUInt8(0, 0);
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    framed.set(definition.path, frame);
  }
  const headers = { [constants.HTTP2_HEADER_STATUS]: 200, [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto" };
  const ok = { "grpc-status": "0" };
  const server = createServer();
  server.on("stream", (stream: ServerHttp2Stream, requestHeaders) => {
    const frame = framed.get(requestHeaders[constants.HTTP2_HEADER_PATH] as string);
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      if (frame === undefined) {
        stream.respond({ ...headers, "grpc-status": "12", "grpc-message": "unknown method" }, { endStream: true });
        return;
      }
      // The request's message is read (and, like the floor's, not used).
      Buffer.concat(chunks);
      stream.respond(headers, { waitForTrailers: true });
      stream.once("wantTrailers", () => stream.sendTrailers(ok));
      stream.end(frame);
    });
  });
  const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const started = await (role === "engine" ? engine() : role === "floor" ? floor() : h2());
process.on("message", (message: string) => {
  if (message === "cpu") {
    const cpu = process.cpuUsage();
    process.send!({ cpu: cpu.user + cpu.system });
  } else if (message === "exit") {
    // A clean exit, so --cpu-prof writes its profile.
    started.close().finally(() => process.exit(0));
  }
});
process.send!({ port: started.port });
