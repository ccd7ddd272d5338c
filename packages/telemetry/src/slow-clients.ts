// Test support: clients that misbehave at the socket level (silent, trickling headers or a body,
// malformed framing), each observed through the socket's close event, never by timing the server.
import { connect, type Socket } from "node:net";

/** `localAddress` (127.0.0.2 and so on) makes the connection come from another loopback source. */
export function openSocket(port: number, host = "127.0.0.1", localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host, ...(localAddress ? { localAddress } : {}) }, () => resolve(socket));
    socket.on("error", () => undefined);
    socket.once("error", reject);
  });
}

/**
 * Resolves (with true) once the server closes the socket, however long that takes: no deadline of
 * its own, so a slow machine cannot fail it; the suite's hang bound ends a test whose server never
 * closes.
 */
export function closedByServer(socket: Socket): Promise<true> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    socket.once("close", () => resolve(true));
    socket.resume();
  });
}

/**
 * Sends `head`, then `drip` again every `everyMs` (so the socket is never idle) until the server
 * closes it; resolves (true) when it does.
 */
export async function trickleUntilClosed(port: number, head: string, drip: string, everyMs: number): Promise<true> {
  const socket = await openSocket(port);
  socket.write(head);
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(drip);
  }, everyMs);
  try {
    return await closedByServer(socket);
  } finally {
    clearInterval(timer);
    socket.destroy();
  }
}

/** The two framings a server must refuse (400, then close) rather than wait on. */
export const MALFORMED_FRAMINGS: readonly (readonly [string, string])[] = [
  ["a chunk-size line that is not hex", "Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n"],
  ["a Transfer-Encoding that is not chunked", "Transfer-Encoding: xchunked\r\n\r\n{}"],
];

/** Sends `head` + `framing`; resolves with the answer's status line once the server closes. */
export async function statusLineOf(port: number, head: string, framing: string): Promise<string> {
  const socket = await openSocket(port);
  const received: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => received.push(chunk));
  socket.write(head + framing);
  await closedByServer(socket);
  socket.destroy();
  return Buffer.concat(received).toString("latin1").split("\r\n")[0] ?? "";
}
