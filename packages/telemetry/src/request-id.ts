import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pinoHttp, type HttpLogger } from "pino-http";
import type { Logger } from "pino";

/** The header a request id travels in, both ways (lowercase, as HTTP/2 and gRPC metadata want it). */
export const REQUEST_ID_HEADER = "x-request-id";
/** The id insights platform gateways send; accepted when x-request-id is absent. */
export const INSIGHTS_REQUEST_ID_HEADER = "x-rh-insights-request-id";

// A caller's id is kept only when it is short and plain, so logs and headers never carry unbounded
// or control-character input; anything else is replaced by a fresh id.
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's request id when it is acceptable, otherwise a new UUID. */
export function requestIdOf(sent: unknown): string {
  const value = Array.isArray(sent) ? sent[0] : sent;
  return typeof value === "string" && ACCEPTABLE_ID.test(value) ? value : randomUUID();
}

/**
 * pino-http for an HTTP app: takes or makes the request id, echoes it in `x-request-id`, binds it
 * (as `reqId`) to `req.log` so every line logged for the request carries it, and writes one line
 * when the response finishes. Probes and scrapes are not logged.
 */
export function httpRequestLogger(logger: Logger, options: { quietPaths?: readonly string[] } = {}): HttpLogger {
  const quiet = new Set(options.quietPaths ?? ["/livez", "/readyz", "/healthz", "/metrics"]);
  return pinoHttp({
    logger,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const id = requestIdOf(req.headers[REQUEST_ID_HEADER] ?? req.headers[INSIGHTS_REQUEST_ID_HEADER]);
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    // Lines logged during the request carry just `reqId`; the completion line has the details.
    quietReqLogger: true,
    autoLogging: { ignore: (req) => quiet.has((req.url ?? "/").split("?")[0] ?? "/") },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? "error" : "info"),
    // Short request/response records: the method and path, not every header.
    serializers: {
      // The path is the caller's input: bounded so one request cannot write an unbounded log line.
      req: (req: { method?: string; url?: string }) => ({ method: req.method, path: (req.url ?? "").split("?")[0]!.slice(0, 512) }),
      res: (res: { statusCode?: number }) => ({ status: res.statusCode }),
    },
  });
}
