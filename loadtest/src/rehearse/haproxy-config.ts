// The rehearsal's ingress: an HAProxy configuration rendered from infra's table of public routes, so
// the local proxy and the cluster's Ingress cannot send a path to different services. Pure: text in,
// text out. gRPC is told apart by its content type (HTTP/2, `application/grpc`), as a gRPC-aware
// ingress does, and goes to the engines' gRPC ports whatever its path.
import type { PublicRoute, RouteBackend } from "../../../infra/src/route-table.ts";

export interface Endpoint {
  /** Stable server name, shown in HAProxy's stats and used by the runtime API. */
  name: string;
  host: string;
  port: number;
  /** Port of the HTTP `/readyz` that gates traffic to this server (the engine's HTTP port for gRPC). */
  checkPort: number;
}

/** Where each Service's named ports are served on this machine. */
export type BackendEndpoints = Record<RouteBackend["service"], Partial<Record<RouteBackend["port"], Endpoint[]>>>;

export interface HaproxyOptions {
  routes: readonly PublicRoute[];
  endpoints: BackendEndpoints;
  bind: { host: string; port: number };
  /** Unix socket of the runtime API (drain, state), admin level. */
  adminSocket: string;
  /** Health-check period, ms: how fast a dead or draining server leaves rotation. */
  checkIntervalMs: number;
}

/** The backend section's name of a Service's port (`authz_engine_grpc`). */
export function backendName(backend: RouteBackend): string {
  return `${backend.service.replaceAll("-", "_")}_${backend.port}`;
}

export const GRPC_BACKEND: RouteBackend = { service: "authz-engine", port: "grpc" };

export function renderHaproxyConfig(o: HaproxyOptions): string {
  const used = new Map<string, RouteBackend>();
  const use = (b: RouteBackend): string => {
    used.set(backendName(b), b);
    return backendName(b);
  };
  const lines = [
    "# Rendered from infra/src/route-table.ts (PUBLIC_ROUTES) by the rehearsal; do not edit.",
    "global",
    `  stats socket ${o.adminSocket} mode 600 level admin`,
    "  maxconn 4000",
    "",
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 120s",
    "  timeout server 120s",
    "  timeout http-request 10s",
    // As the deployment's readiness probes (timeoutSeconds: 2): a slow answer on a loaded machine is not a failure.
    "  timeout check 2s",
    // A request never sent to a server (refused connection) is tried on another one.
    "  retries 2",
    "  option redispatch",
    "  retry-on conn-failure",
    "",
    "frontend public",
    // HTTP/1.1 and HTTP/2 without TLS (h2c, prior knowledge) on one port: HAProxy detects the preface.
    `  bind ${o.bind.host}:${o.bind.port}`,
    "  acl is_grpc req.hdr(content-type) -m beg application/grpc",
    `  use_backend ${use(GRPC_BACKEND)} if is_grpc`,
    // The table is ordered longest prefix first; HAProxy takes the first matching rule.
    ...o.routes.map((r) => `  use_backend ${use(r.backend)} if { path_beg ${r.pathPrefix} }`),
  ];
  for (const [name, backend] of used) {
    const servers = o.endpoints[backend.service][backend.port];
    if (!servers || servers.length === 0) throw new Error(`no endpoints for ${backend.service} port ${backend.port}`);
    const h2 = backend.port === "grpc";
    lines.push(
      "",
      `backend ${name}`,
      "  balance roundrobin",
      // The deployment's readiness: a server takes traffic only while its /readyz answers 200.
      "  option httpchk GET /readyz",
      "  http-check expect status 200",
      `  default-server inter ${o.checkIntervalMs} fall 2 rise 1`,
      ...servers.map((s) => `  server ${s.name} ${s.host}:${s.port} check port ${s.checkPort}${h2 ? " proto h2 check-proto h1" : ""}`),
    );
  }
  return `${lines.join("\n")}\n`;
}
