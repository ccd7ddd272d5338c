import type { Server } from "node:http";

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
  /** Concurrent connections; more are refused (closed at once) until some close. */
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpServerLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 65_000,
  idleTimeoutMs: 120_000,
  maxConnections: 10_000,
};

export function applyServerLimits(server: Server, limits: HttpServerLimits): void {
  // Node requires headersTimeout ≤ requestTimeout.
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  server.setTimeout(limits.idleTimeoutMs, (socket) => socket.destroy());
}
