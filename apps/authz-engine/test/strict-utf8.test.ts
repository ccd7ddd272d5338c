import { describe, expect, it } from "vitest";
import { decodeStrict } from "../src/grpc/strict-utf8.js";

const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const reference = (bytes: Uint8Array): string => {
  try {
    return fatal.decode(bytes);
  } catch {
    return "\uD800";
  }
};

describe("strict UTF-8 decoding of request strings", () => {
  it("decodes exactly as a fatal TextDecoder, marking invalid bytes, on the ASCII fast path and off it", () => {
    // A fixed pseudo-random sequence (xorshift): lengths around the fast path's bound, mostly
    // ASCII, some multi-byte text, some stray continuation or lead bytes.
    let state = 0x9e3779b9;
    const next = () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return state >>> 0;
    };
    const samples: Uint8Array[] = [new Uint8Array(0), Buffer.from("host"), Buffer.from("é"), Buffer.from([0xff]), Buffer.from("a".repeat(64)), Buffer.from(`${"a".repeat(64)}é`)];
    for (let n = 0; n < 3000; n++) {
      const length = next() % 80;
      const bytes = new Uint8Array(length);
      for (let i = 0; i < length; i++) bytes[i] = next() % 10 === 0 ? 0x80 + (next() % 0x80) : next() % 0x80;
      samples.push(bytes, Buffer.from(`${Buffer.from(bytes).toString("latin1").slice(0, 8)}日本`));
    }
    for (const bytes of samples) expect(decodeStrict(bytes)).toBe(reference(bytes));
  });
});
