// The standard gRPC server metrics (grpc_server_handled_total, grpc_server_handling_seconds) kept
// as plain numbers per method and published when scraped. prom-client's labelled children
// validate and hash their labels on every inc/observe (≈ 5 µs of a check's ≈ 50 µs on the wire);
// here a call adds to a few array slots of its method.
import type { Registry } from "@gatehouse/telemetry";

export interface GrpcMethodLabels {
  grpc_type: string;
  grpc_service: string;
  grpc_method: string;
}

/** One method's calls: a count per status code and the latency histogram's buckets. */
export class MethodCalls {
  /** Calls by status code (0–16). */
  readonly byCode = new Float64Array(17);
  /** Calls per latency bucket (not cumulative: the last slot is past every bound). */
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: GrpcMethodLabels,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Float64Array(bounds.length + 1);
  }

  /** A finished call: its status code and duration. */
  record(code: number, seconds: number): void {
    this.byCode[code >= 0 && code < 17 ? code : 2]!++;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * Registers both metrics on `registry` (prom-client's custom-metric shape: name, help, type, get,
 * reset). Status codes are labelled with `codeName` (the Go libraries' spelling); a series is shown
 * once it has a call, as prom-client's labelled metrics are.
 */
export function grpcCallMetrics(registry: Registry, bounds: readonly number[], codeName: (code: number) => string): (labels: GrpcMethodLabels) => MethodCalls {
  const methods: MethodCalls[] = [];
  const handled = {
    name: "grpc_server_handled_total",
    help: "Total number of RPCs completed on the server, regardless of success or failure.",
    type: "counter",
    aggregator: "sum",
    get() {
      const values: MetricValue[] = [];
      for (const m of methods) {
        for (let code = 0; code < 17; code++) {
          if (m.byCode[code]! > 0) values.push({ labels: { ...m.labels, grpc_code: codeName(code) }, value: m.byCode[code]! });
        }
      }
      return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
    },
    reset() {
      for (const m of methods) m.byCode.fill(0);
    },
  };
  const seconds = {
    name: "grpc_server_handling_seconds",
    help: "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
    type: "histogram",
    aggregator: "sum",
    get() {
      const values: MetricValue[] = [];
      for (const m of methods) {
        if (m.count === 0) continue;
        let cumulative = 0;
        for (let i = 0; i < bounds.length; i++) {
          cumulative += m.buckets[i]!;
          values.push({ labels: { ...m.labels, le: bounds[i]! }, value: cumulative, metricName: `${this.name}_bucket` });
        }
        values.push({ labels: { ...m.labels, le: "+Inf" }, value: m.count, metricName: `${this.name}_bucket` });
        values.push({ labels: { ...m.labels }, value: m.sum, metricName: `${this.name}_sum` });
        values.push({ labels: { ...m.labels }, value: m.count, metricName: `${this.name}_count` });
      }
      return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
    },
    reset() {
      for (const m of methods) {
        m.buckets.fill(0);
        m.sum = 0;
        m.count = 0;
      }
    },
  };
  // prom-client takes any object of this shape (its custom-collector contract).
  registry.registerMetric(handled as never);
  registry.registerMetric(seconds as never);
  return (labels) => {
    const existing = methods.find((m) => m.labels.grpc_service === labels.grpc_service && m.labels.grpc_method === labels.grpc_method && m.labels.grpc_type === labels.grpc_type);
    if (existing) return existing;
    const created = new MethodCalls({ ...labels }, bounds);
    methods.push(created);
    return created;
  };
}
