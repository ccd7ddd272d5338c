// The gRPC port's own TCP listener, so connections are bounded as the HTTP services' are:
// grpc-js has no connection cap, and connections it never hears from stay open forever. The
// engine accepts sockets itself (with a cap) and hands them to grpc-js; grpc-js closes a
// connection with no call in progress after the idle timeout (`grpc.max_connection_idle_ms`,
// set with the server), and `requestArrivalDeadline` ends calls whose request never arrives.
import { constants, type ServerHttp2Stream } from "node:http2";
import { createServer, type Server as TcpServer } from "node:net";
import { Metadata, type Server, type ServerCredentials, ServerInterceptingCall, type ServerInterceptor, status } from "@grpc/grpc-js";
import type { ArrivalDeadlines } from "./arrival-deadlines.js";
import { type DirectMethods, http2ServersOf, serveDirectly } from "./direct-unary.js";

export interface ConnectionLimits {
  /** Concurrent connections; more are closed at once until some close. */
  max: number;
  /** A connection with no call in progress (one that never sends a byte included) is closed after this, ms. */
  idleTimeoutMs: number;
  /** A unary or server-streaming call's request (message and end of stream) must arrive within this, ms. */
  requestTimeoutMs: number;
}

export interface GrpcListener {
  port: number;
  /** The checks are served directly (direct-unary.ts). */
  direct: boolean;
  /** Stops accepting at once; open connections are left to the gRPC server's shutdown. */
  close(): Promise<void>;
}

/** The checks served on their HTTP/2 streams ahead of grpc-js (direct-unary.ts). */
export interface DirectServing {
  methods: DirectMethods;
  arrival: ArrivalDeadlines;
  /** grpc-js's internals were not as expected: every call goes through grpc-js. */
  onUnavailable(): void;
}

/** `onRefused`: called for each connection closed at once because `limits.max` were open. */
export async function listenGrpc(
  server: Server,
  credentials: ServerCredentials,
  host: string,
  port: number,
  limits: ConnectionLimits,
  onRefused?: () => void,
  direct?: DirectServing,
): Promise<GrpcListener> {
  const before = http2ServersOf(server);
  const injector = server.createConnectionInjector(credentials);
  let served = false;
  if (direct) {
    const made = [...http2ServersOf(server)].filter((h2) => !before.has(h2));
    served = made.length === 1 && serveDirectly(server, made[0]!, direct.methods, direct.arrival);
    if (!served) direct.onUnavailable();
  }
  const tcp: TcpServer = createServer((socket) => {
    socket.on("error", () => socket.destroy());
    // No Nagle delay: an answer's last segment goes out at once (gRPC servers set TCP_NODELAY).
    socket.setNoDelay(true);
    injector.injectConnection(socket);
  });
  tcp.maxConnections = limits.max;
  tcp.on("drop", () => onRefused?.());
  const bound = await new Promise<number>((resolve, reject) => {
    tcp.once("error", reject);
    tcp.listen(port, host, () => {
      tcp.off("error", reject);
      resolve((tcp.address() as { port: number }).port);
    });
  });
  return {
    port: bound,
    direct: served,
    // close() waits for every connection to end; those are the gRPC server's shutdown's to end.
    close: async () => {
      tcp.close();
    },
  };
}

/**
 * Ends a unary or server-streaming call whose request has not fully arrived (message and end of
 * stream) within the deadlines' timeout with DEADLINE_EXCEEDED, so a client that opens calls and
 * never sends their bodies holds nothing. Client-streaming and bidirectional calls (reflection)
 * send at their own pace and are left alone.
 */
export function requestArrivalDeadline(arrival: ArrivalDeadlines): ServerInterceptor {
  return (method, call) => {
    if (method.requestStream) return new ServerInterceptingCall(call);
    let watch: { settle(): void } | undefined;
    const settle = () => watch?.settle();
    return new ServerInterceptingCall(call, {
      start(next) {
        watch = arrival.watch(() => {
          call.sendStatus({ code: status.DEADLINE_EXCEEDED, details: `The request did not arrive within ${arrival.timeoutMs} ms.`, metadata: new Metadata() });
          // The status ends our side only; a client that never ends its side would keep the
          // stream, and so its connection, open. grpc-js exposes no way to reset it but its
          // call's stream (a test fails if that changes).
          const stream = (call as unknown as { stream?: ServerHttp2Stream }).stream;
          if (stream && !stream.closed) stream.close(constants.NGHTTP2_NO_ERROR);
        });
        next({
          onReceiveHalfClose(nextHalfClose) {
            settle();
            nextHalfClose();
          },
          onCancel() {
            settle();
          },
        });
      },
      sendStatus(callStatus, nextStatus) {
        settle();
        nextStatus(callStatus);
      },
    });
  };
}
