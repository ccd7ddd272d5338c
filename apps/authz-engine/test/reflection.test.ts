// Server reflection through a real client, the way grpcurl uses it: list the services, fetch the
// descriptors of the inventory service, build a client from those descriptors alone (no .proto file
// of ours) and make a Check with it.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { credentials, loadPackageDefinition, type Client, type ClientDuplexStream, type GrpcObject, type ServiceClientConstructor } from "@grpc/grpc-js";
import { loadFileDescriptorSetFromBuffer, loadSync } from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGrant, startEngine, type RunningEngine } from "./helpers.js";

const require = createRequire(import.meta.url);
// The reflection protocol's own .proto ships with @grpc/reflection (a client needs it, the server's services do not).
const reflectionProtoDir = join(dirname(require.resolve("@grpc/reflection")), "..", "proto");

interface ReflectionResponse {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

let engine: RunningEngine;
let reflection: Client & { ServerReflectionInfo(): ClientDuplexStream<object, ReflectionResponse> };
let defaultWorkspaceId: string;

function ask(request: object): Promise<ReflectionResponse> {
  return new Promise((resolve, reject) => {
    const stream = reflection.ServerReflectionInfo();
    stream.once("data", (response: ReflectionResponse) => {
      resolve(response);
      stream.end();
    });
    stream.once("error", reject);
    stream.write(request);
  });
}

/** A FileDescriptorSet is `repeated FileDescriptorProto file = 1`: tag, length, bytes per file. */
function descriptorSet(files: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    const length: number[] = [];
    let n = file.length;
    while (n > 0x7f) {
      length.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    length.push(n);
    parts.push(Buffer.from([0x0a, ...length]), file);
  }
  return Buffer.concat(parts);
}

beforeAll(async () => {
  engine = await startEngine();
  const tenant = (await engine.store.tenants.bootstrap("reflection-org")).value;
  defaultWorkspaceId = tenant.defaultWorkspaceId;
  await engine.store.relationships.write("reflection-org", { touch: readGrant(defaultWorkspaceId, "alice") });
  const definition = loadSync("grpc/reflection/v1/reflection.proto", { includeDirs: [reflectionProtoDir], keepCase: true, longs: String, defaults: true });
  const grpcObject = loadPackageDefinition(definition) as unknown as { grpc: { reflection: { v1: GrpcObject } } };
  const ServerReflection = grpcObject.grpc.reflection.v1["ServerReflection"] as ServiceClientConstructor;
  reflection = new ServerReflection(`127.0.0.1:${engine.port}`, credentials.createInsecure()) as unknown as typeof reflection;
});

afterAll(async () => {
  reflection?.close();
  await engine?.close();
});

describe("gRPC server reflection", () => {
  it("lists every service the engine serves", async () => {
    const response = await ask({ list_services: "*" });
    const names = response.list_services_response!.service.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(["kessel.inventory.v1beta2.KesselInventoryService", "kessel.inventory.v1.KesselInventoryHealthService", "grpc.health.v1.Health"]));
  });

  it("answers an unknown symbol with NOT_FOUND", async () => {
    const response = await ask({ file_containing_symbol: "no.such.Service" });
    expect(response.error_response?.error_code).toBe(5);
  });

  it("describes the inventory service well enough to call Check without any .proto file", async () => {
    const response = await ask({ file_containing_symbol: "kessel.inventory.v1beta2.KesselInventoryService" });
    const files = response.file_descriptor_response!.file_descriptor_proto;
    expect(files.length).toBeGreaterThan(0);
    const definition = loadFileDescriptorSetFromBuffer(descriptorSet(files), { keepCase: true, enums: String, defaults: true });
    const grpcObject = loadPackageDefinition(definition) as unknown as { kessel: { inventory: { v1beta2: GrpcObject } } };
    const Inventory = grpcObject.kessel.inventory.v1beta2["KesselInventoryService"] as ServiceClientConstructor;
    const client = new Inventory(`127.0.0.1:${engine.port}`, credentials.createInsecure());
    const check = (subject: string) =>
      new Promise<{ allowed: string }>((resolve, reject) =>
        client["Check"]!(
          {
            object: { resource_type: "workspace", resource_id: defaultWorkspaceId, reporter: { type: "rbac" } },
            relation: "view",
            subject: { resource: { resource_type: "principal", resource_id: `redhat/${subject}`, reporter: { type: "rbac" } } },
          },
          (error: Error | null, value: { allowed: string }) => (error ? reject(error) : resolve(value)),
        ),
      );
    try {
      // The grant reaches the engine through the change feed shortly after the write.
      await expect.poll(async () => (await check("alice")).allowed).toBe("ALLOWED_TRUE");
      expect((await check("bob")).allowed).toBe("ALLOWED_FALSE");
    } finally {
      client.close();
    }
  });
});
