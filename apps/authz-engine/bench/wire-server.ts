// A server process of the wire benchmark (wire.ts), so its CPU (process.cpuUsage) is its own:
//   engine  the authz engine over Postgres (DATABASE_URL), 1,000 readable hosts; the checks served
//           on their HTTP/2 streams (src/grpc/direct-unary.ts), as deployed
//   engine-grpc-js  the same engine with every call served by grpc-js (directChecks: false)
//   engine-before  the same, from another build of the engine (BENCH_ENGINE_BEFORE: the path of its
//           dist/index.js, e.g. an earlier commit's src compiled elsewhere), for before/after side by side
//   floor   a bare grpc-js Server (default options) whose handlers answer a constant response
//   h2      the same constant answers over node:http2 directly: gRPC framing by hand, the response
//           message encoded once, no grpc-js (the "leaner HTTP/2 path" experiment)
//   h2-check  node:http2 framing by hand that answers for real: decodes the request, evaluates it
//           on an in-memory graph of the same relationships (@gatehouse/evaluator), and sends the
//           encoded answer (Check: one frame per answer, encoded once). No store: CheckForUpdate
//           reads no head revision here, so only Check and CheckBulk compare with the engine.
// Messages from the parent: "cpu" (answers this process's CPU time so far, µs), "exit".
import { writeFileSync } from "node:fs";
import { constants, createServer, type ServerHttp2Stream } from "node:http2";
import { Session } from "node:inspector";
import { check, RelationshipGraph } from "@gatehouse/evaluator";
import { Allowed, CheckBulkRequest, CheckBulkResponse, CheckForUpdateRequest, CheckRequest, CheckResponse } from "@gatehouse/proto";
import { compileRoleModel } from "@gatehouse/role-config";
import { createSilentLogger } from "@gatehouse/telemetry";
import { openStore } from "@gatehouse/store";
// The built engine (dist), as deployed: wire.ts starts this process without the "source" condition.
import { buildServer } from "@gatehouse/authz-engine";
import { BENCH_CHECK, rel, seedReadableHosts } from "./fixture.js";
import { grpcFloor } from "./floor-server.js";
import { definitionOf, FLOOR_RESPONSES, RPCS } from "./wire-workload.js";

const role = process.argv[2] as "engine" | "engine-grpc-js" | "engine-before" | "floor" | "h2" | "h2-check";

async function engine(build: { buildServer: typeof buildServer }, directChecks = true): Promise<{ port: number; close(): Promise<void> }> {
  const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const store = await openStore({ databaseUrl, schema: "bench_wire", pollIntervalMs: 1000 });
  await seedReadableHosts(
    store,
    "bench-org",
    "bench-user",
    Array.from({ length: 1000 }, (_, i) => `host-${i}`),
  );
  const server = build.buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, store, logger: createSilentLogger(), directChecks });
  const { port } = await server.start();
  return {
    port,
    close: async () => {
      await server.stop();
      await store.close();
    },
  };
}

const floor = grpcFloor;

/** A gRPC message frame: flag byte (not compressed), big-endian length, the message. */
function frameOf(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame.writeUInt8(0, 0);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** Answers a request's message (without its 5-byte frame header) with a framed response. */
type Answer = (message: Buffer) => Buffer;

/**
 * gRPC over node:http2 by hand: reads the framed request, answers one framed message and the
 * status trailer. Only what the benchmark needs (no compression, deadlines, metadata or errors
 * beyond UNIMPLEMENTED and INTERNAL).
 */
async function h2Server(answers: Map<string, Answer>): Promise<{ port: number; close(): Promise<void> }> {
  const headers = { [constants.HTTP2_HEADER_STATUS]: 200, [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto" };
  const ok = { "grpc-status": "0" };
  const server = createServer();
  server.on("stream", (stream: ServerHttp2Stream, requestHeaders) => {
    const answer = answers.get(requestHeaders[constants.HTTP2_HEADER_PATH] as string);
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      if (answer === undefined) {
        stream.respond({ ...headers, "grpc-status": "12", "grpc-message": "unknown method" }, { endStream: true });
        return;
      }
      let frame: Buffer;
      try {
        frame = answer((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).subarray(5));
      } catch (error) {
        stream.respond({ ...headers, "grpc-status": "13", "grpc-message": encodeURIComponent(String(error)) }, { endStream: true });
        return;
      }
      stream.respond(headers, { waitForTrailers: true });
      stream.once("wantTrailers", () => stream.sendTrailers(ok));
      stream.end(frame);
    });
  });
  const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The floor's constant answers, each framed once. */
function h2(): Promise<{ port: number; close(): Promise<void> }> {
  const answers = new Map<string, Answer>();
  for (const rpc of RPCS) {
    const definition = definitionOf(rpc);
    const frame = frameOf((definition.responseSerialize as (value: unknown) => Buffer)(FLOOR_RESPONSES[rpc]));
    answers.set(definition.path, () => frame);
  }
  return h2Server(answers);
}

/** Real answers: decode, evaluate on an in-memory graph of the fixture's relationships, encode. */
function h2Check(): Promise<{ port: number; close(): Promise<void> }> {
  const model = compileRoleModel("stage");
  const graph = new RelationshipGraph(model);
  const ws = "bench-workspace";
  for (const r of [
    rel("rbac/role", "bench-org-role", "t_inventory_hosts_read", "rbac/principal", "*"),
    rel("rbac/role_binding", "bench-org-binding", "t_role", "rbac/role", "bench-org-role"),
    rel("rbac/role_binding", "bench-org-binding", "t_subject", "rbac/principal", "redhat/bench-user"),
    rel("rbac/workspace", ws, "t_binding", "rbac/role_binding", "bench-org-binding"),
    ...Array.from({ length: 1000 }, (_, i) => rel("hbi/host", `host-${i}`, "t_workspace", "rbac/workspace", ws)),
  ])
    graph.add(r);
  graph.compact();
  const ask = (item: CheckRequest): boolean => {
    const object = item.object!;
    const subject = item.subject!.resource!;
    return check(graph, { type: `${object.reporter!.type.toLowerCase()}/${object.resourceType.toLowerCase()}`, id: object.resourceId.trim() }, item.relation.trim(), {
      type: `${subject.reporter!.type.toLowerCase()}/${subject.resourceType.toLowerCase()}`,
      id: subject.resourceId.trim(),
    });
  };
  const token = "x".repeat(24);
  const single = (allowed: boolean) => frameOf(CheckResponse.encode({ allowed: allowed ? Allowed.ALLOWED_TRUE : Allowed.ALLOWED_FALSE, consistencyToken: { token } }).finish());
  const yes = single(true);
  const no = single(false);
  if (!ask(BENCH_CHECK)) throw new Error("the in-memory graph does not allow the benchmark's Check");
  const answers = new Map<string, Answer>([
    [definitionOf("check").path, (message) => (ask(CheckRequest.decode(message)) ? yes : no)],
    [definitionOf("checkForUpdate").path, (message) => (ask(CheckForUpdateRequest.decode(message)) ? yes : no)],
    [
      definitionOf("checkBulk").path,
      (message) => {
        const request = CheckBulkRequest.decode(message);
        const pairs = request.items.map((item) => ({ request: item, item: { allowed: ask(item) ? Allowed.ALLOWED_TRUE : Allowed.ALLOWED_FALSE } }));
        return frameOf(CheckBulkResponse.encode({ pairs, consistencyToken: { token } }).finish());
      },
    ],
  ]);
  return h2Server(answers);
}

/** A V8 CPU profile of the measured rounds only (not start-up and warm-up), when asked for. */
const profileFile = process.env["WIRE_PROFILE_FILE"];
const inspector = profileFile ? new Session() : null;
const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => inspector!.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))));

async function stopProfile(): Promise<void> {
  if (!inspector) return;
  const { profile } = (await post("Profiler.stop")) as { profile: object };
  writeFileSync(profileFile!, JSON.stringify(profile));
}

async function start(): Promise<{ port: number; close(): Promise<void> }> {
  if (role === "engine") return engine({ buildServer });
  if (role === "engine-grpc-js") return engine({ buildServer }, false);
  if (role === "engine-before") {
    const before = process.env["BENCH_ENGINE_BEFORE"];
    if (!before) throw new Error("engine-before needs BENCH_ENGINE_BEFORE (the path of another build's dist/index.js)");
    return engine((await import(before)) as { buildServer: typeof buildServer });
  }
  if (role === "floor") return floor();
  return role === "h2" ? h2() : h2Check();
}

const started = await start();
process.on("message", (message: string) => {
  if (message === "cpu") {
    const cpu = process.cpuUsage();
    process.send!({ cpu: cpu.user + cpu.system });
  } else if (message === "profile" && inspector) {
    inspector.connect();
    // 100 µs between samples (the default is 1 ms): a Check costs well under that.
    void post("Profiler.enable")
      .then(() => post("Profiler.setSamplingInterval", { interval: 100 }))
      .then(() => post("Profiler.start"))
      .then(() => process.send!({ profiling: true }));
  } else if (message === "exit") {
    stopProfile()
      .then(() => started.close())
      .finally(() => process.exit(0));
  }
});
process.send!({ port: started.port });
