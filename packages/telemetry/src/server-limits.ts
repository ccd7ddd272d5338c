// HTTP server bounds shared by the HTTP apps (management API, workspace-cache): timeouts, a
// connection cap, and how unreadable bytes on a connection are answered.
import { createServer, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { ConnectionTable, peerOf, type TableEntry } from "./connection-table.js";

/** Bounds on what a client may hold open; without them idle sockets pile up until file descriptors run out. */
export interface HttpServerLimits {
  /** Whole request headers must arrive within this, ms. */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must arrive within this, ms. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this, ms (above load balancers' idle timeout). */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic at all (e.g. opened and never used) is closed after this, ms. */
  idleTimeoutMs: number;
  /**
   * Concurrent connections; at the cap the source holding the most gives way its oldest connection
   * with no request in progress (connection-table.ts), or a newcomer from that source is refused.
   */
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpServerLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 65_000,
  idleTimeoutMs: 120_000,
  maxConnections: 10_000,
};

/**
 * How often Node looks for requests past their headers or request timeout. Its default (30 s) cuts
 * a client that trickles headers 30 s late at worst; a tenth of the shorter timeout (10 ms to 1 s)
 * keeps the cut within about 10 % of the configured bound at the cost of a cheap periodic scan.
 */
export function connectionsCheckingInterval(limits: HttpServerLimits): number {
  return Math.max(10, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10)));
}

/** An HTTP server with the limits applied, including the checking interval only creation can set. */
export function createBoundedHttpServer(handler: RequestListener, limits: HttpServerLimits): Server {
  const server = createServer({ connectionsCheckingInterval: connectionsCheckingInterval(limits) }, handler);
  applyServerLimits(server, limits);
  return server;
}

export function applyServerLimits(server: Server, limits: HttpServerLimits): void {
  // Node requires headersTimeout ≤ requestTimeout.
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  limitConnections(server, limits.maxConnections);
  server.setTimeout(limits.idleTimeoutMs, (socket) => socket.destroy());
  server.on("clientError", answerClientError);
}

interface HttpConnection extends TableEntry {
  readonly socket: Socket;
  requests: number;
}

/**
 * The connection cap as a table where the largest source gives way (Node's `maxConnections` refuses
 * every newcomer instead, so one source holding half-sent requests would keep everyone out).
 */
function limitConnections(server: Server, max: number): void {
  const table = new ConnectionTable<HttpConnection>(max);
  const bySocket = new WeakMap<Socket, HttpConnection>();
  server.on("connection", (socket: Socket) => {
    const connection: HttpConnection = {
      peer: peerOf(socket.remoteAddress),
      socket,
      requests: 0,
      busy: () => connection.requests > 0,
    };
    const admission = table.admit(connection);
    if (!admission.admitted) {
      socket.destroy();
      return;
    }
    admission.evicted?.socket.destroy();
    bySocket.set(socket, connection);
    socket.once("close", () => table.remove(connection));
  });
  server.on("request", (request, response: ServerResponse) => {
    const connection = bySocket.get(request.socket as Socket);
    if (!connection) return;
    connection.requests++;
    response.once("close", () => connection.requests--);
  });
}

// Node's own answers to what its parser refuses (see its default clientError handling).
const CLIENT_ERROR_STATUS: Readonly<Record<string, string>> = {
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "413 Payload Too Large",
};

/**
 * Bytes the parser cannot read after a complete request (e.g. a body sent on a DELETE without
 * Content-Length, so it reads as the next request) must not answer for the request being served:
 * Node's default writes its 400 at once, ahead of that request's own response, so a client is
 * told "400" about a request that was carried out. Here the request in flight answers first and
 * the connection closes after it; otherwise the answer is Node's usual one (a status only when
 * nothing was written on the connection yet, then the connection is closed). Bytes that belong
 * to the body of the request in flight are answered at once with 400: that request cannot finish.
 */
const finishing = new WeakSet<Duplex>();

function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // Later chunks of the same unreadable bytes report again: the connection is already closing.
  if (finishing.has(socket)) return;
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableEnded && inFlight.req && !inFlight.req.complete) {
    // The unreadable bytes are the body of the request being served (a chunk size that is not
    // hex, a Transfer-Encoding other than chunked): it can never complete, so waiting for its
    // answer would hold the connection until a timeout. It is answered here instead.
    finishing.add(socket);
    if (!inFlight.headersSent && socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    socket.destroy();
    return;
  }
  if (inFlight && !inFlight.writableEnded) {
    finishing.add(socket);
    socket.pause();
    inFlight.shouldKeepAlive = false;
    inFlight.once("close", () => socket.destroy());
    return;
  }
  // As Node does: a status only on a connection nothing has been written to yet.
  if (error.code !== "ECONNRESET" && socket.writable && (socket as Duplex & { bytesWritten?: number }).bytesWritten === 0) {
    const status = CLIENT_ERROR_STATUS[error.code ?? ""] ?? "400 Bad Request";
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
  }
  socket.destroy();
}
