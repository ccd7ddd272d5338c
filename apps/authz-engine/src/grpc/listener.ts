// The gRPC port's own TCP listener, so connections are bounded as the HTTP services' are:
// grpc-js has no connection cap, and connections it never hears from stay open forever. The
// engine accepts sockets itself (with a cap) and hands them to grpc-js; grpc-js closes a
// connection with no call in progress after the idle timeout (`grpc.max_connection_idle_ms`,
// set with the server), and `requestArrivalDeadline` ends calls whose request never arrives.
import { constants, type ServerHttp2Stream } from "node:http2";
import { createServer, type Server as TcpServer } from "node:net";
import { Metadata, type Server, type ServerCredentials, ServerInterceptingCall, type ServerInterceptor, status } from "@grpc/grpc-js";

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
  /** Stops accepting at once; open connections are left to the gRPC server's shutdown. */
  close(): Promise<void>;
}

/** `onRefused`: called for each connection closed at once because `limits.max` were open. */
export async function listenGrpc(server: Server, credentials: ServerCredentials, host: string, port: number, limits: ConnectionLimits, onRefused?: () => void): Promise<GrpcListener> {
  const injector = server.createConnectionInjector(credentials);
  const tcp: TcpServer = createServer((socket) => {
    socket.on("error", () => socket.destroy());
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
    // close() waits for every connection to end; those are the gRPC server's shutdown's to end.
    close: async () => {
      tcp.close();
    },
  };
}

/**
 * Ends a unary or server-streaming call whose request has not fully arrived (message and end of
 * stream) within `timeoutMs` with DEADLINE_EXCEEDED, so a client that opens calls and never sends
 * their bodies holds nothing. Client-streaming and bidirectional calls (reflection) send at their
 * own pace and are left alone.
 */
export function requestArrivalDeadline(timeoutMs: number): ServerInterceptor {
  return (method, call) => {
    if (method.requestStream) return new ServerInterceptingCall(call);
    let timer: NodeJS.Timeout | undefined;
    const settle = () => {
      clearTimeout(timer);
      timer = undefined;
    };
    return new ServerInterceptingCall(call, {
      start(next) {
        timer = setTimeout(() => {
          timer = undefined;
          call.sendStatus({ code: status.DEADLINE_EXCEEDED, details: `The request did not arrive within ${timeoutMs} ms.`, metadata: new Metadata() });
          // The status ends our side only; a client that never ends its side would keep the
          // stream, and so its connection, open. grpc-js exposes no way to reset it but its
          // call's stream (a test fails if that changes).
          const stream = (call as unknown as { stream?: ServerHttp2Stream }).stream;
          if (stream && !stream.closed) stream.close(constants.NGHTTP2_NO_ERROR);
        }, timeoutMs);
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
