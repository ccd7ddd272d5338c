// The checks served on their HTTP/2 streams (src/grpc/direct-unary.ts) answer exactly as grpc-js
// does: the same raw requests, good and bad, go to an engine serving them directly and to one
// where grpc-js serves every call, and the answers (headers, body bytes, trailers, stream end)
// must be the same. The cases are data: test/cases/direct-unary.json.
import { readFileSync } from "node:fs";
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from "node:http2";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { KesselInventoryServiceService } from "@gatehouse/proto";
import { openStore, type Store } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArrivalDeadlines } from "../src/grpc/arrival-deadlines.js";
import { host, hostIn, principal, readGrant, startEngine, type RunningEngine } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));

interface RawCase {
  name: string;
  /** Method name in the inventory service (its path is taken from the definition). */
  method: keyof typeof KesselInventoryServiceService;
  /** The request as JSON of the generated type (encoded with its serializer), or raw frames. */
  request?: unknown;
  /** Hex of whole frames to send instead (flag, length, message); "request" is then ignored. */
  framesHex?: string[];
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** false: the request is never ended (the client's side stays open). */
  end?: boolean;
  /** The frame's flag byte (default 0). */
  flag?: number;
  /** The frame sent this many times (default 1). */
  copies?: number;
  /** This many bytes left off the end of the frame. */
  truncateBy?: number;
  /** Hex appended to the encoded message (fields it does not know). */
  appendHex?: string;
  /** The request's items repeated to this many (a large bulk request without a large case file). */
  repeatItems?: number;
  /** Each frame written this many bytes at a time (separate DATA frames). */
  chunkBytes?: number;
  /** The encoded message with the UTF-8 bytes of `text` replaced by these (same length). */
  replace?: { text: string; withHex: string };
}

function framesOf(c: RawCase): Buffer[] {
  if (c.framesHex) return c.framesHex.map((hex) => Buffer.from(hex, "hex"));
  const serialize = KesselInventoryServiceService[c.method].requestSerialize as (value: unknown) => Buffer;
  const request = c.repeatItems
    ? {
        ...(c.request as { items: unknown[] }),
        items: Array.from({ length: c.repeatItems }, (_, i) => (c.request as { items: unknown[] }).items[i % (c.request as { items: unknown[] }).items.length]),
      }
    : c.request;
  let message = Buffer.concat([serialize(request), Buffer.from(c.appendHex ?? "", "hex")]);
  if (c.replace) {
    const at = message.indexOf(Buffer.from(c.replace.text));
    message = Buffer.from(message);
    Buffer.from(c.replace.withHex, "hex").copy(message, at);
  }
  let framed = frame(message, c.flag ?? 0);
  if (c.truncateBy) framed = framed.subarray(0, framed.length - c.truncateBy);
  return Array.from({ length: c.copies ?? 1 }, () => framed);
}

const cases = JSON.parse(readFileSync(join(here, "cases", "direct-unary.json"), "utf8")) as { cases: RawCase[] };

interface RawAnswer {
  headers: Record<string, unknown>;
  trailers: Record<string, unknown> | null;
  bodyHex: string;
  rstCode: number;
}

/** An answer with what differs per call (date, a generated request id) made comparable. */
function comparable(headers: IncomingHttpHeaders, sentRequestId: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === "date") continue;
    out[name] = name === "x-request-id" && value !== sentRequestId ? "<generated>" : value;
  }
  return out;
}

function frame(message: Uint8Array, flag: number): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out[0] = flag;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

function send(session: ClientHttp2Session, c: RawCase): Promise<RawAnswer> {
  const method = KesselInventoryServiceService[c.method];
  const frames = framesOf(c);
  return new Promise((resolve, reject) => {
    const stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: "POST",
      [constants.HTTP2_HEADER_PATH]: method.path,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc",
      te: "trailers",
      ...c.headers,
    });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders | null = null;
    const body: Buffer[] = [];
    stream.on("response", (h) => (headers = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (chunk: Buffer) => body.push(chunk));
    // A request left open is ended once the server has answered, so the stream can close.
    if (c.end === false) stream.on("end", () => stream.end());
    stream.on("error", () => undefined);
    stream.on("close", () => {
      const sentId = c.headers?.["x-request-id"];
      resolve({
        headers: comparable(headers, sentId),
        trailers: trailers && comparable(trailers, sentId),
        bodyHex: Buffer.concat(body).toString("hex"),
        rstCode: stream.rstCode ?? -1,
      });
    });
    stream.once("error", reject);
    const size = c.chunkBytes ?? Number.POSITIVE_INFINITY;
    for (const f of frames) for (let at = 0; at < f.length; at += size) stream.write(f.subarray(at, at + size));
    if (c.end !== false) stream.end();
  });
}

let store: Store;
let direct: RunningEngine;
let viaGrpcJs: RunningEngine;
let directSession: ClientHttp2Session;
let grpcJsSession: ClientHttp2Session;
const connections = { requestTimeoutMs: 1000 };

beforeAll(async () => {
  store = await openStore({ pollIntervalMs: 50 });
  const tenant = (await store.tenants.bootstrap("org-direct")).value;
  await store.relationships.write("org-direct", { touch: [...readGrant(tenant.defaultWorkspaceId, "alice"), hostIn("h-1", tenant.defaultWorkspaceId)] });
  direct = await startEngine({ connections }, store);
  viaGrpcJs = await startEngine({ connections, directChecks: false }, store);
  directSession = connect(`http://127.0.0.1:${direct.port}`);
  grpcJsSession = connect(`http://127.0.0.1:${viaGrpcJs.port}`);
});
afterAll(async () => {
  directSession?.close();
  grpcJsSession?.close();
  await direct?.close();
  await viaGrpcJs?.close();
  await store?.close();
});

describe("checks served on their HTTP/2 streams", () => {
  it("are served so with this grpc-js (its internals are as expected), and by grpc-js when turned off", () => {
    expect(direct.directChecks).toBe(true);
    expect(viaGrpcJs.directChecks).toBe(false);
  });

  it("the sanity of the fixture: alice may view h-1", async () => {
    const answer = await send(directSession, { name: "", method: "check", request: { object: host("h-1"), relation: "view", subject: { resource: principal("alice") } } });
    expect(answer.trailers?.["grpc-status"]).toBe("0");
  });

  for (const c of cases.cases) {
    it(`answers as grpc-js does: ${c.name}`, async () => {
      const [mine, theirs] = await Promise.all([send(directSession, c), send(grpcJsSession, c)]);
      expect(mine).toEqual(theirs);
    });
  }
});

describe("arrival deadlines", () => {
  it("end a call whose request has not arrived, once, and stop watching settled calls", async () => {
    let now = 0;
    const deadlines = new ArrivalDeadlines(100, () => now);
    const late: string[] = [];
    const a = deadlines.watch(() => late.push("a"));
    deadlines.watch(() => late.push("b"));
    a.settle();
    expect(deadlines.size).toBe(1);
    now = 100;
    await new Promise<void>((resolve) => {
      const poll = () => (late.length > 0 ? resolve() : setImmediate(poll));
      poll();
    });
    expect(late).toEqual(["b"]);
    expect(deadlines.size).toBe(0);
    deadlines.close();
  });
});
