// The console's own npm client (@redhat-cloud-services/rbac-client, pinned) against the all-in-one
// server, in the sequence an administrator follows in the console: create a group, add a
// principal, create a custom role limited to an inventory group (workspace), add it to the group;
// the principal's v1 /access/ and a gRPC Check then both show the grant. Then v2 is activated and
// v1 role writes are refused with upstream's words.
import { credentials, Metadata } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceClient } from "@gatehouse/proto";
import { createSilentLogger } from "@gatehouse/telemetry";
import { RbacClient } from "@redhat-cloud-services/rbac-client/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";

const ORG = "rbac-client-org";
const TOKEN_HEADER = "x-gatehouse-consistency-token";

let gh: RunningGatehouse;
let grpc: KesselInventoryServiceClient;
/** The client's answers (its generated types do not resolve from the published package: `data` is untyped here). */
type Answer = { data: any; headers: Record<string, unknown>; status: number };
type Call = (params: unknown) => Promise<Answer>;
interface Client {
  createGroup: Call;
  addPrincipalToGroup: Call;
  createRole: Call;
  getRoleAccess: Call;
  addRoleToGroup: Call;
  listRolesForGroup: Call;
  getPrincipalAccess: Call;
  patchRole: Call;
  updateRole: Call;
  updateGroup: Call;
  getAuditlogs: Call;
  deleteRoleFromGroup: Call;
}
let rbac: Client;
const json = async (response: Promise<Response>): Promise<Answer["data"]> => (await response).json();
let base: string;
const as = (user: string, admin = false) => ({ headers: { "x-rh-identity": demoIdentityHeader(ORG, user, admin) } });
const admin = as("ada", true);

function check(workspaceId: string, user: string, token: string): Promise<Allowed> {
  const request = {
    object: { resourceType: "workspace", resourceId: workspaceId, reporter: { type: "rbac" } },
    relation: "inventory_host_update",
    subject: { resource: { resourceType: "principal", resourceId: `redhat/${user}`, reporter: { type: "rbac" } } },
    consistency: { atLeastAsFresh: { token } },
  };
  const call = grpc.check as unknown as (req: unknown, md: Metadata, opts: object, cb: (e: Error | null, r?: { allowed: Allowed }) => void) => unknown;
  return new Promise((resolve, reject) => call.call(grpc, request, new Metadata(), {}, (e, r) => (e ? reject(e) : resolve(r!.allowed))));
}

/** The status of a refused call (axios throws on 4xx). */
async function refusal(call: Promise<unknown>): Promise<{ status: number; detail: string }> {
  try {
    await call;
  } catch (e) {
    const response = (e as { response?: { status: number; data: { errors?: { detail: string }[] } } }).response;
    return { status: response?.status ?? 0, detail: response?.data.errors?.[0]?.detail ?? "" };
  }
  throw new Error("the call was not refused");
}

beforeAll(async () => {
  gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", seedDemo: false }, createSilentLogger());
  base = `http://127.0.0.1:${gh.ports.http}`;
  grpc = new KesselInventoryServiceClient(`127.0.0.1:${gh.ports.grpc}`, credentials.createInsecure());
  rbac = RbacClient(`${base}/api/rbac/v1`) as unknown as typeof rbac;
  // Principals are recorded on their first authenticated request.
  for (const who of [admin, as("bob")]) await fetch(`${base}/api/rbac/v2/workspaces/?type=default`, who);
});

afterAll(async () => {
  grpc?.close();
  await gh?.stop();
});

describe("the console's rbac-client against v1 writes", () => {
  it("group, principal, custom role with resource definitions, role on group: v1 access and a gRPC Check agree; v2 activation ends v1 role writes", async () => {
    const defaultWs = (await json(fetch(`${base}/api/rbac/v2/workspaces/?type=default`, admin))).data[0].id as string;
    const created = fetch(`${base}/api/rbac/v2/workspaces/`, {
      method: "POST",
      headers: { ...admin.headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "Edge", parent_id: defaultWs }),
    });
    const ws = (await json(created)).id as string;

    const group = (await rbac.createGroup({ group: { name: "Edge operators", description: "edge" }, options: admin })).data;
    expect(group).toMatchObject({ name: "Edge operators", principalCount: 0 });
    const withBob = (await rbac.addPrincipalToGroup({ uuid: group.uuid, groupPrincipalIn: { principals: [{ username: "bob" }] }, options: admin })).data;
    expect(withBob.principals?.map((p: { username: string }) => p.username)).toEqual(["bob"]);

    const access = [{ permission: "inventory:hosts:write", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "in" as const, value: [ws] } }] }];
    const role = (await rbac.createRole({ roleIn: { name: "Edge host editor", access }, options: admin })).data;
    expect(role).toMatchObject({ name: "Edge host editor", system: false, access });
    expect((await rbac.getRoleAccess({ uuid: role.uuid, options: admin })).data.data).toEqual(access);

    const added = await rbac.addRoleToGroup({ uuid: group.uuid, groupRoleIn: { roles: [role.uuid] }, options: admin });
    expect(added.data.data?.map((r: { uuid: string }) => r.uuid)).toEqual([role.uuid]);
    const token = String(added.headers[TOKEN_HEADER]);
    expect((await rbac.listRolesForGroup({ uuid: group.uuid, options: admin })).data.data.map((r: { uuid: string }) => r.uuid)).toEqual([role.uuid]);

    // v1: bob's access lists the permission limited to the workspace; v2: a Check on it allows.
    const bobAccess = (await rbac.getPrincipalAccess({ application: "inventory", options: as("bob") })).data.data;
    expect(bobAccess).toContainEqual({ permission: "inventory:hosts:write", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "in", value: [ws] } }] });
    expect(await check(ws, "bob", token)).toBe(Allowed.ALLOWED_TRUE);
    expect(await check(defaultWs, "bob", token)).toBe(Allowed.ALLOWED_FALSE);

    // Edits through the client keep v1 and v2 together.
    const renamed = (await rbac.patchRole({ uuid: role.uuid, rolePatch: { display_name: "Edge hosts (write)" }, options: admin })).data;
    expect(renamed.display_name).toBe("Edge hosts (write)");
    await rbac.updateRole({ uuid: role.uuid, rolePut: { name: "Edge host editor", access: [{ permission: "inventory:hosts:write", resourceDefinitions: [] }] }, options: admin });
    expect((await json(fetch(`${base}/api/rbac/v1/roles/${role.uuid}/`, admin))).access).toEqual([{ permission: "inventory:hosts:write", resourceDefinitions: [] }]);
    const afterPut = String((await rbac.updateGroup({ uuid: group.uuid, group: { name: "Edge ops" }, options: admin })).headers[TOKEN_HEADER]);
    expect(await check(defaultWs, "bob", afterPut)).toBe(Allowed.ALLOWED_TRUE);
    const logs = (await rbac.getAuditlogs({ orderBy: "created", options: admin })).data;
    expect(logs.data.map((l: { resource_type: string; action: string }) => `${l.resource_type}:${l.action}`)).toEqual([
      "group:create",
      "group:add",
      "role:create",
      "group:add",
      "role:edit",
      "role:edit",
      "group:edit",
    ]);

    // v2 activation (the organisation's first v2 role-binding write), then v1 role writes are refused.
    const binding = await fetch(`${base}/api/rbac/v2/role-bindings:batchCreate/`, {
      method: "POST",
      headers: { ...admin.headers, "content-type": "application/json" },
      body: JSON.stringify({ requests: [{ resource: { id: ws, type: "workspace" }, subject: { id: group.uuid, type: "group" }, role: { id: role.uuid } }] }),
    });
    expect(binding.status).toBe(201);
    expect(await refusal(rbac.createRole({ roleIn: { name: "Too late", access: [] }, options: admin }))).toEqual({
      status: 403,
      detail: "V1 write operations are not allowed for orgs using workspaces.",
    });
    expect(await refusal(rbac.deleteRoleFromGroup({ uuid: group.uuid, roles: role.uuid, options: admin }))).toEqual({
      status: 403,
      detail: "V1 role-to-group assignment operations are not allowed for orgs using workspaces. Use v2 role bindings instead.",
    });
    // Groups stay writable in v2 mode, as upstream.
    expect((await rbac.updateGroup({ uuid: group.uuid, group: { name: "Edge team" }, options: admin })).status).toBe(200);
  });
});
