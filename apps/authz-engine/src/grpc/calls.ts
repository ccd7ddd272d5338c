// Wrappers that every handler goes through: authentication, metrics, logging and the error
// mapping. Handlers stay thin (validate → command → response).
import { Metadata, status, type handleServerStreamingCall, type handleUnaryCall, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type ServiceError } from "@grpc/grpc-js";
import { endSpan, REQUEST_ID_HEADER, requestIdOf, sampleCall, startServerSpan, TRACEPARENT_HEADER, tracingEnabled, withContext, type Logger, type ServerSpan } from "@gatehouse/telemetry";
import type { MethodCalls } from "../call-metrics.js";
import { type EngineMetrics, grpcCodeName, type InFlightCount } from "../metrics.js";
import type { Authenticator, CallerIdentity } from "./authn.js";
import { EngineError } from "../errors.js";
import { toGrpcFailure } from "./errors.js";

export interface CallDeps {
  authenticator: Authenticator;
  metrics: EngineMetrics;
  logger: Logger;
  /** Full name of the service the methods belong to (the grpc_service label). */
  service: string;
  /** Engine-wide bound on open server streams, and how long one may make no progress. */
  streams?: StreamLimits;
}

export interface StreamLimits {
  /** Streams open at once across all connections; more are RESOURCE_EXHAUSTED. */
  maxActive: number;
  /** A stream whose client reads nothing for this long is reset, releasing what it holds, ms. */
  idleTimeoutMs: number;
  /** Streams open now (shared by every streaming method). */
  active: number;
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

/**
 * A SERVER span for the call (child of the caller's `traceparent`), or null when tracing is off or
 * the sampler leaves this call out (then nothing at all is allocated for tracing).
 */
function serverSpanFor(call: { metadata: Metadata }, m: MethodMetrics): ServerSpan | null {
  if (!tracingEnabled()) return null;
  const traceparent = call.metadata.get(TRACEPARENT_HEADER)[0];
  if (!sampleCall(typeof traceparent === "string" ? traceparent : undefined)) return null;
  // Only the two trace-context keys, not a copy of all the call's metadata.
  const carrier = { [TRACEPARENT_HEADER]: traceparent, tracestate: call.metadata.get("tracestate")[0] };
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

export { grpcCodeName } from "../metrics.js";

/** A method's metrics, bound once, so a call only adds to its method's counts. */
interface MethodMetrics {
  method: string;
  labels: { grpc_type: string; grpc_service: string; grpc_method: string };
  calls: MethodCalls;
  inFlight: InFlightCount;
  spanName: string;
  spanAttributes: { "rpc.system": string; "rpc.service": string; "rpc.method": string };
}

function methodMetrics(deps: CallDeps, method: string, type: "unary" | "server_stream"): MethodMetrics {
  const labels = { grpc_type: type, grpc_service: deps.service, grpc_method: method };
  return {
    method,
    labels,
    calls: deps.metrics.grpcMethod(labels),
    inFlight: deps.metrics.inFlight(method),
    spanName: `${deps.service}/${method}`,
    spanAttributes: { "rpc.system": "grpc", "rpc.service": deps.service, "rpc.method": method },
  };
}

function finish(deps: CallDeps, m: MethodMetrics, code: status, startedAt: number, server: ServerSpan | null, requestId: string): void {
  // performance.now(): a double, where hrtime.bigint() allocated two BigInts per call.
  const seconds = (performance.now() - startedAt) / 1000;
  m.calls.record(code, seconds);
  // One line per call at debug (a deployment's info level stays quiet on the hot path; the local
  // all-in-one server shows them).
  if (deps.logger.isLevelEnabled("debug")) deps.logger.debug({ method: m.method, reqId: requestId, code: grpcCodeName(code), ms: seconds * 1000 }, "call completed");
  m.inFlight.value--;
  if (server) {
    server.span.setAttribute("rpc.grpc.status_code", code);
    endSpan(server.span, SERVER_FAULTS.has(code) ? new Error(grpcCodeName(code)) : undefined);
  }
}

/** What a handler learns about its call: who calls, and whether the call is still wanted. */
class UnaryCallContext implements CallContext {
  constructor(
    readonly identity: CallerIdentity | null,
    private readonly call: { cancelled: boolean },
  ) {}
  cancelled(): boolean {
    return this.call.cancelled;
  }
}

/**
 * One unary call, in one object: the synchronous path (authentication and handler answer at once,
 * Check mostly) allocates no closures and no promise; the others bind `succeed`/`fail` when needed.
 */
class UnaryRun<Req, Res> {
  constructor(
    private readonly deps: CallDeps,
    private readonly m: MethodMetrics,
    private readonly handler: (request: Req, context: CallContext) => Promise<Res> | Res,
    private readonly call: ServerUnaryCall<Req, Res>,
    private readonly callback: sendUnaryData<Res>,
    private readonly startedAt: number,
    private readonly server: ServerSpan | null,
    private readonly requestId: string,
  ) {}

  run(): void {
    let result: Res | Promise<Res>;
    try {
      const identity = this.deps.authenticator.authenticate(this.call.metadata);
      result =
        identity instanceof Promise
          ? identity.then((id) => this.handler(this.call.request, new UnaryCallContext(id, this.call)))
          : this.handler(this.call.request, new UnaryCallContext(identity, this.call));
    } catch (error) {
      this.fail(error);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (response) => this.succeed(response),
        (error: unknown) => this.fail(error),
      );
    } else {
      this.succeed(result);
    }
  }

  private succeed(response: Res): void {
    finish(this.deps, this.m, status.OK, this.startedAt, this.server, this.requestId);
    this.callback(null, response);
  }

  private fail(error: unknown): void {
    const wire = serviceError(error, this.deps, this.m.method, this.requestId);
    finish(this.deps, this.m, wire.code, this.startedAt, this.server, this.requestId);
    this.callback(wire);
  }
}

export function unary<Req, Res>(method: string, deps: CallDeps, handler: (request: Req, context: CallContext) => Promise<Res> | Res): handleUnaryCall<Req, Res> {
  const m = methodMetrics(deps, method, "unary");
  return (call, callback) => {
    const startedAt = performance.now();
    m.inFlight.value++;
    const server = serverSpanFor(call, m);
    const requestId = requestIdFor(call, server);
    const unaryRun = new UnaryRun(deps, m, handler, call, callback, startedAt, server, requestId);
    if (server) withContext(server.context, () => unaryRun.run());
    else unaryRun.run();
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
/**
 * The HTTP/2 stream under a grpc-js server call (its intercepting-call chain ends in the call that
 * owns it). Trailers wait behind unread data, so a stalled stream can only be reset, not ended.
 */
interface Http2StreamLike {
  close(code?: number): void;
  destroyed?: boolean;
  closed?: boolean;
  once(event: "close", listener: () => void): unknown;
}

function http2StreamOf(call: unknown): Http2StreamLike | undefined {
  let node = (call as { call?: unknown }).call as { stream?: unknown; nextCall?: unknown } | undefined;
  for (let depth = 0; node && depth < 8; depth++) {
    const stream = node.stream as { close?: unknown } | undefined;
    if (stream && typeof stream.close === "function") return stream as Http2StreamLike;
    node = node.nextCall as typeof node;
  }
  return undefined;
}

const NGHTTP2_CANCEL = 8;

/** Resets a stream the client stopped reading; grpc-js then reports the call as cancelled. */
export function resetStalledStream(call: ServerWritableStream<unknown, unknown>): void {
  const stream = http2StreamOf(call);
  if (stream && !stream.destroyed) stream.close(NGHTTP2_CANCEL);
  else call.destroy();
}

/** Waits like `wait`, but gives up (resetting the stream) when no progress is made for `idleMs`. */
function progressOr(call: ServerWritableStream<unknown, unknown>, idleMs: number | undefined, onStall: () => void, wait: (resolve: () => void) => void): Promise<void> {
  if (idleMs === undefined) return cancelledOr(call, wait);
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      onStall();
      resetStalledStream(call);
      // The producer stops here: nothing more is queued for a reset stream.
      reject(new EngineError("stream-stalled", "the client read nothing for too long; the stream was reset"));
    }, idleMs);
    cancelledOr(call, wait).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function outputFor<Req, Res>(call: ServerWritableStream<Req, Res>, onItem: () => void, idle?: { timeoutMs: number; onStall: () => void }): StreamOutput<Res> {
  const anyCall = call as unknown as ServerWritableStream<unknown, unknown>;
  const sink = (call as unknown as { call?: Partial<MessageSink> }).call;
  if (typeof sink?.sendMessage !== "function") {
    return {
      write(message) {
        onItem();
        if (call.write(message) || call.cancelled) return;
        return progressOr(
          anyCall,
          idle?.timeoutMs,
          () => idle?.onStall(),
          (resolve) => call.once("drain", resolve),
        );
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
  // Each wait is for the client to read some of what was sent: no progress for the idle timeout
  // resets the stream, so a client that stops reading cannot hold the buffered messages forever.
  const waitUntil = (below: number) =>
    progressOr(
      anyCall,
      idle?.timeoutMs,
      () => idle?.onStall(),
      (resolve) => (waiter = { below, resolve }),
    );
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

export function serverStream<Req, Res>(method: string, deps: CallDeps, handler: (request: Req, context: CallContext, write: StreamWriter<Res>) => Promise<void>): handleServerStreamingCall<Req, Res> {
  const m = methodMetrics(deps, method, "server_stream");
  const sent = deps.metrics.streamedItems.labels(m.labels);
  const stalled = deps.metrics.stalledStreams.labels(m.labels);
  const limits = deps.streams;
  return (call) => {
    const startedAt = performance.now();
    m.inFlight.value++;
    const server = serverSpanFor(call, m);
    const requestId = requestIdFor(call, server);
    if (limits && limits.active >= limits.maxActive) {
      const wire = serviceError(new EngineError("too-many-streams", "too many concurrent streams; retry later"), deps, method, requestId);
      finish(deps, m, wire.code, startedAt, server, requestId);
      call.emit("error", wire);
      return;
    }
    if (limits) limits.active++;
    let released = false;
    const release = () => {
      if (limits && !released) {
        released = true;
        limits.active--;
      }
    };
    // A stream holds its memory until HTTP/2 has flushed it, which can be after the handler is done
    // (the last messages and the trailers wait for the client to read): count it until then.
    const transport = http2StreamOf(call);
    if (transport && !transport.closed) transport.once("close", release);
    else call.once("close", release);
    call.once("cancelled", release);
    const items = sent;
    const idle = limits ? { timeoutMs: limits.idleTimeoutMs, onStall: () => stalled.inc() } : undefined;
    const output = outputFor(call, () => items.inc(), idle);
    const run = () =>
      Promise.resolve()
        .then(() => deps.authenticator.authenticate(call.metadata))
        .then((identity) => handler(call.request, { identity, cancelled: () => call.cancelled }, output.write))
        .then(() => output.flush())
        .then(
          () => {
            finish(deps, m, status.OK, startedAt, server, requestId);
            call.end();
            if (limits && transport && !transport.closed) {
              // Everything is queued; a client that never reads the rest is reset like any stalled one.
              const timer = setTimeout(() => {
                stalled.inc();
                resetStalledStream(call);
              }, limits.idleTimeoutMs);
              transport.once("close", () => clearTimeout(timer));
            } else {
              release();
            }
          },
          (error: unknown) => {
            release();
            const wire = serviceError(error, deps, method, requestId);
            finish(deps, m, wire.code, startedAt, server, requestId);
            call.emit("error", wire);
          },
        );
    if (server) withContext(server.context, run);
    else run();
  };
}
