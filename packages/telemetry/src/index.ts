// Public entry of @gatehouse/telemetry: structured logs (pino), Prometheus metrics (prom-client),
// OpenTelemetry tracing (W3C traceparent, OTLP export when OTEL_* ask for it) and the benchmarks' percentile.
export { createLogger, createSilentLogger } from "./logger.js";
export type { Logger, LoggerConfig } from "./logger.js";
export {
  createMetrics,
  httpRequestDuration,
  metricsContentType,
  LATENCY_BUCKETS_SECONDS,
  AggregatorRegistry,
  Counter,
  Gauge,
  Histogram,
  Registry,
} from "./metrics.js";
export type { Aggregator, Metrics, MetricsJson, MetricsOptions } from "./metrics.js";
export { cachedProbe } from "./probe.js";
export { httpRequestLogger, requestIdOf, REQUEST_ID_HEADER, INSIGHTS_REQUEST_ID_HEADER } from "./request-id.js";
export { drainHttpServer } from "./drain.js";
export { ascending, percentile } from "./percentile.js";
export {
  activeTraceFields,
  endSpan,
  inSpan,
  sampleCall,
  startServerSpan,
  startTracing,
  tracesExporterFor,
  tracingActive,
  tracingEnabled,
  withContext,
  DEFAULT_SAMPLING,
  TRACEPARENT_HEADER,
} from "./tracing.js";
export type { ServerSpan, Tracing, TracingSettings, TracesExporter, TracesSampler } from "./tracing.js";
export { httpTracing } from "./http-tracing.js";
export { type Admission, ConnectionTable, peerOf, type TableEntry } from "./connection-table.js";
export { applyServerLimits, connectionsCheckingInterval, createBoundedHttpServer, DEFAULT_HTTP_LIMITS } from "./server-limits.js";
export type { HttpServerLimits } from "./server-limits.js";
