// A thin promise layer over grpc-js with the service loaded from the shared .proto files at run
// time (the same files k6's grpc.Client.load reads), so the driver needs no generated code.
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { HEALTH_SERVICE, INVENTORY_SERVICE, PROTO_FILES, streamedId, streamedToken, type StreamedItem } from "../shared/requests.ts";

export const PROTO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../packages/proto/proto");

type AnyClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

export class GrpcCallError extends Error {
  override readonly name = "GrpcCallError";
  constructor(
    readonly method: string,
    readonly code: number,
    details: string,
  ) {
    super(`${method} failed with gRPC status ${code} (${grpc.status[code] ?? "?"}): ${details}`);
  }
}

export interface InventoryClient {
  unary<T = Record<string, unknown>>(method: string, request: unknown): Promise<T>;
  stream(method: string, request: unknown): Promise<StreamedItem[]>;
  health(): Promise<void>;
  close(): void;
}

function lookup(definition: grpc.GrpcObject, fullName: string): grpc.ServiceClientConstructor {
  let node: unknown = definition;
  for (const part of fullName.split(".")) node = (node as Record<string, unknown>)[part];
  if (typeof node !== "function") throw new Error(`service ${fullName} not found in ${PROTO_ROOT}`);
  return node as grpc.ServiceClientConstructor;
}

export function connectInventory(target: string): InventoryClient {
  const packageDefinition = protoLoader.loadSync(PROTO_FILES, {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    enums: String,
    longs: Number,
    defaults: false,
    oneofs: true,
  });
  const definition = grpc.loadPackageDefinition(packageDefinition);
  const creds = grpc.credentials.createInsecure();
  // One HTTP/2 connection per client, as one application instance would hold. Its receive window is
  // the largest HTTP/2 allows, as the engine's is: Node returns window only as a reader takes the data,
  // and a long-lived connection through a proxy must not run dry on answers read late.
  const channelOptions = { "grpc-node.flow_control_window": 2 ** 31 - 1 };
  const inventory = new (lookup(definition, INVENTORY_SERVICE))(target, creds, channelOptions) as AnyClient;
  const health = new (lookup(definition, HEALTH_SERVICE))(target, creds, channelOptions) as AnyClient;

  const unaryOn = <T>(client: AnyClient, method: string, request: unknown): Promise<T> =>
    new Promise((resolve, reject) => {
      const fn = client[method];
      if (!fn) return reject(new Error(`unknown RPC ${method}`));
      fn.call(client, request, (error: grpc.ServiceError | null, response: T) => {
        if (error) reject(new GrpcCallError(method, error.code, error.details));
        else resolve(response);
      });
    });

  return {
    unary: (method, request) => unaryOn(inventory, method, request),
    stream: (method, request) =>
      new Promise((resolve, reject) => {
        const fn = inventory[method];
        if (!fn) return reject(new Error(`unknown RPC ${method}`));
        const items: StreamedItem[] = [];
        const call = fn.call(inventory, request) as grpc.ClientReadableStream<StreamedItem>;
        call.on("data", (item: StreamedItem) => items.push(item));
        call.on("error", (error: grpc.ServiceError) => reject(new GrpcCallError(method, error.code, error.details)));
        call.on("end", () => resolve(items));
      }),
    health: async () => {
      await unaryOn(health, "GetLivez", {});
    },
    close: () => {
      inventory.close();
      health.close();
    },
  };
}

/** Pattern 2, step 1: every page of StreamedListObjects until an empty page or an empty token. */
export async function listAllWorkspaces(client: InventoryClient, request: (token?: string) => unknown): Promise<string[]> {
  const ids: string[] = [];
  let token: string | undefined;
  for (;;) {
    const page = await client.stream("StreamedListObjects", request(token));
    for (const item of page) {
      const id = streamedId(item);
      if (id) ids.push(id);
    }
    const next = streamedToken(page.at(-1));
    if (page.length === 0 || !next) return ids;
    token = next;
  }
}

/**
 * proto-loader encodes google.protobuf.Struct field by field ({fields:{k:{string_value}}}), while
 * k6's protojson takes plain JSON; the shared request builders use plain JSON, converted here.
 */
export function toStruct(value: Record<string, unknown>): { fields: Record<string, unknown> } {
  const convert = (v: unknown): unknown => {
    // protobufjs defines the well-known types with camelCase field names, whatever keepCase says.
    if (v === null || v === undefined) return { nullValue: "NULL_VALUE" };
    if (typeof v === "string") return { stringValue: v };
    if (typeof v === "number") return { numberValue: v };
    if (typeof v === "boolean") return { boolValue: v };
    if (Array.isArray(v)) return { listValue: { values: v.map(convert) } };
    return { structValue: toStruct(v as Record<string, unknown>) };
  };
  return { fields: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v)])) };
}
