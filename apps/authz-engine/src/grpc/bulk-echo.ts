// A bulk answer repeats every request item (CheckBulkResponsePair.request). Those bytes arrived
// with the request: the request deserializer keeps each item's bytes beside the decoded item, and
// the response serializer copies them back instead of encoding each item again — the larger part
// of encoding a bulk answer. Any answer it cannot write this way goes to the generated encoder.
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type { ServiceDefinition } from "@grpc/grpc-js";
import { varintLength, writeVarint } from "./varint.js";

/** The bytes an item was decoded from (a view of the request message; never mutated). */
const RECEIVED = Symbol("received item bytes");

interface EchoedItem {
  [RECEIVED]?: Uint8Array;
}

/** The top-level occurrences of field 1 (the repeated items), in order, as views of `message`. */
function itemBytes(message: Uint8Array): Uint8Array[] {
  const reader = new BinaryReader(message);
  const items: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) {
      const length = reader.uint32();
      items.push(message.subarray(reader.pos, reader.pos + length));
      reader.pos += length;
    } else {
      reader.skip(wireType, field);
    }
  }
  return items;
}

const utf8 = new TextEncoder();
/** The last token's bytes: a token changes only when the graph's revision does. */
let lastToken = "";
let lastTokenBytes = new Uint8Array(0);
const tokenBytes = (token: string): Uint8Array => {
  if (token !== lastToken) {
    lastTokenBytes = utf8.encode(token);
    lastToken = token;
  }
  return lastTokenBytes;
};

interface BulkPair {
  request?: EchoedItem;
  item?: { allowed: number };
  error?: unknown;
}

interface BulkResponse {
  pairs: BulkPair[];
  consistencyToken?: { token: string };
}

/**
 * The response's bytes with every item echoed, or null when a pair has no received bytes or is an
 * error (the generated encoder writes those). Field order and encoding are the generated
 * encoder's: pairs (1: request, 2: item{1: allowed}) then the token (2: {1: token}).
 */
function encodeEchoed(response: BulkResponse): Buffer | null {
  const pairs = response.pairs;
  let size = 0;
  for (const pair of pairs) {
    const received = pair.request?.[RECEIVED];
    if (received === undefined || pair.item === undefined || pair.error !== undefined) return null;
    // Allowed values are small enums, one-byte varints (UNRECOGNIZED, -1, is not).
    if (!(pair.item.allowed >= 0 && pair.item.allowed < 0x80)) return null;
    const body = 1 + varintLength(received.length) + received.length + (pair.item.allowed === 0 ? 2 : 4);
    size += 1 + varintLength(body) + body;
  }
  const token = response.consistencyToken === undefined ? undefined : tokenBytes(response.consistencyToken.token);
  if (token !== undefined) {
    const inner = token.length === 0 ? 0 : 1 + varintLength(token.length) + token.length;
    size += 1 + varintLength(inner) + inner;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const pair of pairs) {
    const received = pair.request![RECEIVED]!;
    const allowed = pair.item!.allowed;
    const body = 1 + varintLength(received.length) + received.length + (allowed === 0 ? 2 : 4);
    out[at++] = 0x0a;
    at = writeVarint(out, at, body);
    out[at++] = 0x0a;
    at = writeVarint(out, at, received.length);
    out.set(received, at);
    at += received.length;
    out[at++] = 0x12;
    // 0 is the default and is not written (an empty item message).
    if (allowed === 0) out[at++] = 0;
    else {
      out[at++] = 2;
      out[at++] = 0x08;
      out[at++] = allowed;
    }
  }
  if (token !== undefined) {
    out[at++] = 0x12;
    if (token.length === 0) out[at++] = 0;
    else {
      at = writeVarint(out, at, 1 + varintLength(token.length) + token.length);
      out[at++] = 0x0a;
      at = writeVarint(out, at, token.length);
      out.set(token, at);
      at += token.length;
    }
  }
  return out;
}

/**
 * Bulk methods whose request items are echoed from the bytes received. Wrap outermost (the request
 * deserializer here gets the raw message and hands it on to the one it wraps).
 */
export function echoBulkItems<D extends ServiceDefinition>(definition: D, methods: readonly (keyof D)[]): D {
  const out = { ...definition };
  for (const name of methods) {
    const method = definition[name];
    if (!method) continue;
    const deserialize = method.requestDeserialize as (bytes: Buffer) => { items?: EchoedItem[] };
    const serialize = method.responseSerialize as (value: unknown) => Buffer;
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        const request = deserialize(bytes);
        const items = request.items;
        if (items !== undefined && items.length > 0) {
          const received = itemBytes(bytes);
          // The generated decoder reads the same occurrences in the same order.
          // A symbol key: JSON, logs and the handlers never see it (a plain assignment: defineProperty
          // per item cost more than the echo saved).
          if (received.length === items.length) for (let i = 0; i < items.length; i++) items[i]![RECEIVED] = received[i]!;
        }
        return request;
      },
      responseSerialize: (value: unknown): Buffer => encodeEchoed(value as BulkResponse) ?? serialize(value),
    };
  }
  return out;
}
