import type { IncomingMessage, ServerResponse } from "node:http";
import { endSpan, sampleCall, startServerSpan, TRACEPARENT_HEADER, withContext } from "./tracing.js";

/**
 * Middleware (Express/Connect signature) giving each request a SERVER span: the parent is the
 * caller's `traceparent`, the response carries the server span's `traceparent`, and the rest of
 * the chain runs with the span active (child spans, log lines' trace_id). Tracing off: `next()`.
 * Mount it before the request logger so the logger's lines carry the trace id too. Unsampled
 * requests (`sampleCall`) are not traced at all. `routeOf` names the matched route of a request for
 * servers without Express's `req.route` (a bounded template, never the raw path).
 */
export function httpTracing(routeOf: (req: IncomingMessage) => string | undefined = expressRoute): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  return (req, res, next) => {
    const incoming = req.headers[TRACEPARENT_HEADER];
    if (!sampleCall(typeof incoming === "string" ? incoming : undefined)) return next();
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const server = startServerSpan(method, req.headers, { "http.request.method": method, "url.path": path });
    res.setHeader(TRACEPARENT_HEADER, server.traceparent);
    res.once("close", () => {
      // Name the span after the matched route (bounded), as the HTTP conventions ask.
      const route = routeOf(req);
      if (route !== undefined) {
        server.span.setAttribute("http.route", route);
        server.span.updateName(`${method} ${route}`);
      }
      server.span.setAttribute("http.response.status_code", res.statusCode);
      endSpan(server.span, res.statusCode >= 500 ? new Error(`HTTP ${res.statusCode}`) : !res.writableFinished ? new Error("connection closed before the response finished") : undefined);
    });
    withContext(server.context, next);
  };
}

/** Express's matched route (`baseUrl` + the route's path), once the router has matched one. */
function expressRoute(req: IncomingMessage): string | undefined {
  const routed = req as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };
  return typeof routed.route?.path === "string" ? `${routed.baseUrl ?? ""}${routed.route.path}` : undefined;
}
