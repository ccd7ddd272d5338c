// The deadlines of one gRPC connection, checked by the listener's periodic sweep (listener.ts). A
// stream exists only once its header block is whole, so a connection with no stream in progress is
// either idle or still sending a header block (or a TLS handshake, or the preface): it gets the
// headers deadline from its first byte since it last had a call, and the idle timeout in any case.
// An answer the client does not take (a zero flow-control window) holds its stream: once the engine
// has written all of it, the client has the request deadline to take it before the stream is reset.
import { constants, type ServerHttp2Stream } from "node:http2";
import type { Socket } from "node:net";
import type { TableEntry } from "@gatehouse/telemetry";

export interface ConnectionLimits {
  /** Concurrent connections; at the cap the largest holder gives way (connection-table.ts). */
  max: number;
  /** A connection with no call in progress (one that never sends a byte included) is closed after this, ms. */
  idleTimeoutMs: number;
  /**
   * A header block (and, first, the TLS handshake and HTTP/2 preface) must arrive within this, ms,
   * counted from a connection's first byte since it last had a call in progress.
   */
  headersTimeoutMs: number;
  /**
   * A unary or server-streaming call's request (message and end of stream) must arrive within this,
   * ms; an answer written in full must be taken by the client within it too.
   */
  requestTimeoutMs: number;
}

export type CloseReason = "evicted" | "headers_timeout" | "idle_timeout";

/** A tenth of the shorter deadline, within 10 ms and 1 s (as the HTTP servers' checking interval). */
export function watchInterval(limits: ConnectionLimits): number {
  return Math.max(10, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.idleTimeoutMs, limits.requestTimeoutMs) / 10)));
}

export class WatchedConnection implements TableEntry {
  /** Streams in progress, each with when its answer was written in full (-1 while it is not). */
  private readonly streams = new Map<ServerHttp2Stream, number>();
  /** Since when no stream is in progress. */
  private idleSince: number;
  /** Bytes read when it last became idle; more since means a client sending something that is not (yet) a call. */
  private idleBytes = 0;
  /** When bytes were first seen since it became idle (-1: none yet). */
  private sendingSince = -1;

  constructor(
    readonly peer: string,
    readonly socket: Socket,
    openedAt: number,
  ) {
    this.idleSince = openedAt;
    // Counted from the accept: the handshake and preface are due within the headers deadline.
    this.sendingSince = openedAt;
  }

  busy(): boolean {
    return this.streams.size > 0;
  }

  streamOpened(stream: ServerHttp2Stream): void {
    this.streams.set(stream, -1);
  }

  streamClosed(stream: ServerHttp2Stream, at: number): void {
    if (!this.streams.delete(stream) || this.streams.size > 0) return;
    this.idleSince = at;
    this.idleBytes = this.socket.bytesRead;
    this.sendingSince = -1;
  }

  /** Why the connection must close now, if it must; resets streams whose written answers were not taken. */
  overdue(at: number, limits: ConnectionLimits): CloseReason | undefined {
    if (this.streams.size > 0) {
      for (const [stream, writtenAt] of this.streams) {
        if (writtenAt < 0) {
          if (stream.writableEnded) this.streams.set(stream, at);
        } else if (at - writtenAt >= limits.requestTimeoutMs && !stream.closed) {
          stream.close(constants.NGHTTP2_CANCEL);
        }
      }
      return undefined;
    }
    if (at - this.idleSince >= limits.idleTimeoutMs) return "idle_timeout";
    if (this.sendingSince < 0 && this.socket.bytesRead > this.idleBytes) this.sendingSince = at;
    if (this.sendingSince >= 0 && at - this.sendingSince >= limits.headersTimeoutMs) return "headers_timeout";
    return undefined;
  }
}
