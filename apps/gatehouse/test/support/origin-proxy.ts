// A test-only stand-in for the Ingress: one origin that sends each request to the backend its path
// prefix names in the public route table (infra's PUBLIC_ROUTES, from which the Ingress, the
// OpenShift Routes and the NetworkPolicies are rendered; infra/test/exposure.test.ts proves the
// rendered objects route every path as the table does). Requests and answers pass unchanged, headers
// (identity, cookies, tokens) and bodies alike; each request's backend is recorded.
import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The part of infra's route table the proxy reads (infra/src/route-table.ts). */
export interface PublicRoute {
  readonly pathPrefix: string;
  readonly backend: { readonly service: string; readonly port: string };
}
interface RouteTable {
  PUBLIC_ROUTES: readonly PublicRoute[];
  routeFor(path: string, routes?: readonly PublicRoute[]): PublicRoute;
}

const ROUTE_TABLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../infra/src/route-table.ts");

/** The table, read from infra's source (pure data and one function; no Pulumi). */
export async function loadRouteTable(): Promise<RouteTable> {
  return (await import(pathToFileURL(ROUTE_TABLE).href)) as RouteTable;
}

export interface OriginProxy {
  port: number;
  /** `<path> → <service>/<port>` of every request, in arrival order. */
  readonly served: string[];
  close(): Promise<void>;
}

/** Listens on 127.0.0.1; `upstreams` gives the local port of each `<service>/<port>` the table names. */
export async function startOriginProxy(table: RouteTable, upstreams: Readonly<Record<string, number>>): Promise<OriginProxy> {
  for (const route of table.PUBLIC_ROUTES) {
    const key = `${route.backend.service}/${route.backend.port}`;
    if (upstreams[key] === undefined) throw new Error(`no upstream for ${key}`);
  }
  const served: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const url = incoming.url ?? "/";
    const route = table.routeFor(url.split("?")[0] ?? "/");
    const key = `${route.backend.service}/${route.backend.port}`;
    served.push(`${url.split("?")[0]} → ${key}`);
    const upstream = forward({ host: "127.0.0.1", port: upstreams[key], method: incoming.method, path: url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    upstream.on("error", () => outgoing.headersSent || outgoing.writeHead(502).end());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
