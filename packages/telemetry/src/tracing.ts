// OpenTelemetry tracing, set up in one place. Off (and free: one boolean test per call site) unless
// the standard OTEL_* variables ask for an exporter; on, spans go to an OTLP/HTTP (protobuf)
// collector and W3C `traceparent` is read from and written to HTTP headers and gRPC metadata.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOnSampler, BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, type SpanExporter } from "@opentelemetry/sdk-trace-node";

/** The W3C trace-context header, both ways (requests carry the caller's, responses the server span's). */
export const TRACEPARENT_HEADER = "traceparent";

export type TracesExporter = "otlp" | "console" | "none";

/** The standard OTEL_* settings tracing reads (parsed by the app's configuration schema). */
export interface TracingSettings {
  OTEL_SDK_DISABLED?: boolean;
  OTEL_TRACES_EXPORTER?: TracesExporter | undefined;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
  OTEL_TRACES_SAMPLER?: TracesSampler | undefined;
  OTEL_TRACES_SAMPLER_ARG?: number | undefined;
}

/** The OpenTelemetry spec's sampler names. */
export type TracesSampler = "parentbased_traceidratio" | "parentbased_always_on" | "parentbased_always_off" | "traceidratio" | "always_on" | "always_off";

/**
 * Sampling when OTEL_TRACES_SAMPLER(_ARG) are unset: follow the caller's sampled flag, and trace
 * 1 % of the calls that arrive without a trace. Tracing every call costs about a third more server
 * CPU per Check; this keeps tracing-on within 5 % (apps/authz-engine `bench:telemetry`).
 */
export const DEFAULT_SAMPLING = { sampler: "parentbased_traceidratio", ratio: 0.01 } as const;

export interface Tracing {
  readonly enabled: boolean;
  /** Flushes spans still queued and stops exporting. */
  shutdown(): Promise<void>;
}

const TRACER_NAME = "gatehouse";
let provider: NodeTracerProvider | null = null;
/** Read on every hot-path call site: when false they do nothing but run the work. */
let enabled = false;
/** The sampling decision, taken before any span exists (see `sampleCall`). */
let sampling: { parentBased: boolean; root: "on" | "off" | "ratio"; ratio: number } = { parentBased: true, root: "ratio", ratio: DEFAULT_SAMPLING.ratio };

function samplingFor(settings: TracingSettings): typeof sampling {
  const name = settings.OTEL_TRACES_SAMPLER ?? DEFAULT_SAMPLING.sampler;
  const root = name.replace(/^parentbased_/, "");
  return {
    parentBased: name.startsWith("parentbased_"),
    root: root === "always_on" ? "on" : root === "always_off" ? "off" : "ratio",
    ratio: Math.min(1, Math.max(0, settings.OTEL_TRACES_SAMPLER_ARG ?? DEFAULT_SAMPLING.ratio)),
  };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * Whether a call that arrived with this `traceparent` (or none) is traced: the configured sampler's
 * decision, taken before anything is allocated for the call, so an unsampled call costs this
 * function only (no span, no context, no attributes, no response header). A sampled call then gets
 * a span from the SDK, whose own sampler is always-on behind this decision. `traceidratio` decides
 * on the trace id when there is one (the same answer in every service), at random otherwise.
 */
export function sampleCall(traceparent: string | undefined): boolean {
  if (!enabled) return false;
  const parent = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  const valid = parent !== null && parent[1] !== ZERO_TRACE && parent[2] !== ZERO_SPAN;
  if (valid && sampling.parentBased) return (parseInt(parent[3]!, 16) & 1) === 1;
  if (sampling.root !== "ratio") return sampling.root === "on";
  // The lowest 52 bits of the trace id as a fraction in [0, 1), as the ratio samplers do.
  const draw = valid ? parseInt(parent[1]!.slice(19), 16) / 2 ** 52 : Math.random();
  return draw < sampling.ratio;
}

/** True once startTracing registered an exporter in this process. */
export const tracingEnabled = (): boolean => enabled;

/**
 * Which exporter the settings ask for: OTEL_SDK_DISABLED wins; then OTEL_TRACES_EXPORTER; unset,
 * an OTLP endpoint switches OTLP on. Nothing set: none (the service exports nothing by default).
 */
export function tracesExporterFor(settings: TracingSettings): TracesExporter {
  if (settings.OTEL_SDK_DISABLED) return "none";
  if (settings.OTEL_TRACES_EXPORTER) return settings.OTEL_TRACES_EXPORTER;
  return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || settings.OTEL_EXPORTER_OTLP_ENDPOINT ? "otlp" : "none";
}

function otlpTracesUrl(settings: TracingSettings): string | undefined {
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (settings.OTEL_EXPORTER_OTLP_ENDPOINT) return `${settings.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
  return undefined; // the exporter's own default (http://localhost:4318/v1/traces)
}

/**
 * Registers the global tracer provider when the settings ask for it (once per process; later calls
 * return the running one). `serviceName` is the default of OTEL_SERVICE_NAME; OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_TRACES_SAMPLER, OTEL_BSP_* and OTEL_EXPORTER_OTLP_HEADERS/TIMEOUT are read by the SDK itself.
 */
export function startTracing(serviceName: string, settings: TracingSettings): Tracing {
  const kind = tracesExporterFor(settings);
  if (kind === "none") return { enabled: false, shutdown: async () => {} };
  if (!provider) {
    const url = otlpTracesUrl(settings);
    const exporter: SpanExporter = kind === "console" ? new ConsoleSpanExporter() : new OTLPTraceExporter(url ? { url } : {});
    const resource = resourceFromAttributes({ "service.name": settings.OTEL_SERVICE_NAME ?? serviceName }).merge(detectResources({ detectors: [envDetector] }));
    // The SDK records every span it is asked for: whether to ask is `sampleCall`'s decision.
    provider = new NodeTracerProvider({ resource, sampler: new AlwaysOnSampler(), spanProcessors: [new BatchSpanProcessor(exporter)] });
    sampling = samplingFor(settings);
    provider.register({ propagator: new W3CTraceContextPropagator() });
    enabled = true;
  }
  const running = provider;
  return {
    enabled: true,
    async shutdown() {
      if (provider !== running) return;
      enabled = false;
      provider = null;
      await running.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

const tracer = () => trace.getTracer(TRACER_NAME);

/** Header-like carriers: HTTP headers (possibly arrays) or a getter over gRPC metadata. */
type Carrier = Record<string, unknown>;
const getter = {
  keys: (carrier: Carrier) => Object.keys(carrier),
  get: (carrier: Carrier, key: string) => {
    const value = carrier[key];
    return Array.isArray(value) ? (value[0] as string | undefined) : typeof value === "string" ? value : undefined;
  },
};

/** Everything a server span needs to end: status and the headers to send back. */
export interface ServerSpan {
  readonly span: Span;
  /** The context to run the request in (the span is active there). */
  readonly context: Context;
  /** `traceparent` of the server span, for the response headers. */
  readonly traceparent: string;
}

/** Starts a SERVER span whose parent is the caller's `traceparent` (when valid) in `incoming`. */
export function startServerSpan(name: string, incoming: Carrier, attributes: Attributes): ServerSpan {
  const parent = propagation.extract(ROOT_CONTEXT, incoming, getter);
  const span = tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  // Formatted here rather than through propagation.inject: the same W3C text, without the per-call
  // carrier object (this runs on every traced gRPC call).
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { span, context: trace.setSpan(parent, span), traceparent: `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, "0")}` };
}

/** Ends a span, marking it failed when `error` is given. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    if (error instanceof Error) span.recordException(error);
  }
  span.end();
}

/** True inside a sampled call (its span is active): child spans are worth making. */
export function tracingActive(): boolean {
  return enabled && trace.getSpan(context.active()) !== undefined;
}

/**
 * Runs `work` inside an INTERNAL span (child of the active one), synchronously when `work` is
 * synchronous. Tracing off, or outside a sampled call: just `work()` (no root span of its own).
 */
export function inSpan<T>(name: string, attributes: Attributes, work: () => T): T {
  if (!tracingActive()) return work();
  const span = tracer().startSpan(name, { attributes });
  let result: T;
  try {
    result = context.with(trace.setSpan(context.active(), span), work);
  } catch (error) {
    endSpan(span, error);
    throw error;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        endSpan(span);
        return value;
      },
      (error: unknown) => {
        endSpan(span, error);
        throw error;
      },
    ) as T;
  }
  endSpan(span);
  return result;
}

/** Runs `work` with `ctx` active (so spans and log lines made inside belong to it). */
export function withContext<T>(ctx: Context, work: () => T): T {
  return context.with(ctx, work);
}

/** `trace_id`/`span_id` of the active span, for log lines; empty when tracing is off or no span is active. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  if (!enabled) return {};
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
