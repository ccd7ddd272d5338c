// inventory-api's HTTP/JSON interface (the google.api.http annotations of kessel.inventory.v1beta2
// and kessel.inventory.v1): an adapter over the same handlers as the gRPC port. A request is
// read (bounded JSON → the protobuf message through the protobuf JSON mapping), authenticated by
// the engine's authenticator, handed to the gRPC handler, and its answer written back as protobuf
// JSON; failures are answered in http/errors.ts. No CORS: upstream sends no CORS headers, so a page
// on another origin is refused by the browser (preflights get the 404 of any unrouted method).
import type { IncomingMessage, ServerResponse } from "node:http";
import { Metadata } from "@grpc/grpc-js";
import {
  CheckBulkRequest,
  CheckBulkResponse,
  CheckForUpdateBulkRequest,
  CheckForUpdateBulkResponse,
  CheckForUpdateRequest,
  CheckForUpdateResponse,
  CheckRequest,
  CheckResponse,
  CheckSelfBulkRequest,
  CheckSelfBulkResponse,
  CheckSelfRequest,
  CheckSelfResponse,
  DeleteResourceRequest,
  DeleteResourceResponse,
  GetLivezRequest,
  GetLivezResponse,
  GetReadyzRequest,
  GetReadyzResponse,
  protoJsonCodec,
  ReportResourceRequest,
  ReportResourceResponse,
  type BinaryMessageFns,
} from "@gatehouse/proto";
import { httpRequestDuration, httpTracing, requestIdOf, REQUEST_ID_HEADER, type Logger, type Metrics } from "@gatehouse/telemetry";
import type { checkHandlers } from "../handlers/checks.js";
import type { resourceHandlers } from "../handlers/resources.js";
import type { kesselHealthHandlers } from "../health.js";
import type { Authenticator, CallerIdentity } from "../grpc/authn.js";
import type { CallContext } from "../grpc/calls.js";
import { EngineError } from "../errors.js";
import { closeAfterUnreadBody, parseJsonBody, readBody, requireJsonContentType } from "./body.js";
import { toHttpFailure } from "./errors.js";

export interface HttpApiDeps {
  checks: ReturnType<typeof checkHandlers>;
  resources: ReturnType<typeof resourceHandlers>;
  health: ReturnType<typeof kesselHealthHandlers>;
  authenticator: Authenticator;
  logger: Logger;
  metrics: Metrics;
  /** Largest request body read, bytes (the gRPC port's default message limit). */
  maxBodyBytes?: number;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * The rest of a refused body read (and dropped) after its answer, in body limits: a client that
 * sends its whole body before it reads (Python's http.client, for one) gets the answer for a body
 * up to this many limits; a client that reads while it sends (curl, browsers, undici, Go) gets it
 * for any size. Beyond it the connection is closed.
 */
export const REFUSED_BODY_SWALLOW_FACTOR = 2;

type Handler<Req, Res> = (request: Req, context: CallContext) => Res | Promise<Res>;

interface Route {
  method: "GET" | "POST" | "DELETE";
  path: string;
  /** The RPC the route is an adapter of (logs). */
  rpc: string;
  /** Health probes are answered without credentials, as on the gRPC port. */
  anonymous: boolean;
  /** GET routes carry no body. */
  hasBody: boolean;
  run(body: unknown, context: CallContext): unknown;
}

function route<Req, Res>(
  method: Route["method"],
  path: string,
  rpc: string,
  messages: { request: [string, BinaryMessageFns<Req>]; response: [string, BinaryMessageFns<Res>] },
  handler: Handler<Req, Res>,
  options: { anonymous?: boolean } = {},
): Route {
  const request = protoJsonCodec(...messages.request);
  const response = protoJsonCodec(...messages.response);
  return {
    method,
    path,
    rpc,
    anonymous: options.anonymous ?? false,
    hasBody: method !== "GET",
    run(body, context) {
      const result = handler(request.read(body), context);
      return result instanceof Promise ? result.then((r) => response.write(r)) : response.write(result);
    },
  };
}

const v1beta2 = (name: string) => `kessel.inventory.v1beta2.${name}`;
const pair = <T>(name: string, fns: BinaryMessageFns<T>): [string, BinaryMessageFns<T>] => [name, fns];

/** Every route of upstream's annotations, by `METHOD path`. */
function routes(deps: HttpApiDeps): Map<string, Route> {
  const { checks, resources, health } = deps;
  const list: Route[] = [
    route("POST", "/api/kessel/v1beta2/check", "Check", { request: pair(v1beta2("CheckRequest"), CheckRequest), response: pair(v1beta2("CheckResponse"), CheckResponse) }, checks.check),
    route(
      "POST",
      "/api/kessel/v1beta2/checkself",
      "CheckSelf",
      { request: pair(v1beta2("CheckSelfRequest"), CheckSelfRequest), response: pair(v1beta2("CheckSelfResponse"), CheckSelfResponse) },
      checks.checkSelf,
    ),
    route(
      "POST",
      "/api/kessel/v1beta2/checkforupdate",
      "CheckForUpdate",
      { request: pair(v1beta2("CheckForUpdateRequest"), CheckForUpdateRequest), response: pair(v1beta2("CheckForUpdateResponse"), CheckForUpdateResponse) },
      checks.checkForUpdate,
    ),
    route(
      "POST",
      "/api/kessel/v1beta2/checkforupdatebulk",
      "CheckForUpdateBulk",
      { request: pair(v1beta2("CheckForUpdateBulkRequest"), CheckForUpdateBulkRequest), response: pair(v1beta2("CheckForUpdateBulkResponse"), CheckForUpdateBulkResponse) },
      checks.checkForUpdateBulk,
    ),
    route(
      "POST",
      "/api/kessel/v1beta2/checkbulk",
      "CheckBulk",
      { request: pair(v1beta2("CheckBulkRequest"), CheckBulkRequest), response: pair(v1beta2("CheckBulkResponse"), CheckBulkResponse) },
      checks.checkBulk,
    ),
    route(
      "POST",
      "/api/kessel/v1beta2/checkselfbulk",
      "CheckSelfBulk",
      { request: pair(v1beta2("CheckSelfBulkRequest"), CheckSelfBulkRequest), response: pair(v1beta2("CheckSelfBulkResponse"), CheckSelfBulkResponse) },
      checks.checkSelfBulk,
    ),
    route(
      "POST",
      "/api/kessel/v1beta2/resources",
      "ReportResource",
      { request: pair(v1beta2("ReportResourceRequest"), ReportResourceRequest), response: pair(v1beta2("ReportResourceResponse"), ReportResourceResponse) },
      resources.reportResource,
    ),
    route(
      "DELETE",
      "/api/kessel/v1beta2/resources",
      "DeleteResource",
      { request: pair(v1beta2("DeleteResourceRequest"), DeleteResourceRequest), response: pair(v1beta2("DeleteResourceResponse"), DeleteResourceResponse) },
      resources.deleteResource,
    ),
    route(
      "GET",
      "/api/kessel/v1/livez",
      "GetLivez",
      { request: pair("kessel.inventory.v1.GetLivezRequest", GetLivezRequest), response: pair("kessel.inventory.v1.GetLivezResponse", GetLivezResponse) },
      health.getLivez,
      { anonymous: true },
    ),
    route(
      "GET",
      "/api/kessel/v1/readyz",
      "GetReadyz",
      { request: pair("kessel.inventory.v1.GetReadyzRequest", GetReadyzRequest), response: pair("kessel.inventory.v1.GetReadyzResponse", GetReadyzResponse) },
      health.getReadyz,
      { anonymous: true },
    ),
  ];
  return new Map(list.map((r) => [`${r.method} ${r.path}`, r]));
}

/** The headers the authenticator reads, as the gRPC metadata it takes (one authentication for both ports). */
function credentialsOf(request: IncomingMessage): Metadata {
  const metadata = new Metadata();
  for (const name of ["authorization", "x-rh-identity"] as const) {
    const value = request.headers[name];
    if (typeof value === "string") metadata.set(name, value);
  }
  return metadata;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

export const API_PREFIX = "/api/kessel/";

/** The answer of the interface mounted elsewhere (EngineServer.httpApi) while the engine does not serve. */
export function answerNotServing(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  const failure = toHttpFailure(new EngineError("not-ready", "The authz engine is not serving (starting or stopping)."), "handler");
  response.setHeader("retry-after", "1");
  sendJson(response, failure.status, failure.body);
}

/**
 * The request listener of the HTTP/JSON interface, for requests whose path starts with
 * API_PREFIX. An unknown path or method is answered as Go's router does for upstream: 404 text.
 */
export function kesselHttpApi(deps: HttpApiDeps): (request: IncomingMessage, response: ServerResponse, path: string) => void {
  const table = routes(deps);
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const duration = httpRequestDuration(deps.metrics);
  // A SERVER span per sampled call, named after its route; the handler runs inside it (child spans, log trace ids).
  const tracing = httpTracing((request) => table.get(`${request.method ?? ""} ${(request.url ?? "/").split("?")[0]}`)?.path);

  return (request, response, path) => tracing(request, response, () => serve(request, response, path));

  function serve(request: IncomingMessage, response: ServerResponse, path: string): void {
    const startedAt = process.hrtime.bigint();
    const found = table.get(`${request.method ?? ""} ${path}`);
    const requestId = requestIdOf(request.headers[REQUEST_ID_HEADER]);
    response.setHeader(REQUEST_ID_HEADER, requestId);
    const observe = (status: number) =>
      duration.observe({ method: request.method ?? "", route: found?.path ?? "unmatched", status_code: String(status) }, Number(process.hrtime.bigint() - startedAt) / 1e9);
    if (!found) {
      request.resume();
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" }).end("404 page not found\n");
      observe(404);
      return;
    }
    let closed = false;
    response.once("close", () => {
      closed = true;
    });
    let stage: "body" | "authentication" | "handler" = "body";
    const fail = (error: unknown) => {
      const failure = toHttpFailure(error, stage);
      if (failure.status >= 500) deps.logger.error({ err: error, rpc: found.rpc, reqId: requestId }, "HTTP call failed");
      else deps.logger.debug({ rpc: found.rpc, reqId: requestId, status: failure.status, message: failure.body.message }, "HTTP call rejected");
      // A body left unread (too large, or not JSON) would be parsed as the next request: close after answering.
      if (!request.complete) closeAfterUnreadBody(request, response, REFUSED_BODY_SWALLOW_FACTOR * maxBodyBytes);
      sendJson(response, failure.status, failure.body);
      observe(failure.status);
    };
    const body: Promise<unknown> = found.hasBody
      ? Promise.resolve().then(() => {
          requireJsonContentType(request.headers["content-type"]);
          return readBody(request, maxBodyBytes).then(parseJsonBody);
        })
      : (request.resume(), Promise.resolve({}));
    body
      .then((json) => {
        stage = "authentication";
        const identity = found.anonymous ? null : deps.authenticator.authenticate(credentialsOf(request));
        return Promise.resolve(identity).then((caller: CallerIdentity | null) => {
          stage = "handler";
          return found.run(json, { identity: caller, cancelled: () => closed });
        });
      })
      .then((answer) => {
        sendJson(response, 200, answer);
        observe(200);
      }, fail);
  }
}
