import type { Model } from "@gatehouse/evaluator";
import type { EngineGraph } from "../graph/engine-graph.js";
import type { GraphSource, ResourceWriter } from "../graph/source.js";
import type { LookupCache } from "./lookup-cache.js";
import type { WritePolicy } from "./write-policy.js";

/** Everything a command needs; built once by buildServer. */
export interface EngineContext {
  graph: EngineGraph;
  source: GraphSource;
  writer: ResourceWriter;
  /** `<domain>` of principal and tenant ids. */
  domain: string;
  model: Model;
  /** Longest wait for at_least_as_fresh / fully consistent / IMMEDIATE before giving up. */
  freshnessTimeoutMs: number;
  /** StreamedList* page size when the request has none, and the largest honoured. */
  listDefaultLimit: number;
  listMaxLimit: number;
  lookupCache: LookupCache;
  /** Who may ReportResource / DeleteResource what, and in which tenant. */
  writePolicy: WritePolicy;
  /** The evaluation time (epoch ms) of expiring grants. */
  now: () => number;
}
