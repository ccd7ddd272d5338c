// One public origin, rendered from the route table (src/route-table.ts): for every request path a
// browser sends, the rendered Ingress and the rendered OpenShift Routes pick the backend the table
// names, that Service has the named port, and the NetworkPolicies admit the ingress namespace on
// exactly the ports some path goes to, and on no other.
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICE_NAMES, type GatehouseConfig } from "../src/config.js";
import { ingressRules, publicPorts } from "../src/network-policies.js";
import { PUBLIC_ROUTES, routeFor, type PublicRoute } from "../src/route-table.js";
import { COMMON } from "./support/expectations.js";
import { runStack, type Run } from "./support/mocks.js";
import { byKind, describePeer, get, type K8sObject } from "./support/objects.js";

/** What the SDKs and the console ask for at the origin, and a few near misses. */
const PATHS = [
  "/api/kessel/v1beta2/checkself",
  "/api/kessel/v1beta2/checkselfbulk",
  "/api/kessel/v1beta2/check",
  "/api/kessel/v1/livez",
  "/api/kessel/v1/readyz",
  "/api/rbac/v2/workspaces/",
  "/api/rbac/v1/access/",
  "/console/",
  "/",
  "/api/kesselx/v1/livez",
  "/api/rbac/kessel/",
];

interface Backend {
  service: string;
  port: string;
}

/** Ingress `Prefix` matching: whole path elements, longest match wins (networking.k8s.io/v1). */
function ingressBackend(ingress: K8sObject, path: string): Backend {
  const elements = (p: string) => p.split("/").filter(Boolean);
  const request = elements(path);
  const candidates = ingress.spec.rules[0].http.paths.filter((p: K8sObject) => {
    expect(p.pathType).toBe("Prefix");
    const prefix = elements(p.path);
    return prefix.every((e, i) => request[i] === e);
  });
  const best = candidates.sort((a: K8sObject, b: K8sObject) => elements(b.path).length - elements(a.path).length)[0];
  return { service: best.backend.service.name, port: best.backend.service.port.name };
}

/** OpenShift router: among the Routes of the host, the longest `path` the request starts with (none = `/`). */
function routeBackend(routes: K8sObject[], path: string): Backend {
  const best = routes.filter((r) => path.startsWith(r.spec.path ?? "/")).sort((a, b) => (b.spec.path ?? "/").length - (a.spec.path ?? "/").length)[0];
  return { service: best.spec.to.name, port: best.spec.port.targetPort };
}

/** (service, port number) pairs the ingress namespace may reach, from the rendered NetworkPolicies. */
function ingressAdmitted(run: Run, ingressNamespace: string): string[] {
  const out: string[] = [];
  for (const service of SERVICE_NAMES) {
    for (const rule of get(run, "NetworkPolicy", service).spec.ingress) {
      if (!rule.from.map(describePeer).includes(`namespace:${ingressNamespace}`)) continue;
      for (const p of rule.ports) out.push(`${service}:${p.port}`);
    }
  }
  return out.sort();
}

const portNumber = (run: Run, backend: Backend): number => {
  const port = get(run, "Service", backend.service).spec.ports.find((p: K8sObject) => p.name === backend.port);
  expect(port, `${backend.service} has a port named ${backend.port}`).toBeDefined();
  return port.port;
};

describe.each([
  ["Routes (OpenShift)", {}],
  ["an Ingress", { "gatehouse:expose": JSON.stringify({ via: "ingress", host: "gatehouse.example.com", ingressClassName: "nginx" }) }],
] as const)("%s", (label, overrides) => {
  let run: Run;
  let backendOf: (path: string) => Backend;
  beforeAll(async () => {
    run = await runStack("stage", overrides);
    backendOf = label === "an Ingress" ? (path) => ingressBackend(get(run, "Ingress", "gatehouse"), path) : (path) => routeBackend(byKind(run, "Route"), path);
  });

  it.each(PATHS)("%s goes where the route table says, to a port the Service has", (path) => {
    const backend = backendOf(path);
    expect(backend).toEqual(routeFor(path).backend);
    portNumber(run, backend);
  });

  it("sends /api/kessel/ to the engine's HTTP port and the rest to the management API", () => {
    expect(backendOf("/api/kessel/v1beta2/checkself")).toEqual({ service: "authz-engine", port: "http" });
    expect(backendOf("/api/rbac/v2/workspaces/")).toEqual({ service: "management-api", port: "http" });
  });

  it("admits the ingress namespace on exactly the ports the table's paths go to", () => {
    const expected = [...new Set(PUBLIC_ROUTES.map((r) => `${r.backend.service}:${portNumber(run, r.backend)}`))].sort();
    expect(ingressAdmitted(run, COMMON.ingressNamespace)).toEqual(expected);
    expect(expected).toEqual(["authz-engine:9000", "management-api:8000"]);
  });
});

describe("rules follow the table", () => {
  const cfg = { ingressNamespace: "edge", monitoringNamespace: "monitoring" } as GatehouseConfig;
  const onlyRoot: PublicRoute[] = [{ pathPrefix: "/", backend: { service: "management-api", port: "http" }, purpose: "everything" }];

  it("without a /api/kessel/ path the ingress namespace cannot reach the engine at all", () => {
    expect(publicPorts("authz-engine", onlyRoot)).toEqual([]);
    const engineRules = ingressRules(cfg, onlyRoot)["authz-engine"];
    expect(engineRules.filter((r) => r.from.some((peer) => peer.namespaceSelector !== undefined && JSON.stringify(peer).includes('"edge"')))).toEqual([]);
    expect(publicPorts("authz-engine")).toEqual(["http"]);
    expect(publicPorts("workspace-cache")).toEqual([]);
  });

  it("routeFor takes the longest prefix, and refuses a table without /", () => {
    expect(routeFor("/api/kessel/v1/livez").pathPrefix).toBe("/api/kessel/");
    expect(routeFor("/api/kessel").pathPrefix).toBe("/");
    expect(() =>
      routeFor(
        "/x",
        PUBLIC_ROUTES.filter((r) => r.pathPrefix !== "/"),
      ),
    ).toThrow(/needs a "\/" entry/);
  });

  it("the table is ordered longest prefix first and every prefix ends in /", () => {
    const lengths = PUBLIC_ROUTES.map((r) => r.pathPrefix.length);
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a));
    for (const r of PUBLIC_ROUTES) expect(r.pathPrefix.endsWith("/")).toBe(true);
  });
});
