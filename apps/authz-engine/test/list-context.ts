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
import type { GraphSource } from "../src/graph/source.js";
import { principal, stageSchema } from "./helpers.js";

const model = compileSchema(stageSchema);

/** An engine (stage schema) loaded with `relationships` at revision 1 ("t1"); nothing follows. */
export async function listContext(relationships: Relationship[], listMaxLimit = 100_000): Promise<EngineContext & { graph: EngineGraph }> {
  const source: GraphSource = {
    snapshot: async (onBatch) => (onBatch(relationships), { revision: 1 }),
    follow: () => ({ stop() {} }),
    headRevision: async () => 1,
    encodeToken: (revision) => `t${revision}`,
    decodeToken: (token) => Number(token.slice(1)),
  };
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

/** mulberry32: the same seed gives the same cases, so a failure names its seed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
