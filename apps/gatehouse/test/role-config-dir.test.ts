// The all-in-one server on the public role-configuration repository snapshot (stage): roles
// seeded from it, its schema in the engine, and its identity on both services.
import { credentials, Metadata } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceClient } from "@gatehouse/proto";
import { loadConfigDirectory } from "@gatehouse/role-config";
import { rbacConfigRepoEnv } from "@gatehouse/role-config/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { identityHttp } from "./support/identity-http.js";

const ORG = "cfg-org";
const dir = rbacConfigRepoEnv("stage");
let gh: RunningGatehouse;
let grpc: KesselInventoryServiceClient;
let base = "";

const http = identityHttp(() => base, ORG);

function check(workspace: string, relation: string, user: string): Promise<boolean> {
  return new Promise((resolve, reject) =>
    grpc.check(
      {
        object: { resourceType: "workspace", resourceId: workspace, reporter: { type: "rbac" } },
        relation,
        subject: { resource: { resourceType: "principal", resourceId: `redhat/${user}`, reporter: { type: "rbac" } } },
        consistency: { atLeastAsFresh: { token: http.token } },
      },
      new Metadata(),
      (e, r) => (e ? reject(e) : resolve(r!.allowed === Allowed.ALLOWED_TRUE)),
    ),
  );
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  gh = await startGatehouse(
    { dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "prod", roleConfigDir: dir, seedDemo: false },
    createSilentLogger(),
  );
  base = `http://127.0.0.1:${gh.ports.http}`;
  grpc = new KesselInventoryServiceClient(`127.0.0.1:${gh.ports.grpc}`, credentials.createInsecure());
  ids["default"] = (await http("GET", "/api/rbac/v2/workspaces/?type=default")).json.data[0].id;
  await http("GET", "/api/rbac/v2/workspaces/?type=root", undefined, "erin");
  for (const name of ["Team", "Other"]) {
    const ws = await http("POST", "/api/rbac/v2/workspaces/", { name, description: "cfg", parent_id: ids["default"] });
    expect(ws.status, JSON.stringify(ws.json)).toBe(201);
    ids[name] = ws.json.id;
  }
});

afterAll(async () => {
  grpc?.close();
  await gh?.stop();
});

describe("GATEHOUSE_ROLE_CONFIG / --role-config on the rbac-config snapshot", () => {
  it("seeds the repository's 62 stage roles", async () => {
    const roles = await gh.store.roles.list(ORG, { kinds: ["seeded"], limit: -1 });
    expect(roles.count).toBe(62);
    expect(roles.data.map((r) => r.name)).toContain("Patch administrator");
  });

  it("a user bound to a real application's role gets that application's permission at the right level", async () => {
    const role = (await gh.store.roles.list(ORG, { kinds: ["seeded"], name: "Patch administrator" })).data[0]!;
    const group = await http("POST", "/api/rbac/v1/groups/", { name: "patchers", description: "cfg" });
    expect(group.status, JSON.stringify(group.json)).toBe(201);
    const groupId = group.json.uuid ?? group.json.id;
    expect((await http("POST", `/api/rbac/v1/groups/${groupId}/principals/`, { principals: [{ username: "erin" }] })).status).toBe(200);
    const bound = await http("POST", "/api/rbac/v2/role-bindings:batchCreate/", {
      requests: [{ resource: { id: ids["Team"], type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: role.id } }],
    });
    expect(bound.status, JSON.stringify(bound.json)).toBe(201);
    expect(await check(ids["Team"]!, "patch_system_edit_assigned", "erin")).toBe(true);
    expect(await check(ids["Other"]!, "patch_system_edit_assigned", "erin")).toBe(false);
    expect(await check(ids["default"]!, "patch_system_edit_assigned", "erin")).toBe(false);
    expect(await check(ids["Team"]!, "patch_system_edit_assigned", "frank")).toBe(false);
  });

  it("platform-default roles reach every user through the default group (Patch viewer: patch:*:read)", async () => {
    await http("GET", "/api/rbac/v2/workspaces/?type=root", undefined, "frank");
    expect(await check(ids["Other"]!, "patch_system_view_assigned", "frank")).toBe(true);
    expect(await check(ids["default"]!, "patch_system_view_assigned", "frank")).toBe(true);
  });

  it("both services report the active configuration's identity on an endpoint and in a metric", async () => {
    const expected = loadConfigDirectory(dir).identity.hash;
    const management = (await (await fetch(`${base}/role-config`)).json()) as { loaded_at: string };
    expect(management).toMatchObject({ hash: expected, system_roles: 62 });
    // No port names a path of the server: the engine's HTTP port also serves the public HTTP/JSON API.
    expect(management).not.toHaveProperty("dir");
    expect(Date.parse(management.loaded_at)).not.toBeNaN();
    const engine = await (await fetch(`http://127.0.0.1:${gh.ports.metrics}/role-config`)).json();
    expect(engine).toMatchObject({ hash: expected });
    expect(engine).not.toHaveProperty("dir");
    const engineMetrics = await (await fetch(`http://127.0.0.1:${gh.ports.metrics}/metrics`)).text();
    expect(engineMetrics).toContain(`gatehouse_engine_role_config_info{hash="${expected}"} 1`);
    const managementMetrics = await (await fetch(`${base}/metrics`)).text();
    expect(managementMetrics).toContain(`gatehouse_management_role_config_info{hash="${expected}"} 1`);
    expect(`${engineMetrics}${managementMetrics}`).not.toContain(dir);
  });
});
