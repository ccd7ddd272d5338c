import { type Aggregator, AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export { AggregatorRegistry, Counter, Gauge, Histogram, Registry };
export type { Aggregator };
/** A registry's metrics as plain data (Registry.getMetricsAsJSON): what crosses to another thread or process for AggregatorRegistry.aggregate. */
export type MetricsJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;

/** Latency buckets (seconds) tuned for sub-millisecond checks up to slow list calls. */
export const LATENCY_BUCKETS_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export interface Metrics {
  readonly registry: Registry;
  counter<L extends string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  histogram<L extends string>(name: string, help: string, labelNames?: readonly L[], buckets?: number[]): Histogram<L>;
  gauge<L extends string>(name: string, help: string, labelNames?: readonly L[]): Gauge<L>;
  /** Prometheus text exposition of everything registered. */
  render(): Promise<string>;
}

export const metricsContentType = Registry.PROMETHEUS_CONTENT_TYPE;

export interface MetricsOptions {
  /** Prefix of every metric name, e.g. "gatehouse_engine_". */
  prefix?: string;
  /**
   * Also collect process and runtime metrics (CPU, memory, event loop, GC). Default true. They keep
   * their standard unprefixed names (process_cpu_seconds_total, nodejs_eventloop_lag_seconds, ...)
   * so stock dashboards work.
   */
  processMetrics?: boolean;
}

/**
 * A registry per service instance (never the global one), so several services can run in one
 * process (the all-in-one server, tests) without name clashes. Asking twice for the same name
 * returns the same metric.
 */
export function createMetrics(prefixOrOptions: string | MetricsOptions = {}): Metrics {
  const options = typeof prefixOrOptions === "string" ? { prefix: prefixOrOptions } : prefixOrOptions;
  const prefix = options.prefix ?? "";
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });

  const existing = <T>(name: string): T | undefined => registry.getSingleMetric(prefix + name) as T | undefined;

  return {
    registry,
    counter(name, help, labelNames = []) {
      return existing(name) ?? new Counter({ name: prefix + name, help, labelNames: [...labelNames], registers: [registry] });
    },
    histogram(name, help, labelNames = [], buckets = LATENCY_BUCKETS_SECONDS) {
      return existing(name) ?? new Histogram({ name: prefix + name, help, labelNames: [...labelNames], buckets, registers: [registry] });
    },
    gauge(name, help, labelNames = []) {
      return existing(name) ?? new Gauge({ name: prefix + name, help, labelNames: [...labelNames], registers: [registry] });
    },
    render: () => registry.metrics(),
  };
}

/**
 * The HTTP server latency histogram every Gatehouse HTTP app exposes, under the unprefixed name
 * standard dashboards query: http_request_duration_seconds{method, route, status_code}. `route` is
 * the matched route pattern (never an id), so the label set stays bounded.
 */
export function httpRequestDuration(metrics: Metrics): Histogram<"method" | "route" | "status_code"> {
  const name = "http_request_duration_seconds";
  return (
    (metrics.registry.getSingleMetric(name) as Histogram<"method" | "route" | "status_code"> | undefined) ??
    new Histogram({
      name,
      help: "HTTP request latency (seconds) by method, matched route and status code.",
      labelNames: ["method", "route", "status_code"],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [metrics.registry],
    })
  );
}
