import type { Server } from "node:http";

/**
 * Graceful stop of an HTTP server: stops accepting connections, closes idle keep-alive connections
 * (again as in-flight requests finish, and tells their clients `connection: close`), and waits for
 * the requests in flight. Whatever is still open after `timeoutMs` is closed. Resolves `true` when
 * everything finished in time.
 */
export function drainHttpServer(server: Server, timeoutMs: number): Promise<boolean> {
  if (!server.listening) return Promise.resolve(true);
  // Responses written from now on ask the client to close the connection.
  server.on("request", (_req, res) => {
    if (!res.headersSent) res.setHeader("connection", "close");
  });
  return new Promise<boolean>((resolve) => {
    let done = false;
    const finish = (inTime: boolean) => {
      if (done) return;
      done = true;
      clearInterval(idleSweep);
      clearTimeout(deadline);
      resolve(inTime);
    };
    // A keep-alive connection becomes idle when its response ends; close it then.
    const idleSweep = setInterval(() => server.closeIdleConnections(), 25);
    const deadline = setTimeout(() => {
      server.closeAllConnections();
      finish(false);
    }, timeoutMs);
    server.close(() => finish(true));
    server.closeIdleConnections();
  });
}
