import { createMetrics, type Counter, type Gauge, type Histogram, type Metrics } from "@gatehouse/telemetry";

export interface EngineMetrics {
  metrics: Metrics;
  calls: Counter<"method" | "code">;
  callSeconds: Histogram<"method">;
  streamedItems: Counter<"method">;
  inFlight: Gauge<"method">;
  appliedRevision: Gauge;
  appliedChanges: Counter;
  relationships: Gauge;
  ready: Gauge;
}

export function createEngineMetrics(processMetrics = true): EngineMetrics {
  const metrics = createMetrics({ prefix: "gatehouse_engine_", processMetrics });
  return {
    metrics,
    calls: metrics.counter("grpc_calls_total", "Completed gRPC calls by method and status code.", ["method", "code"]),
    callSeconds: metrics.histogram("grpc_call_seconds", "gRPC call duration (streams: until the last item).", ["method"]),
    streamedItems: metrics.counter("grpc_streamed_items_total", "Items sent on server streams.", ["method"]),
    inFlight: metrics.gauge("grpc_in_flight", "Calls currently being served.", ["method"]),
    appliedRevision: metrics.gauge("applied_revision", "Store revision the in-memory graph reflects."),
    appliedChanges: metrics.counter("applied_changes_total", "Relationship changes applied from the change feed."),
    relationships: metrics.gauge("relationships", "Relationships held in memory."),
    ready: metrics.gauge("ready", "1 once the snapshot is loaded and the change feed is healthy."),
  };
}
