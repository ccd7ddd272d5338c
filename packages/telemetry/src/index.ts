// Public entry of @gatehouse/telemetry: structured logs (pino) and Prometheus metrics (prom-client).
export { createLogger, createSilentLogger } from "./logger.js";
export type { Logger, LoggerConfig } from "./logger.js";
export {
  createMetrics,
  metricsContentType,
  LATENCY_BUCKETS_SECONDS,
  Counter,
  Gauge,
  Histogram,
  Registry,
} from "./metrics.js";
export type { Metrics, MetricsOptions } from "./metrics.js";
export { cachedProbe } from "./probe.js";
