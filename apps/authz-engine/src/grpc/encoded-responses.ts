import type { ServiceDefinition } from "@grpc/grpc-js";

/**
 * A Check answer is one of two messages per revision (allowed or not, with that revision's token).
 * Handlers reuse the same response object for equal answers (`CheckResponses`), and the wire
 * serializer of those methods remembers the bytes of each object it has encoded, so a Check
 * encodes its response once per revision instead of once per call.
 */
export function memoizeResponseBytes<D extends ServiceDefinition>(definition: D, methods: readonly (keyof D)[]): D {
  const out = { ...definition };
  for (const name of methods) {
    const method = definition[name];
    if (!method) continue;
    const serialize = method.responseSerialize;
    const encoded = new WeakMap<object, Buffer>();
    out[name] = {
      ...method,
      responseSerialize: (value: unknown): Buffer => {
        if (typeof value !== "object" || value === null) return serialize(value);
        let bytes = encoded.get(value);
        if (bytes === undefined) {
          bytes = serialize(value);
          encoded.set(value, bytes);
        }
        return bytes;
      },
    };
  }
  return out;
}

/** The two possible responses of the current token; never mutated once returned. */
export class ResponsePair<R> {
  private token = "";
  private allowed: R | null = null;
  private denied: R | null = null;

  constructor(private readonly build: (allowed: boolean, token: string) => R) {}

  get(allowed: boolean, token: string): R {
    if (token !== this.token) {
      this.token = token;
      this.allowed = null;
      this.denied = null;
    }
    if (allowed) return (this.allowed ??= this.build(true, token));
    return (this.denied ??= this.build(false, token));
  }
}

/** Lets handlers of these methods write already-encoded messages (Buffers), passed through as is. */
export function acceptEncodedResponses<D extends ServiceDefinition>(definition: D, methods: readonly (keyof D)[]): D {
  const out = { ...definition };
  for (const name of methods) {
    const method = definition[name];
    if (!method) continue;
    const serialize = method.responseSerialize;
    out[name] = { ...method, responseSerialize: (value: unknown): Buffer => (Buffer.isBuffer(value) ? value : serialize(value)) };
  }
  return out;
}
