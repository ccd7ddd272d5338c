// The one table of public paths: which Service (and named port) serves each path prefix at the single
// public origin. The Kubernetes Ingress, the OpenShift Routes, the NetworkPolicies and the local
// rehearsal's HAProxy are all rendered from it, so they cannot drift apart. Pure data: no Pulumi import,
// so other tools (the rehearsal) can read it.

/** A Service behind the public origin and the named port that serves the path. */
export interface RouteBackend {
  readonly service: "management-api" | "authz-engine";
  readonly port: "http" | "grpc";
}

export interface PublicRoute {
  /** Path prefix, ending in `/`; the longest matching prefix wins. */
  readonly pathPrefix: string;
  readonly backend: RouteBackend;
  /** Why browsers or applications come this way. */
  readonly purpose: string;
}

/** Ordered longest prefix first, as a proxy that takes the first match needs them. */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  {
    pathPrefix: "/api/kessel/",
    backend: { service: "authz-engine", port: "http" },
    purpose: "inventory-api's HTTP/JSON checks (checkself, checkselfbulk, ...) called by browsers",
  },
  {
    pathPrefix: "/",
    backend: { service: "management-api", port: "http" },
    purpose: "the management API (/api/rbac/v1/, /api/rbac/v2/) and the console (/console/)",
  },
];

/**
 * The route a request path takes: the longest prefix it starts with (as a proxy matching the table
 * in order does, the table being ordered longest first). `/` matches every path.
 */
export function routeFor(path: string, routes: readonly PublicRoute[] = PUBLIC_ROUTES): PublicRoute {
  const matching = routes.filter((r) => path.startsWith(r.pathPrefix));
  const longest = matching.reduce<PublicRoute | undefined>((best, r) => (!best || r.pathPrefix.length > best.pathPrefix.length ? r : best), undefined);
  if (!longest) throw new Error(`no public route serves ${path}: the table needs a "/" entry`);
  return longest;
}
