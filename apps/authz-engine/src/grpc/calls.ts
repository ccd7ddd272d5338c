// Wrappers that every handler goes through: authentication, metrics, logging and the error
// mapping. Handlers stay thin (validate → command → response).
import { Metadata, status, type handleServerStreamingCall, type handleUnaryCall, type ServerWritableStream, type ServiceError } from "@grpc/grpc-js";
import type { Logger } from "@gatehouse/telemetry";
import type { EngineMetrics } from "../metrics.js";
import type { Authenticator, CallerIdentity } from "./authn.js";
import { toGrpcFailure } from "./errors.js";

export interface CallDeps {
  authenticator: Authenticator;
  metrics: EngineMetrics;
  logger: Logger;
}

export interface CallContext {
  identity: CallerIdentity | null;
  /** Aborted when the client cancels or the deadline passes (streams stop writing). */
  cancelled: () => boolean;
}

function serviceError(error: unknown, deps: CallDeps, method: string): ServiceError & { code: status } {
  const failure = toGrpcFailure(error);
  if (failure.code === status.INTERNAL || failure.code === status.UNKNOWN) {
    deps.logger.error({ err: error, method }, "call failed");
  } else {
    deps.logger.debug({ method, code: status[failure.code], message: failure.message }, "call rejected");
  }
  const wire = Object.assign(new Error(failure.message), { code: failure.code, details: failure.message, metadata: new Metadata() });
  return wire;
}

function finish(deps: CallDeps, method: string, code: status, startedAt: bigint): void {
  deps.metrics.calls.inc({ method, code: status[code] });
  deps.metrics.callSeconds.observe({ method }, Number(process.hrtime.bigint() - startedAt) / 1e9);
  deps.metrics.inFlight.dec({ method });
}

export function unary<Req, Res>(
  method: string,
  deps: CallDeps,
  handler: (request: Req, context: CallContext) => Promise<Res> | Res,
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const startedAt = process.hrtime.bigint();
    deps.metrics.inFlight.inc({ method });
    deps.authenticator
      .authenticate(call.metadata)
      .then((identity) => handler(call.request, { identity, cancelled: () => call.cancelled }))
      .then(
        (response) => {
          finish(deps, method, status.OK, startedAt);
          callback(null, response);
        },
        (error: unknown) => {
          const wire = serviceError(error, deps, method);
          finish(deps, method, wire.code, startedAt);
          callback(wire);
        },
      );
  };
}

/** Writes one message, waiting for the transport to drain when its buffer is full (back-pressure). */
export type StreamWriter<Res> = (message: Res) => Promise<void> | void;

function writerFor<Req, Res>(call: ServerWritableStream<Req, Res>, onItem: () => void): StreamWriter<Res> {
  return (message) => {
    onItem();
    if (call.write(message)) return;
    return new Promise<void>((resolve) => call.once("drain", () => resolve()));
  };
}

export function serverStream<Req, Res>(
  method: string,
  deps: CallDeps,
  handler: (request: Req, context: CallContext, write: StreamWriter<Res>) => Promise<void>,
): handleServerStreamingCall<Req, Res> {
  return (call) => {
    const startedAt = process.hrtime.bigint();
    deps.metrics.inFlight.inc({ method });
    const write = writerFor(call, () => deps.metrics.streamedItems.inc({ method }));
    deps.authenticator
      .authenticate(call.metadata)
      .then((identity) => handler(call.request, { identity, cancelled: () => call.cancelled }, write))
      .then(
        () => {
          finish(deps, method, status.OK, startedAt);
          call.end();
        },
        (error: unknown) => {
          const wire = serviceError(error, deps, method);
          finish(deps, method, wire.code, startedAt);
          call.emit("error", wire);
        },
      );
  };
}
