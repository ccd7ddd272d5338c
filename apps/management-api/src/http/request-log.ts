import { httpRequestDuration, httpRequestLogger, type Logger, type Metrics } from "@gatehouse/telemetry";
import type { Request, RequestHandler } from "express";

/**
 * Per request: pino-http (request id taken from `x-request-id` / `x-rh-insights-request-id` or
 * generated, echoed in `x-request-id`, bound to `req.log`; one line when the response finishes)
 * and one latency observation.
 */
export function requestLogging(logger: Logger, metrics: Metrics): RequestHandler[] {
  const duration = httpRequestDuration(metrics);
  const observe: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The matched route pattern keeps label cardinality bounded (ids are not labels).
      const routePath = (req.route as { path?: string } | undefined)?.path ?? "unmatched";
      duration.labels(req.method, String(routePath), String(res.statusCode)).observe(seconds);
    });
    next();
  };
  return [httpRequestLogger(logger) as unknown as RequestHandler, observe];
}

/** The request's logger (carries its request id), or `fallback` outside a request. */
export function requestLogger(req: Request, fallback: Logger): Logger {
  return (req as unknown as { log?: Logger }).log ?? fallback;
}
