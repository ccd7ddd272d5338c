// One origin under `pnpm start`: the management API's port also serves inventory-api's HTTP/JSON
// checks (/api/kessel/), through the engine's own handlers and authenticator. Every answer there is
// the engine port's answer to the same request (status, content type, body), the caller's identity
// reaches the engine unchanged, bad input is refused the same way and changes nothing.
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";

let gh: RunningGatehouse;
let orgId: string;
const workspace = (key: string) => ({ resourceId: gh.demo!.workspaces[key]!, resourceType: "workspace", reporter: { type: "rbac" } });
const identity = (user: string) => ({ "x-rh-identity": demoIdentityHeader(orgId, user, user === "alice") });

interface Answer {
  status: number;
  contentType: string | null;
  body: string;
}

async function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  return { status: response.status, contentType: response.headers.get("content-type"), body: await response.text() };
}

/** The same request to the one origin (management API port) and to the engine's own HTTP port. */
async function both(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ origin: Answer; engine: Answer }> {
  const origin = await send(gh.ports.http, method, path, headers, body);
  const engine = await send(gh.ports.metrics, method, path, headers, body);
  return { origin, engine };
}
const json = { "content-type": "application/json" };

beforeAll(async () => {
  gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", seedDemo: true }, createSilentLogger());
  orgId = gh.demo!.orgId;
});
afterAll(async () => {
  await gh?.stop();
});

describe("the management API's port serves /api/kessel/ with the engine's handlers", () => {
  it("answers the Kessel health probes without credentials, as the engine's port does", async () => {
    for (const probe of ["livez", "readyz"]) {
      const { origin, engine } = await both("GET", `/api/kessel/v1/${probe}`);
      expect(origin).toEqual(engine);
      expect(origin.status).toBe(200);
      expect(JSON.parse(origin.body)).toMatchObject({ status: "OK", code: 200 });
    }
  });

  it("checkself names the caller by its x-rh-identity: carol may edit patch systems in Production, bob may not", async () => {
    const request = JSON.stringify({ object: workspace("production"), relation: "patch_system_edit" });
    const carol = await both("POST", "/api/kessel/v1beta2/checkself", { ...json, ...identity("carol") }, request);
    expect(carol.origin.status).toBe(200);
    expect(JSON.parse(carol.origin.body)).toMatchObject({ allowed: "ALLOWED_TRUE" });
    expect(JSON.parse(carol.origin.body).allowed).toBe(JSON.parse(carol.engine.body).allowed);
    const bob = await both("POST", "/api/kessel/v1beta2/checkself", { ...json, ...identity("bob") }, request);
    expect(JSON.parse(bob.origin.body)).toMatchObject({ allowed: "ALLOWED_FALSE" });
  });

  it("checkselfbulk answers each item in order for the caller", async () => {
    const request = JSON.stringify({
      items: [
        { object: workspace("production"), relation: "patch_system_edit" },
        { object: workspace("staging"), relation: "patch_system_edit" },
        { object: workspace("production-eu"), relation: "patch_system_edit" },
      ],
    });
    const { origin } = await both("POST", "/api/kessel/v1beta2/checkselfbulk", { ...json, ...identity("carol") }, request);
    expect(origin.status).toBe(200);
    const pairs = (JSON.parse(origin.body) as { pairs: { item: { allowed: string } }[] }).pairs;
    expect(pairs.map((p) => p.item.allowed)).toEqual(["ALLOWED_TRUE", "ALLOWED_FALSE", "ALLOWED_TRUE"]);
  });

  it("without an identity, with a malformed body, a wrong content type or an unknown route: the engine's own refusals", async () => {
    const check = JSON.stringify({ object: workspace("default"), relation: "inventory_host_view" });
    const cases: [string, string, Record<string, string>, string | undefined, number][] = [
      ["POST", "/api/kessel/v1beta2/checkself", json, check, 401],
      ["POST", "/api/kessel/v1beta2/checkself", { ...json, ...identity("bob") }, "{not json", 400],
      ["POST", "/api/kessel/v1beta2/checkself", { "content-type": "text/plain", ...identity("bob") }, check, 400],
      ["POST", "/api/kessel/v1beta2/checkself", { ...json, ...identity("bob") }, JSON.stringify({ object: workspace("default"), relation: "" }), 400],
      ["GET", "/api/kessel/v1beta2/checkself", identity("bob"), undefined, 404],
      ["POST", "/api/kessel/v1beta2/nothing-here", { ...json, ...identity("bob") }, "{}", 404],
    ];
    for (const [method, path, headers, body, status] of cases) {
      const { origin, engine } = await both(method, path, headers, body);
      expect(origin, `${method} ${path} ${body ?? ""}`).toEqual(engine);
      expect(origin.status, `${method} ${path} ${body ?? ""}`).toBe(status);
    }
  });

  it("a refused write changes nothing; an accepted one is seen by both ports", async () => {
    const host = (id: string) => ({
      type: "host",
      reporterType: "hbi",
      reporterInstanceId: "one-origin-test",
      representations: {
        metadata: { localResourceId: id, apiHref: "https://example.com/h", consoleHref: "https://example.com/h", reporterVersion: "1" },
        common: { workspace_id: workspace("production").resourceId },
        reporter: {},
      },
    });
    const before = await gh.store.feed.headRevision();
    const refused = await both("POST", "/api/kessel/v1beta2/resources", { ...json, ...identity("alice") }, JSON.stringify({ ...host("one-origin-bad"), type: "" }));
    expect(refused.origin.status).toBe(400);
    expect(refused.origin).toEqual(refused.engine);
    expect(await gh.store.feed.headRevision()).toBe(before);

    const accepted = await send(gh.ports.http, "POST", "/api/kessel/v1beta2/resources", { ...json, ...identity("alice") }, JSON.stringify(host("one-origin-host")));
    expect(accepted.status).toBe(200);
    expect(await gh.store.feed.headRevision()).toBeGreaterThan(before);
  });

  it("the rest of the origin is still the management API: /api/rbac/v2/ and the console", async () => {
    const defaults = await send(gh.ports.http, "GET", "/api/rbac/v2/workspaces/?type=default&with_ancestry=true", identity("bob"));
    expect(defaults.status).toBe(200);
    expect(JSON.parse(defaults.body).data[0].id).toBe(gh.demo!.workspaces["default"]);
    // A path that only starts like the mount's prefix is not the engine's.
    const near = await send(gh.ports.http, "GET", "/api/kesselx/v1/livez");
    expect(near.status).toBe(404);
    expect(near.contentType).toMatch(/problem\+json/);
    const rootRedirect = await fetch(`http://127.0.0.1:${gh.ports.http}/`, { redirect: "manual" });
    expect(rootRedirect.headers.get("location")).toBe("/console/");
  });
});
