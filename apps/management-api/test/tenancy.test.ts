import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

const V1 = "/api/rbac/v1";

// The same isolation suite on embedded PGlite and on real Postgres (own schema, dropped after).
describe.each(["pglite", "pg"] as const)("tenant isolation on %s", (backend) => {
  let app: TestApp;
  const alice = { org: "tenant-a", user: "alice", admin: true };
  const mallory = { org: "tenant-b", user: "mallory", admin: true };
  let aWorkspace: string;
  let aRole: string;
  let aGroup: string;
  let aDefault: string;

  beforeAll(async () => {
    app = await startApp({}, { backend });
    aDefault = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: alice })).body.data[0].id;
    aWorkspace = (await app.request("POST", `${V2}/workspaces/`, { as: alice, body: { name: "A only" } })).body.id;
    aRole = (
      await app.request("POST", `${V2}/roles/`, {
        as: alice,
        body: { name: "A role", permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] },
      })
    ).body.id;
    aGroup = (await app.request("POST", `${V1}/groups/`, { as: alice, body: { name: "A group" } })).body.uuid;
  });
  afterAll(() => app?.stop());

  it("gives each organisation its own root and default", async () => {
    const bDefault = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: mallory })).body.data[0].id;
    expect(bDefault).not.toBe(aDefault);
  });

  it("does not let another organisation read anything", async () => {
    expect((await app.request("GET", `${V2}/workspaces/${aWorkspace}/`, { as: mallory })).status).toBe(404);
    const list = await app.request("GET", `${V2}/workspaces/?limit=-1`, { as: mallory });
    expect(list.body.data.map((w: { id: string }) => w.id)).not.toContain(aWorkspace);
    const byIds = await app.request("GET", `${V2}/workspaces/?ids=${aWorkspace}`, { as: mallory });
    expect(byIds.body.meta.count).toBe(0);
    expect((await app.request("GET", `${V2}/roles/${aRole}/`, { as: mallory })).status).toBe(404);
    const roles = await app.request("GET", `${V2}/roles/?limit=-1`, { as: mallory });
    expect(roles.body.data.map((r: { id: string }) => r.id)).not.toContain(aRole);
    expect((await app.request("GET", `${V1}/groups/${aGroup}/`, { as: mallory })).status).toBe(404);
    // A workspace filter naming another organisation's workspace matches nothing, as an unknown id does (insights-rbac: an empty list).
    const foreignFilter = await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${aWorkspace}`, { as: mallory });
    expect([foreignFilter.status, foreignFilter.body.data]).toEqual([200, []]);
    expect((await app.request("GET", `${V2}/role-bindings/?resource.tenant.org_id=tenant-a`, { as: mallory })).status).toBe(404);
  });

  it("does not let another organisation change anything", async () => {
    expect((await app.request("PATCH", `${V2}/workspaces/${aWorkspace}/`, { as: mallory, body: { name: "pwned" } })).status).toBe(404);
    expect((await app.request("DELETE", `${V2}/workspaces/${aWorkspace}/`, { as: mallory })).status).toBe(404);
    expect((await app.request("POST", `${V2}/workspaces/${aWorkspace}/move/`, { as: mallory, body: { parent_id: aDefault } })).status).toBe(404);
    const under = await app.request("POST", `${V2}/workspaces/`, { as: mallory, body: { name: "Inside A", parent_id: aWorkspace } });
    expect(under.status).toBe(400);
    expect(
      (
        await app.request("PUT", `${V2}/roles/${aRole}/`, {
          as: mallory,
          body: { name: "x", permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] },
        })
      ).status,
    ).toBe(404);
    expect((await app.request("POST", `${V2}/roles:batchDelete/`, { as: mallory, body: { ids: [aRole] } })).status).toBe(404);
    const bind = await app.request("POST", `${V2}/role-bindings:batchCreate/`, {
      as: mallory,
      body: { requests: [{ resource: { id: aWorkspace, type: "workspace" }, subject: { id: aGroup, type: "group" }, role: { id: aRole } }] },
    });
    // insights-rbac checks roles before subjects and resources: another tenant's role is unknown here.
    expect(bind.status).toBe(400);
    expect(bind.body.errors[0].field).toBe("roles");
    expect((await app.request("DELETE", `${V1}/groups/${aGroup}/`, { as: mallory })).status).toBe(404);

    // Everything of A is unchanged.
    const ws = await app.request("GET", `${V2}/workspaces/${aWorkspace}/`, { as: alice });
    expect(ws.body.name).toBe("A only");
    expect((await app.request("GET", `${V2}/roles/${aRole}/`, { as: alice })).body.name).toBe("A role");
    const bindings = await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${aWorkspace}&exclude_sources=indirect`, { as: alice });
    expect(bindings.body.data).toHaveLength(0);
  });

  it("counts a user's grants in another organisation as no access here", async () => {
    // User ids are global: the same user reads workspaces in tenant-a through its default access.
    const carol = { org: "tenant-c", user: "carol", admin: true };
    const roamerInA = { org: "tenant-a", user: "roamer", admin: false };
    const roamerInC = { org: "tenant-c", user: "roamer", admin: false };
    expect((await app.request("GET", `${V2}/workspaces/`, { as: roamerInA })).status).toBe(200);
    // tenant-c's default access is unbound, so roamer holds nothing there.
    const group = (await app.request("GET", `${V1}/groups/?name=Default access`, { as: carol })).body.data[0].uuid;
    const roots = (await app.request("GET", `${V2}/workspaces/?type=root,default`, { as: carol })).body.data as { id: string; type: string }[];
    const root = roots.find((w) => w.type === "root")!.id;
    const unbind = await app.request("PUT", `${V2}/role-bindings/by-subject/?resource_id=${root}&resource_type=workspace&subject_id=${group}&subject_type=group`, {
      as: carol,
      body: { roles: [] },
    });
    expect(unbind.status).toBe(200);
    expect((await app.request("GET", `${V2}/workspaces/`, { as: roamerInC })).status).toBe(403);
    // With ancestry, upstream's fallback: the organisation's built-in workspaces.
    const fallback = await app.request("GET", `${V2}/workspaces/?with_ancestry=true`, { as: roamerInC });
    expect(fallback.status).toBe(200);
    expect(fallback.body.data.map((w: { id: string }) => w.id).sort()).toEqual(roots.map((w) => w.id).sort());
  });

  it("rejects an org header that does not match the identity", async () => {
    const res = await app.request("GET", `${V2}/workspaces/`, { as: alice, headers: { "x-rh-rbac-org-id": "tenant-b" } });
    expect(res.status).toBe(403);
  });
});
