// Spans around SQL statements, through the OpenTelemetry API only (a no-op unless the process
// registered a tracer provider). A statement gets a span only inside a traced request: background
// work (feeds, reloads) adds no root spans, and with tracing off the cost is one context lookup.
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

const tracer = trace.getTracer("gatehouse-store");
/** Statements are parameterised (no values in the text), but can be long: keep a bounded prefix. */
const MAX_QUERY_TEXT = 2_000;

export function tracedQuery<T>(system: "postgresql", namespace: string, sql: string, run: () => Promise<T>): Promise<T> {
  const active = context.active();
  if (!trace.getSpan(active)) return run();
  const text = sql.trim();
  const operation = /^[A-Za-z]+/.exec(text)?.[0]?.toUpperCase() ?? "QUERY";
  const span = tracer.startSpan(
    `${operation} ${namespace}`,
    {
      kind: SpanKind.CLIENT,
      attributes: { "db.system.name": system, "db.namespace": namespace, "db.operation.name": operation, "db.query.text": text.slice(0, MAX_QUERY_TEXT) },
    },
    active,
  );
  return context.with(trace.setSpan(active, span), run).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
      throw error;
    },
  );
}
