// The console's own npm client (@redhat-cloud-services/rbac-client, pinned) driving Gatehouse's v1
// API as the console does: a group with a member and a role, then every v1 read the client offers
// that Gatehouse serves. Each answer is also validated against insights-rbac's v1 document.
import { encodeIdentityHeader } from "@gatehouse/auth";
import { RbacClient } from "@redhat-cloud-services/rbac-client/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";
import { validateAgainstSpec } from "./openapi-validator.js";

let app: TestApp;
let client: ReturnType<typeof RbacClient>;
const admin = { org: "rc1", user: "rc-admin", admin: true };
const member = { org: "rc1", user: "rc-member" };
const options = { headers: { "x-rh-identity": encodeIdentityHeader({ orgId: admin.org, userId: admin.user, username: admin.user, isOrgAdmin: true }) } };
let groupId = "";
let roleId = "";

/** The answer as the client received it, validated against the v1 document. */
function checked<T extends { status: number; data: unknown; config: { url?: string | undefined }; headers: unknown }>(res: T): T {
  const url = new URL(String(res.config.url));
  const contentType = (res.headers as { get?: (name: string) => unknown })?.get?.("content-type") ?? "application/json";
  validateAgainstSpec("GET", `${url.pathname}${url.search}`, res.status, String(contentType), JSON.stringify(res.data));
  return res;
}

beforeAll(async () => {
  app = await startApp({}, { backend: "pglite" });
  client = RbacClient(`${app.baseUrl}/api/rbac/v1`);
  await app.request("GET", `${V2}/workspaces/?type=default`, { as: member });
  const group = await client.createGroup({ group: { name: "Console operators", description: "made by the console client" }, options });
  groupId = group.data.uuid!;
  await client.addPrincipalToGroup({ uuid: groupId, groupPrincipalIn: { principals: [{ username: member.user }] }, options });
  const role = await app.request("POST", `${V2}/roles/`, { as: admin, body: { name: "Host readers", permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] } });
  roleId = role.body.id;
  const defaults = await app.request("GET", `${V2}/workspaces/?type=default`, { as: admin });
  const bound = await app.request("POST", `${V2}/role-bindings:batchCreate/`, {
    as: admin,
    body: { requests: [{ resource: { id: defaults.body.data[0].id, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: roleId } }] },
  });
  expect(bound.status).toBe(201);
});
afterAll(() => app.stop());

describe("@redhat-cloud-services/rbac-client against the v1 API", () => {
  it("reads status and the v1 OpenAPI document", async () => {
    expect((await client.getStatus({ options })).data).toMatchObject({ api_version: 1 });
    const spec = (await client.getOpenAPISpec({ options })).data as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).toContain("/permissions/options/");
  });

  it("lists permissions and permission options for the role pickers", async () => {
    const permissions = checked(await client.listPermissions({ application: "inventory", limit: 50, options }));
    expect(permissions.data.data.map((p: { permission: string }) => p.permission)).toContain("inventory:hosts:read");
    const options_ = checked(await client.listPermissionOptions({ field: "resource_type", application: "inventory", excludeGlobals: "true", options }));
    expect(options_.data.data).toEqual(["groups", "hosts"]);
  });

  it("lists and reads groups, their roles and principals", async () => {
    const groups = checked(await client.listGroups({ name: "console", nameMatch: "partial", options }));
    expect(groups.data.data?.map((g: { uuid: string }) => g.uuid)).toEqual([groupId]);
    const byRole = checked(await client.listGroups({ roleNames: ["host readers"], options }));
    expect(byRole.data.data?.map((g: { name: string }) => g.name)).toEqual(["Console operators"]);
    const group = checked(await client.getGroup({ uuid: groupId, options }));
    expect(group.data.principals?.map((p: { username: string }) => p.username)).toEqual([member.user]);
    const roles = checked(await client.listRolesForGroup({ uuid: groupId, options }));
    expect(roles.data.data.map((r: { uuid: string }) => r.uuid)).toEqual([roleId]);
    const principals = await client.getPrincipalsFromGroup({ uuid: groupId, options });
    expect(principals.status).toBe(200);
  });

  it("lists and reads roles and a principal's access", async () => {
    const roles = checked(await client.listRoles({ name: "Host readers", options }));
    expect(roles.data.data.map((r: { uuid: string }) => r.uuid)).toContain(roleId);
    const role = checked(await client.getRole({ uuid: roleId, options }));
    expect(role.data.access.map((a: { permission: string }) => a.permission)).toEqual(["inventory:hosts:read"]);
    const access = checked(await client.getRoleAccess({ uuid: roleId, options }));
    expect(access.data.data.map((a: { permission: string }) => a.permission)).toEqual(["inventory:hosts:read"]);
    const principalAccess = checked(await client.getPrincipalAccess({ application: "inventory", username: member.user, options }));
    expect(principalAccess.data.data.map((a: { permission: string }) => a.permission)).toContain("inventory:hosts:read");
  });
});
