// Test support: a local OTLP/HTTP receiver that decodes the protobuf the exporter sends (just
// the fields tests look at), so tests check what a real collector would receive.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";

export interface ReceivedSpan {
  serviceName: string | undefined;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export interface OtlpReceiver {
  /** Base URL, as OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Export requests received (any path). */
  readonly requests: number;
  close(): Promise<void>;
}

/** A log destination (createLogger's `destination`) keeping each JSON line, parsed, in `lines`. */
export function capturedLogLines(): { destination: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { destination, lines };
}

type Field = { no: number; value: Uint8Array | bigint };

function varint(buf: Uint8Array, at: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buf[at++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, at];
    shift += 7n;
  }
}

/** The fields of one protobuf message (wire types 0, 1, 2 and 5). */
function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = varint(buf, at);
    at = next;
    const no = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [value, after] = varint(buf, at);
      out.push({ no, value });
      at = after;
    } else if (wire === 2) {
      const [length, after] = varint(buf, at);
      const end = after + Number(length);
      out.push({ no, value: buf.subarray(after, end) });
      at = end;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      out.push({ no, value: buf.subarray(at, at + size) });
      at += size;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return out;
}

const bytes = (f: Field[], no: number): Uint8Array[] => f.filter((x) => x.no === no && x.value instanceof Uint8Array).map((x) => x.value as Uint8Array);
const first = (f: Field[], no: number): Uint8Array | undefined => bytes(f, no)[0];
const text = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString("utf8") : "");
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString("hex") : "");
const num = (f: Field[], no: number): number => {
  const v = f.find((x) => x.no === no)?.value;
  return typeof v === "bigint" ? Number(v) : 0;
};

/** KeyValue list → record (string, int and bool values). */
function attributes(list: Uint8Array[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of list) {
    const f = fields(kv);
    const any = fields(first(f, 2) ?? new Uint8Array());
    const str = first(any, 1);
    if (str) out[text(first(f, 1))] = text(str);
    else if (any.some((x) => x.no === 3)) out[text(first(f, 1))] = num(any, 3);
    else if (any.some((x) => x.no === 2)) out[text(first(f, 1))] = num(any, 2) === 1;
  }
  return out;
}

/** Spans of an ExportTraceServiceRequest (opentelemetry/proto/collector/trace/v1). */
export function decodeExportTraceRequest(body: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of bytes(fields(body), 1)) {
    const rs = fields(resourceSpans);
    const resource = attributes(bytes(fields(first(rs, 1) ?? new Uint8Array()), 1));
    const serviceName = typeof resource["service.name"] === "string" ? resource["service.name"] : undefined;
    for (const scopeSpans of bytes(rs, 2)) {
      for (const span of bytes(fields(scopeSpans), 2)) {
        const f = fields(span);
        spans.push({
          serviceName,
          traceId: hex(first(f, 1)),
          spanId: hex(first(f, 2)),
          parentSpanId: hex(first(f, 4)),
          name: text(first(f, 5)),
          kind: num(f, 6),
          attributes: attributes(bytes(f, 9)),
          statusCode: num(fields(first(f, 15) ?? new Uint8Array()), 3),
        });
      }
    }
  }
  return spans;
}

/** Starts a receiver on a free local port, answering every export with 200 (empty response). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests++;
      if (req.url === "/v1/traces") spans.push(...decodeExportTraceRequest(Buffer.concat(chunks)));
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export { closedByServer, MALFORMED_FRAMINGS, openSocket, statusLineOf, trickleUntilClosed } from "./slow-clients.js";
export { CONTINUATION_FRAGMENT, H2_FLOODS, H2_PREFACE, h2Frame, headersOnlyRequest, requestHeaderBlock, sendUntilClosed, unfinishedHeaderBlock } from "./h2-floods.js";
