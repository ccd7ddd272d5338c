// The gRPC port's own TCP listener, so connections are bounded as the HTTP services' are: grpc-js
// has no connection cap and no deadline for a header block, and a connection it never hears a
// whole request on stays open forever. The engine accepts sockets itself and hands them to
// grpc-js, keeping each in a connection table (a full table makes the largest holder give way,
// connection-table.ts) and watching it (connection-watch.ts): a connection must send a whole
// header block within the headers deadline (the TLS handshake, preface and first request
// included), and one with no call in progress is closed after the idle timeout however many
// bytes it sends meanwhile. `requestArrivalDeadline` ends calls whose request never arrives.
import { constants, type Http2Server, type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import { createServer, type Server as TcpServer } from "node:net";
import { Metadata, type Server, type ServerCredentials, ServerInterceptingCall, type ServerInterceptor, status } from "@grpc/grpc-js";
import { ConnectionTable, peerOf } from "@gatehouse/telemetry";
import type { ArrivalDeadlines } from "./arrival-deadlines.js";
import { type CloseReason, type ConnectionLimits, WatchedConnection, watchInterval } from "./connection-watch.js";
import { type DirectMethods, http2ServersOf, serveDirectly } from "./direct-unary.js";

export type { CloseReason, ConnectionLimits } from "./connection-watch.js";

export interface GrpcListener {
  port: number;
  /** The checks are served directly (direct-unary.ts). */
  direct: boolean;
  /** Stops accepting at once; open connections are left to the gRPC server's shutdown. */
  close(): Promise<void>;
  /** After the gRPC server's shutdown: ends what is left (a half-sent header block grpc-js never sees) and stops watching. */
  end(): void;
}

/** The checks served on their HTTP/2 streams ahead of grpc-js (direct-unary.ts). */
export interface DirectServing {
  methods: DirectMethods;
  arrival: ArrivalDeadlines;
  /** grpc-js's internals were not as expected: every call goes through grpc-js. */
  onUnavailable(): void;
}

export interface ListenerEvents {
  /** A connection was closed at once: the table was full and its source holds the most already. */
  onRefused?(): void;
  /** A connection the engine closed: it gave way to a newcomer, or a deadline passed. */
  onClosed?(reason: CloseReason): void;
}

const now = performance.now.bind(performance);

export async function listenGrpc(
  server: Server,
  credentials: ServerCredentials,
  host: string,
  port: number,
  limits: ConnectionLimits,
  events: ListenerEvents = {},
  direct?: DirectServing,
  reusePort = false,
): Promise<GrpcListener> {
  const before = http2ServersOf(server);
  const injector = server.createConnectionInjector(credentials);
  const made = [...http2ServersOf(server)].filter((h2) => !before.has(h2));
  let served = false;
  if (direct) {
    served = made.length === 1 && serveDirectly(server, made[0]!, direct.methods, direct.arrival);
    if (!served) direct.onUnavailable();
  }
  const table = new ConnectionTable<WatchedConnection>(limits.max);
  // Sessions are matched to their sockets by the remote end (a TLS session's socket is not ours).
  const byRemote = new Map<string, WatchedConnection>();
  const closeFor = (connection: WatchedConnection, reason: CloseReason) => {
    events.onClosed?.(reason);
    connection.socket.destroy();
  };
  for (const h2 of made) {
    followSessions(h2, byRemote);
    h2.on("session", widenConnectionWindow);
  }

  const tcp: TcpServer = createServer((socket) => {
    socket.on("error", () => socket.destroy());
    const connection = new WatchedConnection(peerOf(socket.remoteAddress), socket, now());
    const admission = table.admit(connection);
    if (!admission.admitted) {
      events.onRefused?.();
      socket.destroy();
      return;
    }
    if (admission.evicted) closeFor(admission.evicted, "evicted");
    const remote = remoteKey(socket);
    byRemote.set(remote, connection);
    socket.once("close", () => {
      table.remove(connection);
      if (byRemote.get(remote) === connection) byRemote.delete(remote);
    });
    // No Nagle delay: an answer's last segment goes out at once (gRPC servers set TCP_NODELAY).
    socket.setNoDelay(true);
    injector.injectConnection(socket);
  });
  // One sweep for every connection, a tenth of the shorter deadline apart.
  const sweep = setInterval(() => {
    const at = now();
    for (const connection of byRemote.values()) {
      const reason = connection.overdue(at, limits);
      if (reason) closeFor(connection, reason);
    }
  }, watchInterval(limits));
  sweep.unref();
  const bound = await new Promise<number>((resolve, reject) => {
    tcp.once("error", reject);
    // reusePort: every engine thread binds the port; the kernel spreads connections (SO_REUSEPORT).
    tcp.listen({ port, host, ...(reusePort ? { reusePort: true } : {}) }, () => {
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
    end: () => {
      clearInterval(sweep);
      for (const connection of byRemote.values()) connection.socket.destroy();
    },
  };
}

function remoteKey(socket: { remoteAddress?: string | undefined; remotePort?: number | undefined }): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

/**
 * The connection's receive window (HTTP/2 flow control), 65,535 bytes by default, raised to the
 * largest allowed. Node's HTTP/2 gives window back on a connection only as its streams' data is
 * read: bytes it never hands to a reader (data for a stream already answered or reset) keep part
 * of the window for good. A proxy such as HAProxy multiplexes every client's calls over a few
 * long-lived connections, so at 64 KiB such losses add up on one connection until every request
 * on it stops mid-body. Each stream keeps its own 65,535-byte window (returned as it is read), so
 * no stream may buffer more than before, and a session's memory stays bounded by maxSessionMemory.
 */
export const CONNECTION_WINDOW_BYTES = 2 ** 31 - 1;

function widenConnectionWindow(session: ServerHttp2Session): void {
  session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
}

/** Counts each session's streams on its connection (a stream exists once its header block is whole). */
function followSessions(h2: Http2Server, byRemote: Map<string, WatchedConnection>): void {
  h2.on("session", (session: ServerHttp2Session) => {
    const connection = byRemote.get(remoteKey(session.socket));
    if (!connection) return;
    session.on("stream", (stream: ServerHttp2Stream) => {
      connection.streamOpened(stream);
      stream.once("close", () => connection.streamClosed(stream, now()));
    });
  });
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
