import { status } from "@grpc/grpc-js";
import { type Aggregator, AggregatorRegistry, Counter, createMetrics, Gauge, type Histogram, LATENCY_BUCKETS_SECONDS, type Metrics, type MetricsJson } from "@gatehouse/telemetry";
import { type GrpcMethodLabels, grpcCallMetrics, type MethodCalls } from "./call-metrics.js";

const PREFIX = "gatehouse_engine_";

/** Finer than the call-latency buckets around the 1–20 ms that matter for the lag target. */
export const FEED_LAG_BUCKETS_SECONDS = [0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A plain number per method, published when metrics are scraped (no label hashing per call). */
export interface InFlightCount {
  value: number;
}

/** Labels of the standard gRPC server metrics (the go-grpc-prometheus names every gRPC dashboard uses). */
export type GrpcLabels = "grpc_type" | "grpc_service" | "grpc_method";

export interface EngineMetrics {
  metrics: Metrics;
  /**
   * A method's grpc_server_handled_total (completed calls by status code) and
   * grpc_server_handling_seconds (call duration; streams: until the last message).
   */
  grpcMethod(labels: GrpcMethodLabels): MethodCalls;
  /** grpc_server_msg_sent_total: messages sent on server streams. */
  streamedItems: Counter<GrpcLabels>;
  /** 1 while the store answers; 0 = degraded: checks at the applied revision still work, writes and fresh reads do not. */
  storeUp: Gauge;
  /** Streams reset because the client read nothing for the idle timeout (same labels as the standard gRPC metrics). */
  stalledStreams: Counter<GrpcLabels>;
  /** Connections to the gRPC port closed at once because `connections.max` were open. */
  refusedConnections: Counter;
  /** Connections to the gRPC port the engine closed: one gave way to a newcomer at the cap, or a deadline passed. */
  closedConnections: Counter<"reason">;
  /** The in-flight count of a method (grpc_in_flight{method}); increment and decrement `.value`. */
  inFlight(method: string): InFlightCount;
  appliedRevision: Gauge;
  appliedChanges: Counter;
  /** Commit (database clock) to applied-to-graph (engine clock), per applied commit. */
  feedApplyLag: Histogram;
  relationships: Gauge;
  /** Objects the graph has interned (every id ever named since the graph was built; none is freed until a rebuild). */
  graphNodes: Gauge;
  /** Bytes of node arrays this thread holds of its own (0 while the objects it adds are in a shared base's room). */
  graphOwnNodeBytes: Gauge;
  ready: Gauge;
  /** 1 for the active role configuration (label: its content hash). */
  roleConfigInfo: Gauge<"hash">;
  roleConfigLoaded: Gauge;
  /** Checkpoints refused at start, by reason (corrupt, old-format, foreign-store, schema-mismatch, unreadable). */
  checkpointFallbacks: Counter<"reason">;
  checkpointWrites: Counter;
  checkpointBytes: Gauge;
  /** Graph reloads of a running engine whose follower could not go on, by reason (feed-truncated). */
  feedRecoveries: Counter<"reason">;
  /** Committed changes the graph refused and skipped (a defect where the change was written). */
  refusedChanges: Counter;
}

/**
 * grpc_code label values as the Go gRPC libraries (and so the stock dashboards and alerts) spell
 * them: `OK`, `InvalidArgument`, `DeadlineExceeded`, ...
 */
const GRPC_CODE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(status)
    .filter((entry): entry is [string, number] => typeof entry[1] === "number")
    .map(([name, code]) => [code, name === "OK" ? "OK" : name === "CANCELLED" ? "Canceled" : name.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase())]),
);
export const grpcCodeName = (code: status): string => GRPC_CODE_NAMES[code] ?? String(code);

export function createEngineMetrics(processMetrics = true): EngineMetrics {
  const metrics = createMetrics({ prefix: PREFIX, processMetrics });
  const inFlight = new Map<string, InFlightCount>();
  new Gauge({
    name: `${PREFIX}grpc_in_flight`,
    help: "Calls currently being served.",
    labelNames: ["method"],
    registers: [metrics.registry],
    collect() {
      for (const [method, count] of inFlight) this.set({ method }, count.value);
    },
  });
  return {
    metrics,
    // Unprefixed standard names, so stock gRPC dashboards and alerts work as they are.
    grpcMethod: grpcCallMetrics(metrics.registry, LATENCY_BUCKETS_SECONDS, grpcCodeName),
    streamedItems: new Counter({
      name: "grpc_server_msg_sent_total",
      help: "Total number of gRPC stream messages sent by the server.",
      labelNames: ["grpc_type", "grpc_service", "grpc_method"],
      registers: [metrics.registry],
    }),
    storeUp: metrics.gauge("store_up", "1 while the store answers (ReportResource, DeleteResource, CheckForUpdate, at_least_as_fresh work); 0 = degraded, checks from memory only."),
    stalledStreams: metrics.counter("grpc_stalled_streams_total", "Server streams reset because the client stopped reading.", ["grpc_type", "grpc_service", "grpc_method"]),
    refusedConnections: metrics.counter(
      "grpc_connections_refused_total",
      "Connections to the gRPC port closed at once: the connection cap (AUTHZ_MAX_CONNECTIONS) was reached and their source held the most connections, none idle.",
    ),
    closedConnections: metrics.counter(
      "grpc_connections_closed_total",
      "Connections to the gRPC port the engine closed: evicted (gave way to a newcomer at the cap), headers_timeout (a header block or handshake unfinished), idle_timeout.",
      ["reason"],
    ),
    inFlight(method) {
      let count = inFlight.get(method);
      if (count === undefined) inFlight.set(method, (count = { value: 0 }));
      return count;
    },
    appliedRevision: metrics.gauge("applied_revision", "Store revision the in-memory graph reflects."),
    appliedChanges: metrics.counter("applied_changes_total", "Relationship changes applied from the change feed."),
    feedApplyLag: metrics.histogram(
      "feed_apply_lag_seconds",
      "Time from a commit (the change row's committed_at, database clock) to the engine applying it to the in-memory graph; clock skew clamped at 0.",
      [],
      FEED_LAG_BUCKETS_SECONDS,
    ),
    relationships: metrics.gauge("relationships", "Relationships held in memory."),
    graphNodes: metrics.gauge("graph_objects", "Objects the in-memory graph holds an entry for (ids ever named since it was built)."),
    graphOwnNodeBytes: metrics.gauge(
      "graph_own_object_bytes",
      "Bytes of the graph's object arrays (types and ids) a thread holds of its own copy; 0 while they are views of a checkpoint or of the threads' shared graph.",
    ),
    ready: metrics.gauge("ready", "1 once the snapshot is loaded and the change feed is healthy."),
    roleConfigInfo: metrics.gauge("role_config_info", "1 for the active role configuration, by its content hash.", ["hash"]),
    roleConfigLoaded: metrics.gauge("role_config_loaded_timestamp_seconds", "When the active role configuration was loaded (Unix seconds)."),
    checkpointFallbacks: new Counter({
      name: `${PREFIX}checkpoint_fallbacks_total`,
      help: "Graph checkpoints not used at start (the engine fell back to an older one or to the snapshot), by reason.",
      labelNames: ["reason"],
      registers: [metrics.registry],
    }),
    feedRecoveries: new Counter({
      name: `${PREFIX}feed_recoveries_total`,
      help: "Graph reloads of a running engine whose change-feed follower could not go on, by reason (feed-truncated: retention deleted changes it still needed).",
      labelNames: ["reason"],
      registers: [metrics.registry],
    }),
    refusedChanges: metrics.counter("feed_refused_changes_total", "Committed relationship changes the graph refused under its schema and skipped (each is also logged as an error)."),
    checkpointWrites: metrics.counter("checkpoint_writes_total", "Graph checkpoints written by this replica."),
    checkpointBytes: metrics.gauge("checkpoint_bytes", "Size of the last graph checkpoint this replica wrote."),
  };
}

/** One engine thread's metrics (its own registry), by thread index (0: the first thread). */
export interface ThreadMetrics {
  thread: number;
  metrics: MetricsJson;
}

/**
 * How a metric of the engine's threads becomes the process's. Counters and histograms of calls and
 * connections and the runtime's per-thread figures (heap, handles, GC) add up (prom-client's
 * default, `sum`; its event-loop lag figures keep their own: average, min, max). What the process
 * has once (process_*: CPU, RSS, file descriptors, start time) or every thread has of the same
 * graph and store (the feed's applied changes and lag, relationships, objects, the role
 * configuration, checkpoints, store_up) is the first thread's: it reads the feed and owns the store.
 * applied_revision and ready are the lowest: the revision every thread answers from at least, and
 * ready while every thread is.
 */
const THREAD_AGGREGATORS: Readonly<Record<string, Aggregator>> = {
  nodejs_version_info: "first",
  [`${PREFIX}store_up`]: "first",
  [`${PREFIX}applied_changes_total`]: "first",
  [`${PREFIX}feed_apply_lag_seconds`]: "first",
  [`${PREFIX}feed_refused_changes_total`]: "first",
  [`${PREFIX}feed_recoveries_total`]: "first",
  [`${PREFIX}relationships`]: "first",
  [`${PREFIX}graph_objects`]: "first",
  [`${PREFIX}role_config_info`]: "first",
  [`${PREFIX}role_config_loaded_timestamp_seconds`]: "first",
  [`${PREFIX}checkpoint_fallbacks_total`]: "first",
  [`${PREFIX}checkpoint_writes_total`]: "first",
  [`${PREFIX}checkpoint_bytes`]: "first",
  [`${PREFIX}applied_revision`]: "min",
  [`${PREFIX}ready`]: "min",
};

const aggregatorOf = (metric: MetricsJson[number]): Aggregator => THREAD_AGGREGATORS[metric.name] ?? (metric.name.startsWith("process_") ? "first" : (metric.aggregator ?? "sum"));

/** The sum of a metric's values in one thread's metrics (of its `metricName` series only, when given: a histogram's `_count`). */
function total(metrics: MetricsJson, name: string, metricName?: string): number {
  let sum = 0;
  for (const value of metrics.find((m) => m.name === name)?.values ?? []) {
    if (metricName === undefined || (value as { metricName?: string }).metricName === metricName) sum += value.value;
  }
  return sum;
}

/**
 * The figures of each thread, labelled `thread` (0: the first): calls answered (gRPC and HTTP, to
 * see how the kernel spread the connections), V8 heap in use and the event loop's p99 lag. The
 * process's memory is process_resident_memory_bytes (threads share one address space: there is no
 * resident size per thread).
 */
function perThreadFigures(threads: readonly ThreadMetrics[]): MetricsJson {
  const series = (name: string, help: string, type: "counter" | "gauge", pick: (metrics: MetricsJson) => number) =>
    ({ name: `${PREFIX}${name}`, help, type, aggregator: "first", values: threads.map(({ thread, metrics }) => ({ labels: { thread }, value: pick(metrics) })) }) as unknown as MetricsJson[number];
  return [
    {
      name: `${PREFIX}threads`,
      help: "Engine threads whose figures this scrape holds.",
      type: "gauge",
      aggregator: "first",
      values: [{ labels: {}, value: threads.length }],
    } as unknown as MetricsJson[number],
    series(
      "thread_calls_total",
      "Calls a thread answered: gRPC (grpc_server_handled_total) and HTTP (http_request_duration_seconds_count).",
      "counter",
      (m) => total(m, "grpc_server_handled_total") + total(m, "http_request_duration_seconds", "http_request_duration_seconds_count"),
    ),
    series("thread_own_object_bytes", "Object arrays a thread holds of its own copy (graph_own_object_bytes of that thread; 0 while shared).", "gauge", (m) =>
      total(m, `${PREFIX}graph_own_object_bytes`),
    ),
    series("thread_heap_used_bytes", "V8 heap in use by a thread (nodejs_heap_size_used_bytes of that thread).", "gauge", (m) => total(m, "nodejs_heap_size_used_bytes")),
    series("thread_eventloop_lag_p99_seconds", "The 99th percentile of a thread's event-loop lag (nodejs_eventloop_lag_p99_seconds of that thread).", "gauge", (m) =>
      total(m, "nodejs_eventloop_lag_p99_seconds"),
    ),
  ];
}

/**
 * The Prometheus text of every thread of the process in one exposition (THREAD_AGGREGATORS), plus
 * each thread's own figures (perThreadFigures), so a scrape that lands on any thread sees the
 * process. `threads` in thread order, the first thread first.
 */
export function renderThreadMetrics(threads: readonly ThreadMetrics[]): Promise<string> {
  const withAggregators = threads.map(({ metrics }) => metrics.map((metric) => ({ ...metric, aggregator: aggregatorOf(metric) })));
  return AggregatorRegistry.aggregate([...withAggregators, perThreadFigures(threads)]).metrics();
}
