// The transport's floor: a bare grpc-js server answering each benchmarked RPC with a constant
// response, no evaluation. The wire and threads benchmarks measure the engine against it.
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { definitionOf, FLOOR_RESPONSES, RPCS } from "./wire-workload.js";

export async function grpcFloor(): Promise<{ port: number; close(): Promise<void> }> {
  const server = new Server();
  const definition: Record<string, unknown> = {};
  const implementation: UntypedServiceImplementation = {};
  for (const rpc of RPCS) {
    definition[rpc] = definitionOf(rpc);
    const response = FLOOR_RESPONSES[rpc];
    implementation[rpc] = (_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => callback(null, response);
  }
  server.addService(definition as never, implementation);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
  return { port, close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}
