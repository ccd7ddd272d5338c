// What the list tests share: an engine context over a fixed set of relationships (a source that
// hands them over as its snapshot and never changes), the wire's list request and item, and a
// seeded random generator.
import { compileSchema, type Relationship } from "@gatehouse/evaluator";
import { StreamedListObjectsResponse, type StreamedListObjectsRequest } from "@gatehouse/proto";
import { createSilentLogger } from "@gatehouse/telemetry";
import type { EngineContext } from "../src/commands/context.js";
import { LookupCache } from "../src/commands/lookup-cache.js";
import { openWritePolicy } from "../src/commands/write-policy.js";
import { EngineGraph } from "../src/graph/engine-graph.js";
import { fixedSource } from "../bench/scale-data.js";
import { principal, stageSchema } from "./helpers.js";

const model = compileSchema(stageSchema);

/** An engine (stage schema) loaded with `relationships` at revision 1 ("t1"); nothing follows. */
export async function listContext(relationships: Relationship[], listMaxLimit = 100_000): Promise<EngineContext & { graph: EngineGraph }> {
  const source = fixedSource(relationships);
  const graph = new EngineGraph({ model, source, logger: createSilentLogger() });
  await graph.load();
  return {
    graph,
    source,
    model,
    now: Date.now,
    domain: "redhat",
    freshnessTimeoutMs: 1000,
    listDefaultLimit: 1000,
    listMaxLimit,
    lookupCache: new LookupCache(),
    writer: undefined as unknown as EngineContext["writer"],
    writePolicy: openWritePolicy,
  };
}

/** StreamedListObjects of the hosts `user` may view. */
export const hostsRequest = (user: string, limit: number, continuationToken?: string): StreamedListObjectsRequest => ({
  objectType: { resourceType: "host", reporterType: "hbi" },
  relation: "view",
  subject: { resource: principal(user) },
  pagination: continuationToken === undefined ? { limit } : { limit, continuationToken },
});

/** A streamed item as the client reads it (the handler writes most items pre-encoded). */
export const asResponse = (message: StreamedListObjectsResponse | Buffer): StreamedListObjectsResponse => (Buffer.isBuffer(message) ? StreamedListObjectsResponse.decode(message) : message);

export { random } from "../bench/scale-data.js";
