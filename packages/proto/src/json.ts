// The protobuf JSON mapping of these messages, as Go's protojson (and so inventory-api's HTTP server,
// whose codec reads with DiscardUnknown and writes with EmitUnpopulated) maps them. ts-proto's own
// fromJSON/toJSON are not that mapping: fromJSON coerces wrong types (a number becomes a string) and
// toJSON drops default values, so JSON goes through @bufbuild/protobuf's conformant reader and
// writer on the same definitions (the descriptor set built from proto/), and crosses to and from the
// ts-proto messages in the binary encoding.
import { createFileRegistry, fromBinary, fromJson, toBinary, toJson, type DescMessage, type FileRegistry, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { FILE_DESCRIPTOR_SET_BASE64 } from "./gen/descriptors.js";

/** A body that is not the message in protobuf JSON (wrong type, bad enum name, bad number, ...). */
export class ProtoJsonError extends Error {
  override readonly name = "ProtoJsonError";
}

/** What ts-proto generates for each message. */
export interface BinaryMessageFns<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

export interface ProtoJsonCodec<T> {
  /** The message a parsed JSON value denotes; unknown fields are ignored. Throws ProtoJsonError. */
  read(json: unknown): T;
  /** The message as protobuf JSON with every unpopulated field written (defaults, [], null). */
  write(message: T): JsonObject;
}

let registry: FileRegistry | undefined;
function descriptors(): FileRegistry {
  registry ??= createFileRegistry(fromBinary(FileDescriptorSetSchema, Buffer.from(FILE_DESCRIPTOR_SET_BASE64, "base64")));
  return registry;
}

/**
 * protojson's EmitUnpopulated also writes an unset singular message field (outside any oneof) as
 * null, which @bufbuild/protobuf's alwaysEmitImplicit leaves out; this adds those, at every depth.
 */
function emitUnsetMessages(desc: DescMessage, json: JsonObject): JsonObject {
  for (const field of desc.fields) {
    const value = json[field.jsonName];
    if (field.fieldKind === "message") {
      if (value === undefined) {
        if (!field.oneof && !field.proto.proto3Optional) json[field.jsonName] = null;
      } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        emitUnsetMessages(field.message, value);
      }
    } else if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === "object" && !Array.isArray(item)) emitUnsetMessages(field.message, item);
    }
  }
  return json;
}

/** The JSON codec of the message `typeName` (e.g. "kessel.inventory.v1beta2.CheckRequest"). */
export function protoJsonCodec<T>(typeName: string, fns: BinaryMessageFns<T>): ProtoJsonCodec<T> {
  const desc = descriptors().getMessage(typeName);
  if (!desc) throw new Error(`no message ${typeName} in the descriptor set`);
  return {
    read(json) {
      let message: ReturnType<typeof fromJson>;
      try {
        message = fromJson(desc, json as JsonValue, { ignoreUnknownFields: true });
      } catch (error) {
        throw new ProtoJsonError(error instanceof Error ? error.message : String(error));
      }
      return fns.decode(toBinary(desc, message));
    },
    write(message) {
      const json = toJson(desc, fromBinary(desc, fns.encode(message).finish()), { alwaysEmitImplicit: true }) as JsonObject;
      return emitUnsetMessages(desc, json);
    },
  };
}
