// Test support: the HTTP/2 abuse classes as raw frames (each a bounded count of frames, sent
// packed, as an attacker would), and a sender that waits for the server to close the connection.
// A server is judged by the close event and by serving others afterwards, never by timing.
import type { Socket } from "node:net";
import { closedByServer, openSocket } from "./slow-clients.js";

export const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

enum FrameType {
  Headers = 1,
  RstStream = 3,
  Settings = 4,
  Ping = 6,
  Continuation = 9,
}
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const CANCEL = 0x8;

export function h2Frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([header, payload]);
}

/** HPACK (no Huffman) of `name: value` as a literal without indexing. */
function literal(name: string, value: string): Buffer {
  const n = Buffer.from(name, "latin1");
  const v = Buffer.from(value, "latin1");
  return Buffer.concat([Buffer.from([0x00, n.length]), n, Buffer.from([v.length]), v]);
}

/** A POST's header block to `path` with a gRPC content type (HPACK: :method POST, :scheme http). */
export function requestHeaderBlock(path: string): Buffer {
  return Buffer.concat([Buffer.from([0x83, 0x86]), literal(":path", path), literal(":authority", "localhost"), literal("content-type", "application/grpc"), literal("te", "trailers")]);
}

const EMPTY_SETTINGS = h2Frame(FrameType.Settings, 0, 0);

/** The preface, empty SETTINGS and a HEADERS frame whose block never ends (no END_HEADERS). */
export function unfinishedHeaderBlock(path = "/"): Buffer {
  return Buffer.concat([H2_PREFACE, EMPTY_SETTINGS, h2Frame(FrameType.Headers, 0, 1, requestHeaderBlock(path).subarray(0, 2))]);
}

/** One more fragment of a header block that still does not end. */
export const CONTINUATION_FRAGMENT = h2Frame(FrameType.Continuation, 0, 1, literal("x-pad", "a"));

/** Each class: the preface and SETTINGS, then `count` abusive frames in one buffer. */
export const H2_FLOODS: Readonly<Record<string, (count: number) => Buffer>> = {
  /** A header block continued without end (CVE-2024-27316 class). */
  "CONTINUATION flood": (count) => Buffer.concat([unfinishedHeaderBlock(), ...Array.from({ length: count }, () => h2Frame(FrameType.Continuation, 0, 1))]),
  /** Streams opened and cancelled at once (CVE-2023-44487). */
  "rapid reset": (count) => {
    const frames = [H2_PREFACE, EMPTY_SETTINGS];
    const block = requestHeaderBlock("/grpc.health.v1.Health/Check");
    for (let i = 0; i < count; i++) {
      const id = 2 * i + 1;
      frames.push(h2Frame(FrameType.Headers, END_HEADERS, id, block), h2Frame(FrameType.RstStream, 0, id, Buffer.from([0, 0, 0, CANCEL])));
    }
    return Buffer.concat(frames);
  },
  /** SETTINGS frames, each owed an acknowledgement. */
  "SETTINGS flood": (count) => Buffer.concat([H2_PREFACE, ...Array.from({ length: count + 1 }, () => EMPTY_SETTINGS)]),
  /** PING frames, each owed an answer. */
  "PING flood": (count) => {
    const ping = h2Frame(FrameType.Ping, 0, 0, Buffer.alloc(8));
    return Buffer.concat([H2_PREFACE, EMPTY_SETTINGS, ...Array.from({ length: count }, () => ping)]);
  },
};

/** A request that asks nothing of the body (END_STREAM on its headers), for a server's own answer. */
export function headersOnlyRequest(streamId: number, path: string): Buffer {
  return h2Frame(FrameType.Headers, END_HEADERS | END_STREAM, streamId, requestHeaderBlock(path));
}

/**
 * Writes `bytes` and resolves once the server
 * closes the connection; no deadline of its own (the suite's hang bound ends a server that never
 * closes). `localAddress` makes the connection come from another loopback source.
 */
export async function sendUntilClosed(port: number, bytes: Buffer, host = "127.0.0.1", localAddress?: string): Promise<true> {
  const socket: Socket = await openSocket(port, host, localAddress);
  socket.write(bytes);
  try {
    return await closedByServer(socket);
  } finally {
    socket.destroy();
  }
}
