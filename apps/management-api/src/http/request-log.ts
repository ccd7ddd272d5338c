import type { Logger, Metrics } from "@gatehouse/telemetry";
import type { RequestHandler } from "express";

/** One structured log line and one latency observation per request. */
export function requestLogging(logger: Logger, metrics: Metrics): RequestHandler {
  const duration = metrics.histogram("http_request_duration_seconds", "HTTP request latency", ["method", "route", "status"]);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The matched route pattern keeps label cardinality bounded (ids are not labels).
      const routePath = (req.route as { path?: string } | undefined)?.path ?? "unmatched";
      duration.labels(req.method, String(routePath), String(res.statusCode)).observe(seconds);
      logger.info(
        {
          method: req.method,
          path: req.originalUrl.split("?")[0]!.slice(0, 512),
          status: res.statusCode,
          ms: Math.round(seconds * 1e4) / 10,
          requestId: req.headers["x-rh-insights-request-id"],
        },
        "request",
      );
    });
    next();
  };
}
