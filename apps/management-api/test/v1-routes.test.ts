// v1 access and roles over the same store the v2 API writes: v2 grants show in v1 access, other
// tenants' rows stay invisible, bad input is a 4xx that changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

const V1 = "/api/rbac/v1";
const admin = { org: "v1r1", user: "v1-admin", admin: true };
const bob = { org: "v1r1", user: "v1-bob" };
const otherAdmin = { org: "v1r2", user: "v1-other", admin: true };
let app: TestApp;
let groupId: string;
let roleId: string;
let childId: string;

beforeAll(async () => {
  app = await startApp();
  await app.request("GET", `${V1}/access/?application=`, { as: bob }); // bob becomes a principal
  const defaultId = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: admin })).body.data[0].id;
  childId = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Lab", parent_id: defaultId } })).body.id;
  groupId = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "Lab users" } })).body.uuid;
  expect((await app.request("POST", `${V1}/groups/${groupId}/principals/`, { as: admin, body: { principals: [{ username: "v1-bob" }] } })).status).toBe(200);
  roleId = (
    await app.request("POST", `${V2}/roles/`, {
      as: admin,
      body: {
        name: "Lab operator",
        permissions: [
          { application: "inventory", resource_type: "hosts", operation: "read" },
          { application: "patch", resource_type: "system", operation: "read" },
        ],
      },
    })
  ).body.id;
});
afterAll(() => app.stop());

const accessOf = async (as: typeof bob, app_: string) => (await app.request("GET", `${V1}/access/?application=${app_}`, { as })).body.data;

describe("v1 access from v2 grants", () => {
  it("a grant at a sub-workspace is inventory access filtered to it; at the Default Workspace it is unfiltered", async () => {
    const bind = (resourceId: string) =>
      app.request("POST", `${V2}/role-bindings:batchCreate/`, {
        as: admin,
        body: { requests: [{ resource: { id: resourceId, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: roleId } }] },
      });
    expect((await bind(childId)).status).toBe(201);
    // (The stage configuration's default roles add their own unfiltered entries.)
    const filtered = await accessOf(bob, "inventory,patch");
    expect(filtered).toContainEqual({ permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "in", value: [childId] } }] });
    expect(filtered).not.toContainEqual({ permission: "patch:system:read", resourceDefinitions: [] });
    const defaultId = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: admin })).body.data[0].id;
    expect((await bind(defaultId)).status).toBe(201);
    const both = await accessOf(bob, "inventory,patch");
    expect(both).toContainEqual({ permission: "inventory:hosts:read", resourceDefinitions: [] });
    expect(both).toContainEqual({ permission: "patch:system:read", resourceDefinitions: [] });

    const role = await app.request("GET", `${V1}/roles/${roleId}/`, { as: admin });
    expect(role.status).toBe(200);
    expect(role.body).toMatchObject({ uuid: roleId, name: "Lab operator", system: false, policyCount: 1, accessCount: 2, applications: ["inventory", "patch"] });
    const groupRoles = await app.request("GET", `${V1}/groups/${groupId}/roles/`, { as: admin });
    expect(groupRoles.body.data.map((r: { uuid: string }) => r.uuid)).toEqual([roleId]);
  });
});

describe("v1 tenancy and bad input", () => {
  it("another tenant sees none of the roles, groups or principals", async () => {
    expect((await app.request("GET", `${V1}/roles/${roleId}/`, { as: otherAdmin })).status).toBe(404);
    expect((await app.request("GET", `${V1}/roles/${roleId}/access/`, { as: otherAdmin })).status).toBe(404);
    expect((await app.request("GET", `${V1}/groups/${groupId}/roles/`, { as: otherAdmin })).status).toBe(404);
    const byName = await app.request("GET", `${V1}/access/?application=&username=v1-bob`, { as: otherAdmin });
    expect(byName.status).toBe(400);
    expect(byName.body).toEqual({ errors: [{ detail: "No data found for principal with username 'v1-bob'.", source: "detail", status: "400" }] });
    const list = await app.request("GET", `${V1}/roles/?limit=1000`, { as: otherAdmin });
    expect(list.body.data.map((r: { uuid: string }) => r.uuid)).not.toContain(roleId);
  });

  it("answers bad input with a v1 error and no credentials with 401", async () => {
    const before = await app.request("GET", `${V1}/access/?application=`, { as: bob });
    expect((await app.request("GET", `${V1}/roles/?limit=abc`, { as: admin })).status).toBe(400);
    expect((await app.request("GET", `${V1}/groups/not-a-uuid/roles/`, { as: admin })).status).toBe(400);
    const long = await app.request("GET", `${V1}/access/?application=x&order_by=${"z".repeat(5000)}`, { as: admin });
    expect(long.status).toBe(400);
    expect(long.text.length).toBeLessThan(600);
    expect((await app.request("GET", `${V1}/access/?application=`, { as: null })).status).toBe(401);
    expect((await app.request("GET", `${V1}/access/?application=`, { as: bob })).body).toEqual(before.body);
  });
});
