// The checks (Check, CheckForUpdate, CheckSelf and their bulk forms) served straight on their
// HTTP/2 streams, beside grpc-js on the same port and connections. Most of a Check's cost over
// gRPC was grpc-js's per-call machinery (an intercepting call, a stream decoder, listener objects,
// a unary call emitter, a status object, a frame copy), not the answer: bench/wire.ts measures it.
// Only the wire shell is here: the handlers, serializers, authentication, metrics and errors are
// the same functions grpc-js calls for every other method (calls.ts `unary`).
//
// A stream is served here only when its headers are plain (a gRPC content type, no compression, a
// well-formed or absent `grpc-timeout`); anything else goes to grpc-js, which answers it as before.
// For the rest — body framing and its limits, deadlines, trailers, statuses and their messages —
// this follows grpc-js's server exactly (test/direct-unary.test.ts sends the same requests, good
// and bad, to both and compares the answers).
import { constants, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import { Metadata, type handleUnaryCall, type Server, type ServiceDefinition, status, type UntypedServiceImplementation } from "@grpc/grpc-js";
import type { ArrivalDeadlines, ArrivalWatch } from "./arrival-deadlines.js";

/** The largest request message accepted (grpc-js's default; the server is given the same). */
export const MAX_RECEIVE_MESSAGE_BYTES = 4 * 1024 * 1024;

const DEADLINE_PATTERN = /(\d{1,8})\s*([HMSmun])/;
const DEADLINE_UNIT_MS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };

/** grpc-js's response headers, so a client cannot tell which path answered. */
const RESPONSE_HEADERS = {
  [constants.HTTP2_HEADER_STATUS]: constants.HTTP_STATUS_OK,
  [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
  "grpc-accept-encoding": "identity,deflate,gzip",
  "grpc-encoding": "identity",
};
/** What grpc-js removes from the request metadata before handlers see it. */
const TRANSPORT_HEADERS = ["grpc-timeout", "grpc-encoding", "grpc-accept-encoding", constants.HTTP2_HEADER_ACCEPT_ENCODING, constants.HTTP2_HEADER_TE, constants.HTTP2_HEADER_CONTENT_TYPE];
const SEND_ERROR_DETAILS = process.env["GRPC_NODE_DEBUG_SEND_ERROR_DETAILS"] === "true";
const noop = () => undefined;

export type DirectMethods = readonly DirectMethod[];

interface DirectMethod {
  path: string;
  deserialize: (bytes: Buffer) => unknown;
  serialize: (value: unknown) => Buffer;
  handle: handleUnaryCall<unknown, unknown>;
}

/** The methods of `definition` named in `names`, with the handlers grpc-js would call for them. */
export function directMethods(definition: ServiceDefinition, implementation: UntypedServiceImplementation, names: readonly string[]): DirectMethod[] {
  return names.map((name) => {
    const method = definition[name];
    const handle = implementation[name];
    if (!method || method.requestStream || method.responseStream || typeof handle !== "function") throw new Error(`${name} is not a unary method of the service`);
    return {
      path: method.path,
      deserialize: method.requestDeserialize as DirectMethod["deserialize"],
      serialize: method.responseSerialize as DirectMethod["serialize"],
      handle: handle as handleUnaryCall<unknown, unknown>,
    };
  });
}

/** grpc-js's internals this relies on (pinned version; test/direct-unary.test.ts fails if they change). */
interface GrpcServerInternals {
  http2Servers?: Map<Http2Server, unknown>;
  onStreamOpened?: (stream: ServerHttp2Stream) => void;
}

/** The HTTP/2 servers grpc-js has made so far (its connection injectors' among them). */
export function http2ServersOf(server: Server): Set<Http2Server> {
  return new Set((server as unknown as GrpcServerInternals).http2Servers?.keys() ?? []);
}

/**
 * Serves `methods` on `http2Server` (a grpc-js connection injector's) ahead of grpc-js: its
 * 'stream' listeners are called for every other stream. Returns false, changing nothing, when
 * grpc-js's internals are not as expected (every call then goes through grpc-js).
 */
export function serveDirectly(server: Server, http2Server: Http2Server, methods: readonly DirectMethod[], arrival: ArrivalDeadlines): boolean {
  const internals = server as unknown as GrpcServerInternals;
  const onStreamOpened = internals.onStreamOpened;
  const grpcListeners = http2Server.listeners("stream") as ((...args: unknown[]) => void)[];
  if (typeof onStreamOpened !== "function" || grpcListeners.length !== 1) return false;
  const byPath = new Map(methods.map((m) => [m.path, m]));
  const grpc = grpcListeners[0]!;
  http2Server.removeAllListeners("stream");
  http2Server.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => {
    const method = byPath.get(headers[constants.HTTP2_HEADER_PATH] as string);
    const timeoutMs = method === undefined ? undefined : plainTimeout(headers);
    if (method === undefined || timeoutMs === undefined) {
      grpc.call(http2Server, stream, headers, ...rest);
      return;
    }
    // As grpc-js does for each stream: an 'error' listener (a close follows every error) and the
    // connection's idle accounting (max_connection_idle_ms counts streams in progress).
    stream.once("error", noop);
    onStreamOpened.call(server, stream);
    new DirectCall(stream, headers, method, timeoutMs, arrival);
  });
  return true;
}

/**
 * The call's timeout in ms (Infinity without one) when the headers are plain enough to serve here,
 * or undefined: content type not gRPC's (grpc-js answers 415), a compressed request, a malformed
 * grpc-timeout (grpc-js answers INTERNAL naming it).
 */
function plainTimeout(headers: IncomingHttpHeaders): number | undefined {
  const contentType = headers[constants.HTTP2_HEADER_CONTENT_TYPE];
  if (typeof contentType !== "string" || !contentType.startsWith("application/grpc")) return undefined;
  const encoding = headers["grpc-encoding"];
  if (encoding !== undefined && encoding !== "identity") return undefined;
  const timeout = headers["grpc-timeout"];
  if (timeout === undefined) return Number.POSITIVE_INFINITY;
  const match = DEADLINE_PATTERN.exec(String(timeout));
  return match === null ? undefined : (Number(match[1]) * DEADLINE_UNIT_MS[match[2]!]!) | 0;
}

interface CallStatus {
  code: status;
  details: string;
  metadata?: Metadata | null;
}

/** One call on its stream: reads the framed request, runs the handler, writes the answer and status. */
class DirectCall {
  /** Read by the handler's context (UnaryCallContext): the client went away or the deadline passed. */
  cancelled = false;
  readonly metadata: Metadata;
  request: unknown = undefined;
  private headersSent = false;
  private ended = false;
  /** Bytes received and not yet taken as a message, and their total length. */
  private received: Buffer[] = [];
  private receivedBytes = 0;
  /** The current frame's whole length once its header has arrived, else -1. */
  private frameBytes = -1;
  private messages = 0;
  private deadline: NodeJS.Timeout | null = null;
  private readonly arrival: ArrivalWatch;

  constructor(
    private readonly stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    private readonly method: DirectMethod,
    timeoutMs: number,
    arrival: ArrivalDeadlines,
  ) {
    this.metadata = Metadata.fromHttp2Headers(headers);
    for (const name of TRANSPORT_HEADERS) this.metadata.remove(name);
    if (timeoutMs !== Number.POSITIVE_INFINITY) {
      this.deadline = setTimeout(() => this.sendStatus({ code: status.DEADLINE_EXCEEDED, details: "Deadline exceeded" }), timeoutMs);
    }
    this.arrival = arrival.watch(() => {
      this.sendStatus({ code: status.DEADLINE_EXCEEDED, details: `The request did not arrive within ${arrival.timeoutMs} ms.` });
      // The status ends our side only; a client that never ends its side would keep the stream.
      if (!stream.closed) stream.close(constants.NGHTTP2_NO_ERROR);
    });
    stream.once("close", () => this.onClose());
    stream.on("data", (chunk: Buffer) => this.onData(chunk));
    stream.once("end", () => this.onEnd());
  }

  private onClose(): void {
    this.arrival.settle();
    this.clearDeadline();
    if (!this.ended) {
      this.ended = true;
      this.cancelled = true;
    }
  }

  private clearDeadline(): void {
    if (this.deadline !== null) clearTimeout(this.deadline);
    this.deadline = null;
  }

  /**
   * Frames: a flag byte, a 4-byte big-endian length, the message (grpc-js's stream decoder). Chunks
   * are kept as they come and joined once a frame is whole (or its header has arrived), so a large
   * message in many chunks is copied a bounded number of times, not once per chunk.
   */
  private onData(chunk: Buffer): void {
    if (this.ended) return;
    this.received.push(chunk);
    this.receivedBytes += chunk.length;
    for (;;) {
      if (this.frameBytes < 0) {
        if (this.receivedBytes < 5) return;
        const bytes = this.joinReceived();
        const length = bytes.readUInt32BE(1);
        if (length > MAX_RECEIVE_MESSAGE_BYTES) {
          this.sendStatus({ code: status.RESOURCE_EXHAUSTED, details: `Received message larger than max (${length} vs ${MAX_RECEIVE_MESSAGE_BYTES})` });
          return;
        }
        this.frameBytes = 5 + length;
      }
      if (this.receivedBytes < this.frameBytes) return;
      const bytes = this.joinReceived();
      const rest = bytes.subarray(this.frameBytes);
      this.onMessage(bytes.subarray(5, this.frameBytes));
      if (this.ended) return;
      this.received = rest.length > 0 ? [rest] : [];
      this.receivedBytes = rest.length;
      this.frameBytes = -1;
    }
  }

  private joinReceived(): Buffer {
    if (this.received.length > 1) this.received = [Buffer.concat(this.received, this.receivedBytes)];
    return this.received[0]!;
  }

  private onMessage(message: Buffer): void {
    if (++this.messages > 1) {
      this.sendStatus({ code: status.UNIMPLEMENTED, details: `Received a second request message for server streaming method ${this.method.path}` });
      return;
    }
    try {
      this.request = this.method.deserialize(message);
    } catch (error) {
      this.sendStatus({ code: status.INTERNAL, details: SEND_ERROR_DETAILS ? `Error deserializing request: ${(error as Error).message}` : "Error deserializing request" });
    }
  }

  private onEnd(): void {
    this.arrival.settle();
    if (this.ended) return;
    if (this.messages === 0) {
      this.sendStatus({ code: status.UNIMPLEMENTED, details: `Received no request message for server streaming method ${this.method.path}` });
      return;
    }
    this.method.handle(this as never, (error, value, trailer) => this.answer(error, value, trailer));
  }

  /** Response headers with the handler's metadata (calls.ts sends the request id this way). */
  sendMetadata(metadata: Metadata): void {
    if (this.ended || this.headersSent || this.stream.destroyed || this.stream.closed) return;
    this.headersSent = true;
    this.stream.respond({ ...RESPONSE_HEADERS, ...metadata.toHttp2Headers() }, { waitForTrailers: true });
  }

  private answer(error: unknown, value: unknown, trailer?: Metadata | null): void {
    if (this.ended) return;
    if (this.stream.destroyed || this.stream.closed) {
      this.onClose();
      return;
    }
    if (error) {
      const e = error as { code?: unknown; details?: unknown; message?: unknown; metadata?: Metadata };
      const coded = typeof e.code === "number" && Number.isInteger(e.code);
      const details = coded && typeof e.details === "string" ? e.details : typeof e.message === "string" ? e.message : "Unknown Error";
      this.sendStatus({ code: coded ? (e.code as status) : status.UNKNOWN, details, metadata: trailer ?? e.metadata ?? null });
      return;
    }
    let message: Buffer;
    try {
      message = this.method.serialize(value);
    } catch (serializeError) {
      this.sendStatus({ code: status.INTERNAL, details: SEND_ERROR_DETAILS ? `Error serializing response: ${(serializeError as Error).message}` : "Error serializing response" });
      return;
    }
    const frame = Buffer.allocUnsafe(5 + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    if (!this.headersSent) {
      this.headersSent = true;
      this.stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
    }
    this.stream.write(frame);
    this.sendStatus({ code: status.OK, details: "OK", metadata: trailer ?? null });
  }

  /** The call's status: trailers after what was sent, or a trailers-only response. Once. */
  private sendStatus(callStatus: CallStatus): void {
    if (this.ended) return;
    this.ended = true;
    this.clearDeadline();
    this.arrival.settle();
    const stream = this.stream;
    if (stream.destroyed || stream.closed) return;
    const trailers = { "grpc-status": callStatus.code, "grpc-message": encodeURI(callStatus.details), ...callStatus.metadata?.toHttp2Headers() };
    if (this.headersSent) {
      stream.once("wantTrailers", () => stream.sendTrailers(trailers));
      stream.end();
    } else {
      const { "grpc-status": code, "grpc-message": message, ...metadata } = trailers;
      stream.respond(
        { "grpc-status": code, "grpc-message": message, [constants.HTTP2_HEADER_STATUS]: constants.HTTP_STATUS_OK, [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto", ...metadata },
        { endStream: true },
      );
    }
    // As grpc-js: a call whose status is sent counts as cancelled for a handler still running.
    if (callStatus.code !== status.OK) this.cancelled = true;
  }
}
