// Wrappers that every handler goes through: authentication, metrics, logging and the error
// mapping. Handlers stay thin (validate → command → response).
import { Metadata, status, type handleServerStreamingCall, type handleUnaryCall, type ServerWritableStream, type ServiceError } from "@grpc/grpc-js";
import { endSpan, REQUEST_ID_HEADER, requestIdOf, startServerSpan, TRACEPARENT_HEADER, tracingEnabled, withContext, type Logger, type ServerSpan } from "@gatehouse/telemetry";
import type { EngineMetrics, InFlightCount } from "../metrics.js";
import type { Authenticator, CallerIdentity } from "./authn.js";
import { toGrpcFailure } from "./errors.js";

export interface CallDeps {
  authenticator: Authenticator;
  metrics: EngineMetrics;
  logger: Logger;
  /** Full name of the service the methods belong to (the grpc_service label). */
  service: string;
}

export interface CallContext {
  identity: CallerIdentity | null;
  /** Aborted when the client cancels or the deadline passes (streams stop writing). */
  cancelled: () => boolean;
}

/**
 * Takes the caller's request id (or makes one) and sends it back in the response headers, so a
 * caller can quote it and every log line of the call carries it; with the server span's
 * `traceparent` when tracing is on.
 */
function requestIdFor(call: { metadata: Metadata; sendMetadata(metadata: Metadata): void }, server: ServerSpan | null): string {
  const requestId = requestIdOf(call.metadata.get(REQUEST_ID_HEADER)[0]);
  const headers = new Metadata();
  headers.set(REQUEST_ID_HEADER, requestId);
  if (server) headers.set(TRACEPARENT_HEADER, server.traceparent);
  call.sendMetadata(headers);
  return requestId;
}

/** Codes that mean the server failed (the others are the caller's doing), as the RPC conventions say. */
const SERVER_FAULTS = new Set([status.UNKNOWN, status.DEADLINE_EXCEEDED, status.UNIMPLEMENTED, status.INTERNAL, status.UNAVAILABLE, status.DATA_LOSS]);

/** A SERVER span for the call (child of the caller's `traceparent`), or null when tracing is off. */
function serverSpanFor(call: { metadata: Metadata }, m: MethodMetrics): ServerSpan | null {
  if (!tracingEnabled()) return null;
  // Only the two trace-context keys, not a copy of all the call's metadata.
  const carrier = { [TRACEPARENT_HEADER]: call.metadata.get(TRACEPARENT_HEADER)[0], tracestate: call.metadata.get("tracestate")[0] };
  return startServerSpan(m.spanName, carrier, m.spanAttributes);
}

function serviceError(error: unknown, deps: CallDeps, method: string, requestId: string): ServiceError & { code: status } {
  const failure = toGrpcFailure(error);
  if (failure.code === status.INTERNAL || failure.code === status.UNKNOWN) {
    deps.logger.error({ err: error, method, reqId: requestId }, "call failed");
  } else {
    deps.logger.debug({ method, reqId: requestId, code: status[failure.code], message: failure.message }, "call rejected");
  }
  const wire = Object.assign(new Error(failure.message), { code: failure.code, details: failure.message, metadata: new Metadata() });
  return wire;
}

/**
 * grpc_code label values as the Go gRPC libraries (and so the stock dashboards and alerts) spell
 * them: `OK`, `InvalidArgument`, `DeadlineExceeded`, ...
 */
const GRPC_CODE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(status)
    .filter((entry): entry is [string, number] => typeof entry[1] === "number")
    .map(([name, code]) => [code, name === "OK" ? "OK" : name === "CANCELLED" ? "Canceled" : name.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase())]),
);
export const grpcCodeName = (code: status): string => GRPC_CODE_NAMES[code] ?? String(code);

/** Metric children bound once per method, so a call does no label hashing on the success path. */
interface MethodMetrics {
  method: string;
  labels: { grpc_type: string; grpc_service: string; grpc_method: string };
  ok: { inc(): void };
  seconds: { observe(value: number): void };
  inFlight: InFlightCount;
  spanName: string;
  spanAttributes: { "rpc.system": string; "rpc.service": string; "rpc.method": string };
}

function methodMetrics(deps: CallDeps, method: string, type: "unary" | "server_stream"): MethodMetrics {
  const labels = { grpc_type: type, grpc_service: deps.service, grpc_method: method };
  return {
    method,
    labels,
    ok: deps.metrics.calls.labels({ ...labels, grpc_code: grpcCodeName(status.OK) }),
    seconds: deps.metrics.callSeconds.labels(labels),
    inFlight: deps.metrics.inFlight(method),
    spanName: `${deps.service}/${method}`,
    spanAttributes: { "rpc.system": "grpc", "rpc.service": deps.service, "rpc.method": method },
  };
}

function finish(deps: CallDeps, m: MethodMetrics, code: status, startedAt: bigint, server: ServerSpan | null): void {
  if (code === status.OK) m.ok.inc();
  else deps.metrics.calls.inc({ ...m.labels, grpc_code: grpcCodeName(code) });
  m.seconds.observe(Number(process.hrtime.bigint() - startedAt) / 1e9);
  m.inFlight.value--;
  if (server) {
    server.span.setAttribute("rpc.grpc.status_code", code);
    endSpan(server.span, SERVER_FAULTS.has(code) ? new Error(grpcCodeName(code)) : undefined);
  }
}

export function unary<Req, Res>(
  method: string,
  deps: CallDeps,
  handler: (request: Req, context: CallContext) => Promise<Res> | Res,
): handleUnaryCall<Req, Res> {
  const m = methodMetrics(deps, method, "unary");
  return (call, callback) => {
    const startedAt = process.hrtime.bigint();
    m.inFlight.value++;
    const server = serverSpanFor(call, m);
    const requestId = requestIdFor(call, server);
    const succeed = (response: Res) => {
      finish(deps, m, status.OK, startedAt, server);
      callback(null, response);
    };
    const fail = (error: unknown) => {
      const wire = serviceError(error, deps, method, requestId);
      finish(deps, m, wire.code, startedAt, server);
      callback(wire);
    };
    const context = (identity: CallerIdentity | null): CallContext => ({ identity, cancelled: () => call.cancelled });
    const run = () => {
      // No promise hop when authentication and the handler answer synchronously (Check, mostly).
      let result: Res | Promise<Res>;
      try {
        const identity = deps.authenticator.authenticate(call.metadata);
        result = identity instanceof Promise ? identity.then((id) => handler(call.request, context(id))) : handler(call.request, context(identity));
      } catch (error) {
        fail(error);
        return;
      }
      if (result instanceof Promise) result.then(succeed, fail);
      else succeed(result);
    };
    if (server) withContext(server.context, run);
    else run();
  };
}

/**
 * Queues one message; returns a promise only when the caller must wait (back-pressure), so a
 * producer that is allowed to continue pays no await per item.
 */
export type StreamWriter<Res> = (message: Res) => Promise<void> | void;

/** What grpc-js's ServerWritableStream writes through (its `call`: the intercepting call). */
interface MessageSink {
  sendMessage(message: unknown, callback: () => void): void;
}

/** Messages handed to HTTP/2 but not yet flushed before the producer waits. */
export const STREAM_WINDOW = 256;

export interface StreamOutput<Res> {
  write: StreamWriter<Res>;
  /** Resolves once every queued message is handed to the transport (or the call is cancelled). */
  flush(): Promise<void> | void;
}

function cancelledOr(call: ServerWritableStream<unknown, unknown>, wait: (resolve: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const onCancel = () => resolve();
    call.once("cancelled", onCancel);
    wait(() => {
      call.removeListener("cancelled", onCancel);
      resolve();
    });
  });
}

/**
 * grpc-js's ServerWritableStream is an object-mode Writable that hands one message at a time to
 * HTTP/2 and waits for that write to complete before the next: one event-loop round trip per
 * message. Handing messages straight to the call underneath (what the Writable's _write does)
 * with up to STREAM_WINDOW in flight lets HTTP/2 coalesce them (writev) and keeps back-pressure.
 * Falls back to the Writable (respecting 'drain') if that call is not there.
 */
export function outputFor<Req, Res>(call: ServerWritableStream<Req, Res>, onItem: () => void): StreamOutput<Res> {
  const anyCall = call as unknown as ServerWritableStream<unknown, unknown>;
  const sink = (call as unknown as { call?: Partial<MessageSink> }).call;
  if (typeof sink?.sendMessage !== "function") {
    return {
      write(message) {
        onItem();
        if (call.write(message) || call.cancelled) return;
        return cancelledOr(anyCall, (resolve) => call.once("drain", resolve));
      },
      flush() {},
    };
  }
  const send = sink.sendMessage.bind(sink);
  let outstanding = 0;
  let waiter: { below: number; resolve: () => void } | null = null;
  const sent = () => {
    outstanding--;
    if (waiter !== null && outstanding <= waiter.below) {
      const { resolve } = waiter;
      waiter = null;
      resolve();
    }
  };
  const waitUntil = (below: number) => cancelledOr(anyCall, (resolve) => (waiter = { below, resolve }));
  return {
    write(message) {
      onItem();
      outstanding++;
      send(message, sent);
      if (outstanding < STREAM_WINDOW || call.cancelled) return;
      return waitUntil(STREAM_WINDOW / 2);
    },
    flush() {
      if (outstanding === 0 || call.cancelled) return;
      return waitUntil(0);
    },
  };
}

export function serverStream<Req, Res>(
  method: string,
  deps: CallDeps,
  handler: (request: Req, context: CallContext, write: StreamWriter<Res>) => Promise<void>,
): handleServerStreamingCall<Req, Res> {
  const m = methodMetrics(deps, method, "server_stream");
  const sent = deps.metrics.streamedItems.labels(m.labels);
  return (call) => {
    const startedAt = process.hrtime.bigint();
    m.inFlight.value++;
    const server = serverSpanFor(call, m);
    const requestId = requestIdFor(call, server);
    const items = sent;
    const output = outputFor(call, () => items.inc());
    const run = () =>
      Promise.resolve()
      .then(() => deps.authenticator.authenticate(call.metadata))
      .then((identity) => handler(call.request, { identity, cancelled: () => call.cancelled }, output.write))
      .then(() => output.flush())
      .then(
        () => {
          finish(deps, m, status.OK, startedAt, server);
          call.end();
        },
        (error: unknown) => {
          const wire = serviceError(error, deps, method, requestId);
          finish(deps, m, wire.code, startedAt, server);
          call.emit("error", wire);
        },
      );
    if (server) withContext(server.context, run);
    else run();
  };
}
