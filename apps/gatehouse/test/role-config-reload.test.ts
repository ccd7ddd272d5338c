// Changing the role configuration while running: a reload through the management API's admin
// endpoint is applied atomically and picked up by the engine from the change feed (no restart);
// a reload that would remove what stored relationships use is refused, naming it, changing nothing.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials, Metadata } from "@grpc/grpc-js";
import { buildServer as buildManagementApi } from "@gatehouse/management-api";
import { Allowed, KesselInventoryServiceClient } from "@gatehouse/proto";
import { rbacConfigRepoDir } from "@gatehouse/role-config/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { identityHttp } from "./support/identity-http.js";

const ORG = "reload-org";
const scratch = mkdtempSync(join(tmpdir(), "reload-repo-"));
const dir = join(scratch, "configs/stage");
let gh: RunningGatehouse;
let grpc: KesselInventoryServiceClient;
let base = "";
let team = "";
let roleId = "";

const http = identityHttp(() => base, ORG);

/**
 * Check over gRPC at least as fresh as the last write; an unknown permission is an error, not a
 * grant. V1-only permissions (applications not migrated) exist on the role itself.
 */
function check(relation: string, user: string, on: "workspace" | "role" = "role"): Promise<boolean | string> {
  return new Promise((resolve) =>
    grpc.check(
      {
        object: { resourceType: on, resourceId: on === "role" ? roleId : team, reporter: { type: "rbac" } },
        relation,
        subject: { resource: { resourceType: "principal", resourceId: `redhat/${user}`, reporter: { type: "rbac" } } },
        consistency: { atLeastAsFresh: { token: http.token } },
      },
      new Metadata(),
      (e, r) => resolve(e ? `error ${e.code}` : r!.allowed === Allowed.ALLOWED_TRUE),
    ),
  );
}

const editJson = (file: string, change: (data: any) => void): void => {
  const path = join(dir, file);
  const data = JSON.parse(readFileSync(path, "utf8"));
  change(data);
  writeFileSync(path, JSON.stringify(data, null, 2));
};

beforeAll(async () => {
  cpSync(rbacConfigRepoDir(), scratch, { recursive: true });
  gh = await startGatehouse(
    { dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", roleConfigDir: dir, seedDemo: false },
    createSilentLogger(),
  );
  base = `http://127.0.0.1:${gh.ports.http}`;
  grpc = new KesselInventoryServiceClient(`127.0.0.1:${gh.ports.grpc}`, credentials.createInsecure());
  const defaultWs = (await http("GET", "/api/rbac/v2/workspaces/?type=default")).json.data[0].id;
  await http("GET", "/api/rbac/v2/workspaces/?type=root", undefined, "erin");
  team = (await http("POST", "/api/rbac/v2/workspaces/", { name: "Team", description: "reload", parent_id: defaultWs })).json.id;
  const group = await http("POST", "/api/rbac/v1/groups/", { name: "cost people", description: "reload" });
  const groupId = group.json.uuid ?? group.json.id;
  await http("POST", `/api/rbac/v1/groups/${groupId}/principals/`, { principals: [{ username: "erin" }] });
  const role = (await gh.store.roles.list(ORG, { kinds: ["seeded"], name: "Cost Price List Viewer" })).data[0]!;
  roleId = role.id;
  const bound = await http("POST", "/api/rbac/v2/role-bindings:batchCreate/", {
    requests: [{ resource: { id: team, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: role.id } }],
  });
  expect(bound.status, JSON.stringify(bound.json)).toBe(201);
});

afterAll(async () => {
  grpc?.close();
  await gh?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("role configuration reload", () => {
  it("an unchanged configuration reloads with no role rewritten, no new revision and no path of the server", async () => {
    const head = await gh.store.feed.headRevision();
    const loadedAt = ((await (await fetch(`${base}/role-config`)).json()) as { loaded_at: string }).loaded_at;
    for (let i = 0; i < 2; i++) {
      const res = await http("POST", "/role-config/reload");
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json).toMatchObject({ changed: false, added: [], removed: [], seeding: { created: [], updated: [] } });
      expect(res.json.seeding.unchanged).toHaveLength(62);
      expect(res.json.revision).toBe(head);
      expect(JSON.stringify(res.json)).not.toContain(scratch);
      expect(res.json).not.toHaveProperty("dir");
    }
    expect(await gh.store.feed.headRevision()).toBe(head);
    const info = await (await fetch(`${base}/role-config`)).text();
    expect(info).not.toContain(scratch);
    expect((JSON.parse(info) as { loaded_at: string }).loaded_at).toBe(loadedAt);
  });

  it("a reload that adds a permission (and raises the role's version) is visible in Check without a restart", async () => {
    expect(await check("cost_management_cost_model_read", "erin")).toBe(true);
    expect(await check("cost_management_budgets_read", "erin")).toBe("error 3"); // not in the running schema
    const hashBefore = ((await (await fetch(`${base}/role-config`)).json()) as { hash: string }).hash;
    editJson("permissions/cost-management.json", (d) => (d.budgets = [{ verb: "read", description: "Read budgets" }]));
    editJson("roles/cost-management.json", (d) => {
      const role = d.roles.find((r: { name: string }) => r.name === "Cost Price List Viewer");
      role.version += 1;
      role.access.push({ permission: "cost-management:budgets:read" });
    });
    const res = await http("POST", "/role-config/reload");
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.added).toContain("relation rbac/role#t_cost_management_budgets_read");
    expect(res.json.seeding.updated).toEqual([{ name: "Cost Price List Viewer", from: 5, to: 6 }]);
    expect(res.json.hash).not.toBe(hashBefore);
    expect(await check("cost_management_budgets_read", "erin")).toBe(true);
    expect(await check("cost_management_cost_model_read", "erin")).toBe(true);
    // The role (and so every binding of it) now carries the new permission.
    const tuples = await gh.store.relationships.read(ORG, { includePublic: true, resourceType: "rbac/role", resourceId: roleId });
    expect(tuples.map((t) => t.relation)).toContain("t_cost_management_budgets_read");
    const engine = await (await fetch(`http://127.0.0.1:${gh.ports.metrics}/metrics`)).text();
    expect(engine).toContain("gatehouse_engine_applied_revision");
    expect(((await (await fetch(`${base}/role-config`)).json()) as { hash: string }).hash).toBe(res.json.hash);
    // The engine reports the configuration it switched to (read once the switch is done).
    await expect.poll(async () => ((await (await fetch(`http://127.0.0.1:${gh.ports.metrics}/role-config`)).json()) as { hash: string }).hash).toBe(res.json.hash);
  });

  it("a reload that would remove a relation stored relationships use is refused, naming it, and changes nothing", async () => {
    const before = await (await fetch(`${base}/role-config`)).json();
    const head = await gh.store.feed.headRevision();
    // Drop the cost-management catalogue and its roles: the seeded roles (and their tuples) stay.
    rmSync(join(dir, "permissions/cost-management.json"));
    rmSync(join(dir, "roles/cost-management.json"));
    const res = await http("POST", "/role-config/reload");
    expect(res.status).toBe(409);
    expect(res.json.detail).toMatch(/removes schema elements that stored relationships still use: .*relation rbac\/role#t_cost_management_cost_model_read/);
    expect(res.json.errors.map((e: { message: string }) => e.message)).toContain("still used: relation rbac/role#t_cost_management_cost_model_read");
    expect(await gh.store.feed.headRevision()).toBe(head);
    expect(await (await fetch(`${base}/role-config`)).json()).toEqual(before);
    expect(await check("cost_management_budgets_read", "erin")).toBe(true);
  });

  it("a restart on those files is refused the same way (after a reload, the recorded configuration is the reference)", async () => {
    const second = buildManagementApi({ port: 0, host: "127.0.0.1", logLevel: "silent", roleConfigDir: dir }, { store: gh.store });
    await expect(second.start()).rejects.toThrow(/still use: .*relation rbac\/role#t_cost_management_cost_model_read/);
  });

  it("an invalid configuration is refused with every problem (file and JSON path)", async () => {
    editJson("roles/patch.json", (d) => delete d.roles[0].version);
    const res = await http("POST", "/role-config/reload");
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: { message: string }) => e.message)).toContain("stage/roles/patch.json $.roles[0]: invalid-role-file must have required property 'version'");
  });
});
