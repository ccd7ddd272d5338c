import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

// Authorization is decided by the evaluator over Gatehouse's own schema and tuples.
let app: TestApp;
const admin = { org: "az1", user: "az-admin", admin: true };
const bob = { org: "az1", user: "bob" };
const V1 = "/api/rbac/v1";
let rootId: string;
let secret: string;
let mid: string;
let leaf: string;

const create = async (name: string, parentId: string) => (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name, parent_id: parentId } })).body.id as string;

beforeAll(async () => {
  app = await startApp({ allowChildrenUnderRoot: true });
  rootId = (await app.request("GET", `${V2}/workspaces/?type=root`, { as: admin })).body.data[0].id;
  // A branch beside the default workspace, outside what default access covers.
  secret = await create("Secret", rootId);
  mid = await create("Mid", secret);
  leaf = await create("Leaf", mid);
});
afterAll(() => app.stop());

const patch = (id: string, name: string) => app.request("PATCH", `${V2}/workspaces/${id}/`, { as: bob, body: { name } });
const createAs = (name: string, parentId: string) => app.request("POST", `${V2}/workspaces/`, { as: bob, body: { name, parent_id: parentId } });

describe("authorization by the evaluator", () => {
  it("gives a user without bindings only what default access grants", async () => {
    // Default access (bound at the organisation) includes inventory:groups:read.
    expect((await app.request("GET", `${V2}/workspaces/${mid}/`, { as: bob })).status).toBe(200);
    expect((await createAs("Nope", mid)).status).toBe(403);
    // A workspace the caller sees but may not edit is a 403, as in insights-rbac.
    expect((await patch(leaf, "Renamed")).status).toBe(403);
    expect((await app.request("DELETE", `${V2}/workspaces/${leaf}/`, { as: bob })).status).toBe(403);
    expect((await app.request("GET", `${V2}/roles/`, { as: bob })).status).toBe(403);
    expect((await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${mid}`, { as: bob })).status).toBe(403);
    expect((await app.request("POST", `${V1}/groups/`, { as: bob, body: { name: "Mine" } })).status).toBe(403);
  });

  it("grants through a group binding, inherited downward only, and revokes", async () => {
    const group = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "Mid editors" } })).body.uuid;
    expect((await app.request("POST", `${V1}/groups/${group}/principals/`, { as: admin, body: { principals: [{ username: "bob" }] } })).status).toBe(200);
    const role = (
      await app.request("POST", `${V2}/roles/`, {
        as: admin,
        body: {
          name: "Workspace editor",
          permissions: [
            { application: "inventory", resource_type: "groups", operation: "read" },
            { application: "inventory", resource_type: "groups", operation: "write" },
          ],
        },
      })
    ).body.id;
    const bound = await app.request("POST", `${V2}/role-bindings:batchCreate/`, {
      as: admin,
      body: { requests: [{ resource: { id: mid, type: "workspace" }, subject: { id: group, type: "group" }, role: { id: role } }] },
    });
    expect(bound.status).toBe(201);

    // The binding is visible to bob's very next request (read-your-writes through the graph).
    expect((await createAs("Bobs", mid)).status).toBe(201);
    expect((await patch(leaf, "Leaf renamed")).status).toBe(200);
    expect((await patch(mid, "Mid renamed")).status).toBe(200);
    expect((await patch(secret, "Secret renamed")).status).toBe(403);
    expect((await createAs("Above", secret)).status).toBe(403);

    const revoked = await app.request("PUT", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${mid}&subject_type=group&subject_id=${group}`, {
      as: admin,
      body: { roles: [] },
    });
    expect(revoked.status).toBe(200);
    expect((await createAs("Again", mid)).status).toBe(403);
  });

  it("lets a seeded workspace-administrator role delegate bindings below its workspace only", async () => {
    const group = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "Delegates" } })).body.uuid;
    await app.request("POST", `${V1}/groups/${group}/principals/`, { as: admin, body: { principals: [{ username: "bob" }] } });
    const seeded = await app.request("GET", `${V2}/roles/?name=Inventory Groups Administrator`, { as: admin });
    const adminRole = seeded.body.data.find((r: { name: string }) => r.name === "Inventory Groups Administrator").id;
    const viewer = (await app.request("GET", `${V2}/roles/?name=Inventory Groups Viewer`, { as: admin })).body.data[0].id;
    const grant = (resource: string, role: string, as: { org: string; user: string; admin?: boolean } = admin) =>
      app.request("POST", `${V2}/role-bindings:batchCreate/`, {
        as,
        body: { requests: [{ resource: { id: resource, type: "workspace" }, subject: { id: group, type: "group" }, role: { id: role } }] },
      });
    expect((await grant(mid, viewer, bob)).status).toBe(403);
    expect((await grant(mid, adminRole)).status).toBe(201);

    expect((await grant(leaf, viewer, bob)).status).toBe(201);
    expect((await grant(secret, viewer, bob)).status).toBe(403);
    const listed = await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${leaf}`, { as: bob });
    expect(listed.status).toBe(200);
    const replaced = await app.request("PUT", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${leaf}&subject_type=group&subject_id=${group}`, {
      as: bob,
      body: { roles: [] },
    });
    expect(replaced.status).toBe(200);
    expect((await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${secret}`, { as: bob })).status).toBe(403);
  });

  it("lets org admins do everything in their org", async () => {
    expect((await app.request("GET", `${V2}/roles/`, { as: admin })).status).toBe(200);
    expect((await app.request("GET", `${V2}/role-bindings/`, { as: admin })).status).toBe(200);
    expect((await app.request("PATCH", `${V2}/workspaces/${secret}/`, { as: admin, body: { name: "Top secret" } })).status).toBe(200);
  });
});
