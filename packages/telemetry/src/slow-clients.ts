// Test support: clients that misbehave at the socket level (silent, trickling headers or a body,
// malformed framing), each observed through the socket's close event, never by timing the server.
import { connect, type Socket } from "node:net";

export function openSocket(port: number, host = "127.0.0.1"): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => resolve(socket));
    socket.on("error", () => undefined);
    socket.once("error", reject);
  });
}

/** true once the server closes the socket; false if it is still open after `withinMs` (a generous bound, never the expectation). */
export function closedWithin(socket: Socket, withinMs: number): Promise<boolean> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), withinMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.resume();
  });
}

/**
 * Sends `head`, then `drip` again every `everyMs` (so the socket is never idle) until the server
 * closes it; true when that happens within `withinMs`.
 */
export async function trickleClosedWithin(port: number, head: string, drip: string, everyMs: number, withinMs: number): Promise<boolean> {
  const socket = await openSocket(port);
  socket.write(head);
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(drip);
  }, everyMs);
  try {
    return await closedWithin(socket, withinMs);
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

/** Sends `head` + `framing`; resolves with the answer's status line once the server closes (or "" if it did not within `withinMs`). */
export async function statusLineOf(port: number, head: string, framing: string, withinMs: number): Promise<string> {
  const socket = await openSocket(port);
  const received: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => received.push(chunk));
  socket.write(head + framing);
  const closed = await closedWithin(socket, withinMs);
  socket.destroy();
  return closed ? (Buffer.concat(received).toString("latin1").split("\r\n")[0] ?? "") : "";
}
