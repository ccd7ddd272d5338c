// The rehearsal's HAProxy routes come from infra's one table of public paths (PUBLIC_ROUTES, which
// the Ingress and Routes render too): the rendered rules are exactly the table's prefixes in its
// order, and a real HAProxy in front of one stub server per backend sends each path, and gRPC by
// its content type, where the table says.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_ROUTES, type RouteBackend } from "../../infra/src/route-table.ts";
import { type BackendEndpoints, backendName, GRPC_BACKEND, renderHaproxyConfig } from "../src/rehearse/haproxy-config.ts";
import { Haproxy } from "../src/rehearse/haproxy.ts";
import { ProcessRegistry } from "../src/rehearse/processes.ts";
import { freePort } from "../src/server.ts";

/** The table's answer for a path, computed independently: the longest matching prefix. */
function tableBackend(pathname: string): RouteBackend {
  const match = [...PUBLIC_ROUTES].filter((r) => pathname.startsWith(r.pathPrefix)).sort((a, b) => b.pathPrefix.length - a.pathPrefix.length)[0];
  if (!match) throw new Error(`no route for ${pathname}`);
  return match.backend;
}

const PATHS = ["/api/rbac/v2/workspaces/", "/api/rbac/v1/access/?application=inventory", "/console/", "/console/assets/index.js", "/api/kessel/v1beta2/checkself", "/api/kessel/v1/readyz", "/livez"];

const endpoint = (name: string, port: number) => ({ name, host: "127.0.0.1", port, checkPort: port });

describe("HAProxy configuration rendered from PUBLIC_ROUTES", () => {
  const fake: BackendEndpoints = {
    "management-api": { http: [endpoint("management-api-1", 1001), endpoint("management-api-2", 1002)] },
    "authz-engine": { http: [endpoint("authz-engine-1", 2001)], grpc: [{ ...endpoint("authz-engine-1", 3001), checkPort: 2001 }] },
  };
  const config = renderHaproxyConfig({ routes: PUBLIC_ROUTES, endpoints: fake, bind: { host: "127.0.0.1", port: 8080 }, adminSocket: "/tmp/x.sock", checkIntervalMs: 500 });

  it("has one path rule per table entry, in the table's order, after the gRPC rule", () => {
    const rules = config.split("\n").filter((l) => l.trim().startsWith("use_backend"));
    expect(rules).toEqual([`  use_backend ${backendName(GRPC_BACKEND)} if is_grpc`, ...PUBLIC_ROUTES.map((r) => `  use_backend ${backendName(r.backend)} if { path_beg ${r.pathPrefix} }`)]);
    expect(PUBLIC_ROUTES.map((r) => r.pathPrefix)).toContain("/api/kessel/");
  });

  it("gives each backend every replica, gated by /readyz, gRPC over HTTP/2 with HTTP/1 checks", () => {
    expect(config).toContain("backend management_api_http\n");
    expect(config).toContain("  server management-api-2 127.0.0.1:1002 check port 1002\n");
    expect(config).toContain("  server authz-engine-1 127.0.0.1:3001 check port 2001 proto h2 check-proto h1\n");
    expect(config.match(/option httpchk GET \/readyz/g)).toHaveLength(3);
  });

  it("refuses a table naming a backend without endpoints", () => {
    expect(() =>
      renderHaproxyConfig({
        routes: PUBLIC_ROUTES,
        endpoints: { "management-api": {}, "authz-engine": fake["authz-engine"] },
        bind: { host: "127.0.0.1", port: 8080 },
        adminSocket: "/tmp/x.sock",
        checkIntervalMs: 500,
      }),
    ).toThrow("no endpoints for management-api port http");
  });
});

const haproxyInstalled = (() => {
  try {
    execFileSync("haproxy", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (process.env["CI"] === "true" && !haproxyInstalled) throw new Error("haproxy is required under CI (.ci/run installs it)");

describe.skipIf(!haproxyInstalled)("a real HAProxy with that configuration", () => {
  const registry = new ProcessRegistry();
  const dir = mkdtempSync(path.join(os.tmpdir(), "gatehouse-haproxy-routes-"));
  const servers: { close(): void }[] = [];
  let ingress = 0;

  /** An HTTP/1.1 stub answering its own name (and 200 on /readyz, for HAProxy's checks). */
  async function stub(name: string): Promise<number> {
    const server = http.createServer((_req, res) => res.writeHead(200, { "x-served-by": name }).end(name));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  }

  beforeAll(async () => {
    const grpc = http2.createServer();
    grpc.on("stream", (stream, headers) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc", "x-served-by": `authz-engine grpc ${headers["content-type"]}` });
      stream.end();
    });
    await new Promise<void>((resolve) => grpc.listen(0, "127.0.0.1", resolve));
    servers.push(grpc);
    const [m, e] = [await stub("management-api http"), await stub("authz-engine http")];
    ingress = await freePort();
    const config = renderHaproxyConfig({
      routes: PUBLIC_ROUTES,
      endpoints: {
        "management-api": { http: [endpoint("management-api-1", m)] },
        "authz-engine": { http: [endpoint("authz-engine-1", e)], grpc: [{ ...endpoint("authz-engine-1", (grpc.address() as AddressInfo).port), checkPort: e }] },
      },
      bind: { host: "127.0.0.1", port: ingress },
      adminSocket: path.join(dir, "haproxy.sock"),
      checkIntervalMs: 200,
    });
    const proxy = await Haproxy.start(registry, dir, config, path.join(dir, "haproxy.sock"));
    await proxy.waitAllUp();
  });

  afterAll(async () => {
    await registry.stopAll();
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends each public path where the table says", async () => {
    for (const p of PATHS) {
      const response = await fetch(`http://127.0.0.1:${ingress}${p}`);
      const expected = tableBackend(new URL(p, "http://x").pathname);
      expect(await response.text(), p).toBe(`${expected.service} ${expected.port}`);
    }
  });

  it("sends gRPC (HTTP/2, application/grpc) to the engines' gRPC port whatever its path", async () => {
    const session = http2.connect(`http://127.0.0.1:${ingress}`);
    try {
      for (const p of ["/kessel.inventory.v1beta2.KesselInventoryService/Check", "/api/rbac/v2/workspaces/"]) {
        const servedBy = await new Promise<string>((resolve, reject) => {
          const req = session.request({ ":method": "POST", ":path": p, "content-type": "application/grpc" });
          req.on("response", (headers) => resolve(String(headers["x-served-by"])));
          req.on("error", reject);
          req.end();
        });
        expect(servedBy, p).toBe("authz-engine grpc application/grpc");
      }
    } finally {
      session.close();
    }
  });
});
