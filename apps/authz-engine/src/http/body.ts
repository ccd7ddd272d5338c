// Reading a JSON request body: bounded in size, strict UTF-8, no unpaired surrogates (the binary
// step of the JSON mapping would turn them into U+FFFD; text is refused, never altered).
import type { IncomingMessage, ServerResponse } from "node:http";
import { isWellFormedText } from "../limits.js";
import { BodyError } from "./errors.js";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
// A JSON escape of a surrogate half: the only way an unpaired one reaches JSON.parse's output
// (invalid bytes are refused by the decoder first).
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

function hasUnpairedSurrogate(value: unknown): boolean {
  if (typeof value === "string") return !isWellFormedText(value);
  if (Array.isArray(value)) return value.some(hasUnpairedSurrogate);
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) if (!isWellFormedText(key) || hasUnpairedSurrogate(item)) return true;
  }
  return false;
}

/** kratos picks the codec by the Content-Type's subtype; only JSON is served here. */
export function requireJsonContentType(header: string | undefined): void {
  const subtype = /^[^/;\s]+\/([^;\s]+)/.exec(header ?? "")?.[1]?.toLowerCase();
  if (subtype !== "json") throw new BodyError(header ? "unsupported content type; send application/json" : "no content type; send application/json");
}

/** The request's bytes, at most `maxBytes` (more is a 413 and the rest is not read). */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers["content-length"]);
  if (declared > maxBytes) return Promise.reject(new BodyError(`request body exceeds ${maxBytes} bytes`, 413));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.off("data", onData);
        request.pause();
        reject(new BodyError(`request body exceeds ${maxBytes} bytes`, 413));
        return;
      }
      chunks.push(chunk);
    };
    request.on("data", onData);
    request.once("end", () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    request.once("error", reject);
  });
}

/** How long a connection closing after an unread body waits for the client to finish sending (nginx's lingering_time). */
const LINGER_MS = 30_000;

/**
 * Closes the connection after the answer to a request whose body was not read to its end (too
 * large, or refused before it was read): the answer says `Connection: close` (the rest of the body
 * would otherwise read as the next request) and the connection closes gracefully, as nginx, Apache
 * and Tomcat close it ("lingering close"). Node's own close of a `Connection: close` answer
 * (socket.destroySoon) closes the socket as soon as the answer is flushed; with body bytes still
 * arriving, or unread in the socket's buffer, the kernel then resets the connection, and a client
 * still sending sees EPIPE or ECONNRESET instead of the answer (whether it read the answer first is
 * a race). Here, after the answer, the server's side is ended (FIN) and what the client still sends
 * of the body is read and dropped, up to `swallowBytes` (nothing is kept); the socket is closed
 * once the body has ended (nothing unread: no reset), the client closed, more than `swallowBytes`
 * arrived, or LINGER_MS passed.
 */
export function closeAfterUnreadBody(request: IncomingMessage, response: ServerResponse, swallowBytes: number): void {
  response.setHeader("connection", "close");
  const socket = request.socket;
  let swallowed = 0;
  let answered = false;
  request.on("data", (chunk: Buffer) => {
    swallowed += chunk.length;
    if (swallowed > swallowBytes) socket.destroy();
  });
  request.once("end", () => {
    if (answered) socket.destroy();
  });
  request.resume();
  // Node's HTTP server calls this once the `Connection: close` answer is written.
  socket.destroySoon = () => {
    if (socket.destroyed) return;
    const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once("close", () => clearTimeout(linger));
    socket.end(() => {
      answered = true;
      if (request.complete) socket.destroy();
    });
  };
}

/** The parsed JSON of a body; an empty body is the empty message, as kratos reads it. */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new BodyError("request body is not valid UTF-8");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input; say where instead.
    throw new BodyError("request body is not valid JSON");
  }
  if (SURROGATE_ESCAPE.test(text) && hasUnpairedSurrogate(value)) throw new BodyError("request body has an unpaired surrogate escape (text must be valid Unicode)");
  return value;
}
