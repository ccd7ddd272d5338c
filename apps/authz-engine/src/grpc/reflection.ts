// gRPC server reflection (grpc.reflection.v1 and v1alpha), so grpcurl and similar tools work
// without the .proto files. @grpc/reflection answers from a proto-loader package definition of
// the same .proto files the ts-proto code was generated from.
import { fileURLToPath } from "node:url";
import type { Server } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { PROTO_DIR, SERVICE_PROTO_FILES } from "@gatehouse/proto";

/** Adds the reflection services to `server`, describing the services in SERVICE_PROTO_FILES. */
export function addReflection(server: Pick<Server, "addService">): void {
  const definition = loadSync([...SERVICE_PROTO_FILES], {
    includeDirs: [fileURLToPath(PROTO_DIR)],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  new ReflectionService(definition).addToServer(server);
}
