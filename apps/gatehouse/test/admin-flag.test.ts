// An organisation admin's flag follows the identity at once: a user seen as non-admin, admin and
// non-admin again is answered as what it was last seen as, by the management API, explain and the
// engine's CheckForUpdate, on the all-in-one server and on a second management API replica.
import { credentials, Metadata } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceClient } from "@gatehouse/proto";
import { createSilentLogger } from "@gatehouse/telemetry";
import { buildServer } from "@gatehouse/management-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";

const ORG = "admin-flag-org";
const DOMAIN = "redhat";
const V1 = "/api/rbac/v1";
const V2 = "/api/rbac/v2";

let gh: RunningGatehouse;
let grpc: KesselInventoryServiceClient;
let defaultWorkspace: string;

async function http(base: string, method: string, path: string, user: string, admin: boolean, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "x-rh-identity": demoIdentityHeader(ORG, user, admin), ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const primary = () => `http://127.0.0.1:${gh.ports.http}`;

function checkForUpdate(user: string): Promise<Allowed> {
  const request = {
    object: { resourceType: "workspace", resourceId: defaultWorkspace, reporter: { type: "rbac" } },
    relation: "rbac_roles_write",
    subject: { resource: { resourceType: "principal", resourceId: `${DOMAIN}/${user}`, reporter: { type: "rbac" } } },
  };
  const call = grpc.checkForUpdate as unknown as (req: unknown, md: Metadata, cb: (e: Error | null, r?: { allowed: Allowed }) => void) => unknown;
  return new Promise((resolve, reject) => call.call(grpc, request, new Metadata(), (e, r) => (e ? reject(e) : resolve(r!.allowed))));
}

/** What each surface says about `user` holding admin rights, asked by an admin who is not `user`. */
async function seenAsAdmin(base: string, user: string): Promise<{ explain: boolean; access: boolean; checkForUpdate: boolean }> {
  const explain = await http(base, "POST", `${V2}/access:explain/`, "alice", true, { subject: { type: "user", id: user }, permission: "rbac_roles_write", resource: { type: "tenant" } });
  expect(explain.status).toBe(200);
  const access = await http(base, "GET", `${V1}/access/?application=rbac&username=${user}&limit=1000`, "alice", true);
  expect(access.status).toBe(200);
  return {
    explain: explain.json.allowed,
    access: access.json.data.some((a: { permission: string }) => a.permission.startsWith("rbac:")),
    checkForUpdate: (await checkForUpdate(user)) === Allowed.ALLOWED_TRUE,
  };
}

const all = (admin: boolean) => ({ explain: admin, access: admin, checkForUpdate: admin });

beforeAll(async () => {
  gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: DOMAIN, env: "stage", seedDemo: false }, createSilentLogger());
  grpc = new KesselInventoryServiceClient(`127.0.0.1:${gh.ports.grpc}`, credentials.createInsecure());
  defaultWorkspace = (await http(primary(), "GET", `${V2}/workspaces/?type=default`, "alice", true)).json.data[0].id;
});

afterAll(async () => {
  grpc?.close();
  await gh?.stop();
});

describe("the admin flag of the identity", () => {
  it("takes effect at once each time it changes (non-admin, admin, non-admin)", async () => {
    for (const admin of [false, true, false]) {
      expect((await http(primary(), "GET", `${V2}/workspaces/?type=default`, "dave", admin)).status).toBe(200);
      expect(await seenAsAdmin(primary(), "dave")).toEqual(all(admin));
    }
  });
});

describe("the admin flag on two management API replicas", () => {
  let replica: { baseUrl: string; stop(): Promise<void> };
  beforeAll(async () => {
    const server = buildServer({ port: 0, host: "127.0.0.1", domain: DOMAIN, env: "stage", trustIdentityHeader: true }, { store: gh.store, logger: createSilentLogger() });
    const { port } = await server.start();
    replica = { baseUrl: `http://127.0.0.1:${port}`, stop: () => server.stop() };
  });
  afterAll(async () => replica?.stop());

  it("answers on either replica as the identity last seen on any of them", async () => {
    // Each replica sees each state once, so neither can answer from what it saw itself before.
    const steps: Array<[() => string, boolean]> = [
      [primary, false],
      [() => replica.baseUrl, false],
      [primary, true],
      [() => replica.baseUrl, true],
      [primary, false],
      [() => replica.baseUrl, false],
      [primary, true],
    ];
    for (const [base, admin] of steps) {
      expect((await http(base(), "GET", `${V2}/workspaces/?type=default`, "erin", admin)).status).toBe(200);
      expect(await seenAsAdmin(primary(), "erin")).toEqual(all(admin));
      expect(await seenAsAdmin(replica.baseUrl, "erin")).toEqual(all(admin));
    }
  });
});
