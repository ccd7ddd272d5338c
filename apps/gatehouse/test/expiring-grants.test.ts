// Time-bound grants end to end on the all-in-one server: a role binding with `expires_at` written
// over HTTP allows a gRPC Check until it expires and denies it afterwards, at the same consistency
// token (the token still means "at least this revision"; the evaluation time is the request's).
// The server runs on the test's clock: an expiry is reached by moving it, never by waiting, so a
// slow machine cannot turn an expiry ahead into one already past.
import { credentials, Metadata } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceClient, type ResourceReference } from "@gatehouse/proto";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";

const ORG = "expiry-org";
const DOMAIN = "redhat";
const TOKEN_HEADER = "x-gatehouse-consistency-token";
const V2 = "/api/rbac/v2";

let gh: RunningGatehouse;
let grpc: KesselInventoryServiceClient;
let workspaceId: string;
let roleId: string;
let frankUuid: string;

async function http(method: string, path: string, body?: unknown, user = "alice"): Promise<{ status: number; json: any; token: string | null; type: string | null }> {
  const res = await fetch(`http://127.0.0.1:${gh.ports.http}${path}`, {
    method,
    headers: { "x-rh-identity": demoIdentityHeader(ORG, user, user === "alice"), ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, token: res.headers.get(TOKEN_HEADER), type: res.headers.get("content-type") };
}

function check(user: string, token?: string): Promise<Allowed> {
  const object: ResourceReference = { resourceType: "workspace", resourceId: workspaceId, reporter: { type: "rbac" } };
  const request = {
    object,
    relation: "inventory_host_update",
    subject: { resource: { resourceType: "principal", resourceId: `${DOMAIN}/${user}`, reporter: { type: "rbac" } } },
    ...(token ? { consistency: { atLeastAsFresh: { token } } } : {}),
  };
  const call = grpc.check as unknown as (req: unknown, md: Metadata, opts: object, cb: (e: Error | null, r?: { allowed: Allowed }) => void) => unknown;
  return new Promise((resolve, reject) => call.call(grpc, request, new Metadata(), {}, (e, r) => (e ? reject(e) : resolve(r!.allowed))));
}

async function listWorkspaces(user: string, token: string): Promise<string[]> {
  const out: string[] = [];
  const stream = grpc.streamedListObjects({
    objectType: { resourceType: "workspace", reporterType: "rbac" },
    relation: "inventory_host_update",
    subject: { resource: { resourceType: "principal", resourceId: `${DOMAIN}/${user}`, reporter: { type: "rbac" } } },
    consistency: { atLeastAsFresh: { token } },
  });
  for await (const item of stream as AsyncIterable<{ object?: ResourceReference }>) if (item.object) out.push(item.object.resourceId);
  return out;
}

let clock = Date.now();
const HOUR = 3_600_000;

beforeAll(async () => {
  gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: DOMAIN, env: "stage", seedDemo: false }, createSilentLogger(), {
    now: () => clock,
  });
  grpc = new KesselInventoryServiceClient(`127.0.0.1:${gh.ports.grpc}`, credentials.createInsecure());
  await http("GET", `${V2}/workspaces/?type=root`);
  await http("GET", `${V2}/workspaces/?type=root`, undefined, "frank");
  frankUuid = (await http("GET", `${V2}/principals/?username=frank`)).json.data[0].uuid;
  workspaceId = (await http("POST", `${V2}/workspaces/`, { name: "On call" })).json.id;
  roleId = (await http("POST", `${V2}/roles/`, { name: "On-call host editor", permissions: [{ application: "inventory", resource_type: "hosts", operation: "write" }] })).json.id;
});

afterAll(async () => {
  grpc?.close();
  await gh?.stop();
});

describe("time-bound role bindings", () => {
  const grant = (expires_at?: unknown) => ({
    requests: [{ resource: { id: workspaceId, type: "workspace" }, subject: { id: frankUuid, type: "user" }, role: { id: roleId }, ...(expires_at === undefined ? {} : { expires_at }) }],
  });
  const putPath = () => `${V2}/role-bindings/by-subject/?resource_id=${workspaceId}&resource_type=workspace&subject_id=${frankUuid}&subject_type=user`;

  it("refuses a past or malformed expires_at with a problem and changes nothing", async () => {
    const before = await http("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${workspaceId}`);
    for (const bad of [new Date(clock - 60_000).toISOString(), new Date(clock).toISOString(), "tomorrow", "2030-01-31T18:00:00", 12]) {
      const res = await http("POST", `${V2}/role-bindings:batchCreate/`, grant(bad));
      expect(res.status, `${String(bad)}: ${JSON.stringify(res.json)}`).toBe(400);
      expect(res.type).toContain("application/problem+json");
      const put = await http("PUT", putPath(), { roles: [{ id: roleId }], expires_at: bad });
      expect(put.status, `${String(bad)}: ${JSON.stringify(put.json)}`).toBe(400);
    }
    const after = await http("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${workspaceId}`);
    expect(after.json.data).toEqual(before.json.data);
    expect(await check("frank")).toBe(Allowed.ALLOWED_FALSE);
  });

  it("allows a gRPC Check until the binding expires, then denies it at the same token", async () => {
    const expiresAt = new Date(clock + HOUR);
    const written = await http("POST", `${V2}/role-bindings:batchCreate/`, grant(expiresAt.toISOString()));
    expect(written.status, JSON.stringify(written.json)).toBe(201);
    expect(written.json.role_bindings[0]).toMatchObject({ subject: { id: frankUuid, type: "user" }, expires_at: expiresAt.toISOString() });
    const token = written.token!;
    expect(await check("frank", token)).toBe(Allowed.ALLOWED_TRUE);
    expect(await check("erin", token)).toBe(Allowed.ALLOWED_FALSE);
    expect(await listWorkspaces("frank", token)).toEqual([workspaceId]);

    // A millisecond before the expiry it still holds; at the expiry it no longer does.
    clock = expiresAt.getTime() - 1;
    expect(await check("frank", token)).toBe(Allowed.ALLOWED_TRUE);
    clock = expiresAt.getTime();
    expect(await check("frank", token)).toBe(Allowed.ALLOWED_FALSE);
    // Lookups are cached per revision; an expiry changes the answer without a new one.
    expect(await listWorkspaces("frank", token)).toEqual([]);
    expect(await check("frank")).toBe(Allowed.ALLOWED_FALSE);
  });

  it("by-subject PUT grants until expires_at, shows it, and a PUT without it makes the grant permanent", async () => {
    const expiresAt = new Date(clock + HOUR);
    const put = await http("PUT", putPath(), { roles: [{ id: roleId }], expires_at: expiresAt.toISOString() });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(put.json.expires_at).toBe(expiresAt.toISOString());
    expect(await check("frank", put.token!)).toBe(Allowed.ALLOWED_TRUE);

    const permanent = await http("PUT", putPath(), { roles: [{ id: roleId }] });
    expect(permanent.status).toBe(200);
    expect(permanent.json.expires_at).toBeUndefined();
    clock = expiresAt.getTime() + HOUR;
    expect(await check("frank", permanent.token!)).toBe(Allowed.ALLOWED_TRUE);
  });
});
