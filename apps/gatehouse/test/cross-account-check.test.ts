// A cross-account request seen by the engine: once the target organisation's admin approves it, the
// associate holds the request's role in the target organisation through the engine's gRPC Check, and
// not after its end date. The server runs on the test's clock: the end is reached by moving it.
import { encodeIdentityHeader } from "@gatehouse/auth";
import { credentials, Metadata } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceClient } from "@gatehouse/proto";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";

const DOMAIN = "redhat";
const TARGET = "xa-engine-target";
const DAY = 86_400_000;
const TOKEN_HEADER = "x-gatehouse-consistency-token";
const URL = "/api/rbac/v1/cross-account-requests/";

let gh: RunningGatehouse;
let grpc: KesselInventoryServiceClient;
let clock = Date.parse("2030-05-04T12:00:00.000Z");

const usDate = (time: number) => {
  const d = new Date(time);
  return `${String(d.getUTCMonth() + 1).padStart(2, "0")}/${String(d.getUTCDate()).padStart(2, "0")}/${d.getUTCFullYear()}`;
};

const associate = encodeIdentityHeader({
  orgId: "xa-engine-home",
  userId: "assoc-engine",
  username: "assoc-engine@redhat.com",
  email: "assoc-engine@redhat.com",
  isInternal: true,
});

async function http(method: string, path: string, identity: string, body?: unknown): Promise<{ status: number; json: any; token: string | null }> {
  const res = await fetch(`http://127.0.0.1:${gh.ports.http}${path}`, {
    method,
    headers: { "x-rh-identity": identity, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, token: res.headers.get(TOKEN_HEADER) };
}

/** `rbac_principal_read` on the target's tenant, as the engine answers it for a principal. */
function check(userId: string, token?: string): Promise<Allowed> {
  const request = {
    object: { resourceType: "tenant", resourceId: `${DOMAIN}/${TARGET}`, reporter: { type: "rbac" } },
    relation: "rbac_principal_read",
    subject: { resource: { resourceType: "principal", resourceId: `${DOMAIN}/${userId}`, reporter: { type: "rbac" } } },
    ...(token ? { consistency: { atLeastAsFresh: { token } } } : {}),
  };
  const call = grpc.check as unknown as (req: unknown, md: Metadata, opts: object, cb: (e: Error | null, r?: { allowed: Allowed }) => void) => unknown;
  return new Promise((resolve, reject) => call.call(grpc, request, new Metadata(), {}, (e, r) => (e ? reject(e) : resolve(r!.allowed))));
}

beforeAll(async () => {
  gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: DOMAIN, env: "stage", seedDemo: false }, createSilentLogger(), {
    now: () => clock,
  });
  grpc = new KesselInventoryServiceClient(`127.0.0.1:${gh.ports.grpc}`, credentials.createInsecure());
  await http("GET", "/api/rbac/v2/workspaces/?type=root", demoIdentityHeader(TARGET, "target-admin", true));
  await http("GET", "/api/rbac/v2/workspaces/?type=root", associate);
});

afterAll(async () => {
  grpc?.close();
  await gh?.stop();
});

describe("an approved cross-account request in the engine's Check", () => {
  it("allows the request's role in the target organisation from approval to the end date, and nothing before approval", async () => {
    const created = await http("POST", URL, associate, {
      target_org: TARGET,
      start_date: usDate(clock),
      end_date: usDate(clock + 3 * DAY),
      roles: ["User Access principal viewer"],
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(await check("assoc-engine", created.token ?? undefined)).toBe(Allowed.ALLOWED_FALSE);

    const approved = await http("PATCH", `${URL}${created.json.request_id}/`, demoIdentityHeader(TARGET, "target-admin", true), { status: "approved" });
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.token).toBeTruthy();
    // The approval's token: the engine answers at least at the write that granted the role.
    expect(await check("assoc-engine", approved.token!)).toBe(Allowed.ALLOWED_TRUE);
    // Someone else of the same home organisation holds nothing there.
    expect(await check("assoc-other", approved.token!)).toBe(Allowed.ALLOWED_FALSE);

    clock += 4 * DAY;
    expect(await check("assoc-engine", approved.token!)).toBe(Allowed.ALLOWED_FALSE);
  });
});
