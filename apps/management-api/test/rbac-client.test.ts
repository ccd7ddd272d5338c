// The console's own npm client (@redhat-cloud-services/rbac-client, pinned) driving Gatehouse's v1
// API as the console does: a group with a member and a role, then all 30 v1 operations the client
// offers (reads, writes, the audit log and the five cross-account request operations); then every v2 operation of its v2 client, in the order the console's
// workspace and role-binding pages use them. Each answer is also validated against insights-rbac's
// v1 or v2 document.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
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

describe("@redhat-cloud-services/rbac-client: the v1 writes and lists the console's pages make", () => {
  it("a custom role with resource definitions on a group, principals listed, then everything removed again", async () => {
    const org = { org: "rc3", user: "rc3-admin", admin: true };
    const user = { org: "rc3", user: "rc3-user" };
    const opts = { headers: { "x-rh-identity": encodeIdentityHeader({ orgId: org.org, userId: org.user, username: org.user, isOrgAdmin: true }) } };
    for (const who of [org, user]) await app.request("GET", `${V2}/workspaces/?type=default`, { as: who });
    const defaultId = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: org })).body.data[0].id as string;
    const edge = (await app.request("POST", `${V2}/workspaces/`, { as: org, body: { name: "Edge", parent_id: defaultId } })).body.id as string;

    const principals = checked(await client.listPrincipals({ usernames: user.user, matchCriteria: "exact", options: opts }));
    expect(principals.data.data.map((p: { username: string }) => p.username)).toEqual([user.user]);
    const group = (await client.createGroup({ group: { name: "Edge team" }, options: opts })).data.uuid as string;
    await client.addPrincipalToGroup({ uuid: group, groupPrincipalIn: { principals: [{ username: user.user }] }, options: opts });
    const access = [{ permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "in" as const, value: [edge] } }] }];
    const role = (await client.createRole({ roleIn: { name: "Edge readers", access }, options: opts })).data.uuid as string;
    await client.addRoleToGroup({ uuid: group, groupRoleIn: { roles: [role] }, options: opts });
    const seen = checked(await client.getPrincipalAccess({ application: "inventory", username: user.user, options: opts }));
    expect(seen.data.data).toContainEqual(access[0]);

    // The role and group edits of the console's pages, then what the audit log says of them.
    const put = checkedV2(await client.updateRole({ uuid: role, rolePut: { name: "Edge readers", description: "hosts at the edge", access } as never, options: opts }));
    expect(put.data).toMatchObject({ description: "hosts at the edge" });
    const patched = checkedV2(await client.patchRole({ uuid: role, rolePatch: { display_name: "Edge host readers" } as never, options: opts }));
    expect(patched.data).toMatchObject({ display_name: "Edge host readers" });
    const renamed = checkedV2(await client.updateGroup({ uuid: group, group: { name: "Edge crew" }, options: opts }));
    expect(renamed.data).toMatchObject({ name: "Edge crew" });
    const log = checked(await client.getAuditlogs({ limit: 50, options: opts }));
    expect(log.data.data.map((row: { description: string }) => row.description)).toContain("Created role: Edge readers");

    expect((await client.deleteRoleFromGroup({ uuid: group, roles: role, options: opts })).status).toBe(204);
    expect(checked(await client.listRolesForGroup({ uuid: group, options: opts })).data.data).toEqual([]);
    expect((await client.deletePrincipalFromGroup({ uuid: group, usernames: user.user, options: opts })).status).toBe(204);
    expect(checked(await client.getGroup({ uuid: group, options: opts })).data.principals).toEqual([]);
    expect((await client.deleteRole({ uuid: role, options: opts })).status).toBe(204);
    expect((await app.request("GET", `/api/rbac/v1/roles/${role}/`, { as: org })).status).toBe(404);
    expect((await client.deleteGroup({ uuid: group, options: opts })).status).toBe(204);
    expect((await app.request("GET", `/api/rbac/v1/groups/${group}/`, { as: org })).status).toBe(404);
  });
});

/** An answer as the client received it (any method), validated against insights-rbac's v1 or v2 document by its path. */
function checkedV2<T extends { status: number; data: unknown; config: { url?: string | undefined; method?: string | undefined }; headers: unknown }>(res: T): T {
  const url = new URL(String(res.config.url));
  const contentType = (res.headers as { get?: (name: string) => unknown })?.get?.("content-type") ?? "application/json";
  validateAgainstSpec(String(res.config.method ?? "GET"), `${url.pathname}${url.search}`, res.status, String(contentType), res.status === 204 ? "" : JSON.stringify(res.data));
  return res;
}

/**
 * The package's v2 client (`v2/api`): its exports map reaches `v2` (the operations) but not
 * `v2/api` (the client assembling them), so it is loaded from the package's own files.
 */
async function loadV2Client(): Promise<(basePath: string) => any> {
  const main = createRequire(import.meta.url).resolve("@redhat-cloud-services/rbac-client");
  const mod = (await import(pathToFileURL(path.join(path.dirname(main), "v2", "api.js")).href)) as { RbacClient?: unknown; default?: { RbacClient?: unknown } };
  return (mod.RbacClient ?? mod.default?.RbacClient) as (basePath: string) => any;
}

describe("@redhat-cloud-services/rbac-client against the v2 API", () => {
  it("workspaces, roles and role bindings through every v2 operation of the client", async () => {
    const org = { org: "rc2", user: "rc2-admin", admin: true };
    const v2options = { headers: { "x-rh-identity": encodeIdentityHeader({ orgId: org.org, userId: org.user, username: org.user, isOrgAdmin: true }) } };
    const v2 = (await loadV2Client())(`${app.baseUrl}/api/rbac/v2`);
    const v1 = RbacClient(`${app.baseUrl}/api/rbac/v1`);

    // Workspaces: list, create, read, patch, update, move, delete.
    const listed = checkedV2(await v2.workspacesList({ type: "default", options: v2options }));
    const defaultId = listed.data.data[0]!.id as string;
    const edge = checkedV2(await v2.workspacesCreate({ workspacesCreateWorkspaceRequest: { name: "Edge", parent_id: defaultId }, options: v2options }));
    expect(edge.status).toBe(201);
    const edgeId = edge.data.id as string;
    expect(checkedV2(await v2.workspacesRead({ id: edgeId, includeAncestry: true, options: v2options })).data).toMatchObject({ id: edgeId, name: "Edge", parent_id: defaultId });
    expect(checkedV2(await v2.workspacesPatch({ id: edgeId, workspacesPatchWorkspaceRequest: { description: "edge hosts" }, options: v2options })).data).toMatchObject({ description: "edge hosts" });
    const updated = checkedV2(await v2.workspacesUpdate({ id: edgeId, workspacesUpdateWorkspaceRequest: { name: "Edge sites", description: "edge hosts", parent_id: defaultId }, options: v2options }));
    expect(updated.data).toMatchObject({ name: "Edge sites" });
    const staging = checkedV2(await v2.workspacesCreate({ workspacesCreateWorkspaceRequest: { name: "Staging", parent_id: defaultId }, options: v2options })).data.id as string;
    const moved = checkedV2(await v2.workspacesMove({ id: edgeId, workspacesMoveWorkspaceRequest: { parent_id: staging }, options: v2options }));
    expect(moved.data).toMatchObject({ id: edgeId, parent_id: staging });

    // Roles: create, read, list, update.
    const permissions = [{ application: "inventory", resource_type: "hosts", operation: "read" }];
    const role = checkedV2(await v2.rolesCreate({ rolesCreateOrUpdateRoleRequest: { name: "Edge readers", description: "d", permissions }, options: v2options }));
    expect(role.status).toBe(201);
    const roleV2 = role.data.id as string;
    expect(checkedV2(await v2.rolesRead({ id: roleV2, options: v2options })).data).toMatchObject({ id: roleV2, name: "Edge readers" });
    expect(checkedV2(await v2.rolesList({ name: "Edge readers", options: v2options })).data.data.map((r: { id: string }) => r.id)).toEqual([roleV2]);
    const write = [...permissions, { application: "inventory", resource_type: "hosts", operation: "write" }];
    const roleUpdated = checkedV2(await v2.rolesUpdate({ id: roleV2, rolesCreateOrUpdateRoleRequest: { name: "Edge operators", description: "d", permissions: write }, options: v2options }));
    expect(roleUpdated.data).toMatchObject({ name: "Edge operators" });
    expect(checkedV2(await v2.rolesRead({ id: roleV2, fields: "permissions_count", options: v2options })).data).toMatchObject({ permissions_count: 2 });

    // Role bindings: a group (made with the v1 client, as the console does) bound on the workspace.
    const groupV2 = (await v1.createGroup({ group: { name: "Edge team" }, options: v2options })).data.uuid as string;
    const created = checkedV2(
      await v2.roleBindingsBatchCreate({
        roleBindingsBatchCreateRoleBindingsRequest: { requests: [{ resource: { id: edgeId, type: "workspace" }, subject: { id: groupV2, type: "group" }, role: { id: roleV2 } }] },
        options: v2options,
      }),
    );
    expect(created.status).toBe(201);
    const rows = checkedV2(await v2.roleBindingsList({ resourceId: edgeId, resourceType: "workspace", excludeSources: "indirect", options: v2options }));
    expect(rows.data.data.map((r: { role: { id: string }; subject: { id: string } }) => [r.role.id, r.subject.id])).toEqual([[roleV2, groupV2]]);
    const bySubject = checkedV2(await v2.roleBindingsListBySubject({ resourceId: edgeId, resourceType: "workspace", subjectType: "group", options: v2options }));
    expect(bySubject.data.data.map((r: { subject: { id: string }; roles: { id: string }[] }) => [r.subject.id, r.roles.map((x) => x.id)])).toContainEqual([groupV2, [roleV2]]);
    const cleared = checkedV2(
      await v2.roleBindingsUpdate({
        subjectId: groupV2,
        subjectType: "group",
        resourceId: edgeId,
        resourceType: "workspace",
        roleBindingsUpdateRoleBindingsRequest: { roles: [] },
        options: v2options,
      }),
    );
    expect(cleared.status).toBe(200);
    expect(checkedV2(await v2.roleBindingsList({ resourceId: edgeId, resourceType: "workspace", excludeSources: "indirect", options: v2options })).data.data).toEqual([]);

    // Cleanup through the client: roles in a batch, then the workspaces.
    expect(checkedV2(await v2.rolesBatchDelete({ rolesBatchDeleteRolesRequest: { ids: [roleV2] }, options: v2options })).status).toBe(204);
    expect((await app.request("GET", `${V2}/roles/${roleV2}/`, { as: org })).status).toBe(404);
    expect(checkedV2(await v2.workspacesDelete({ id: edgeId, options: v2options })).status).toBe(204);
    expect((await app.request("GET", `${V2}/workspaces/${edgeId}/`, { as: org })).status).toBe(404);
  });
});

describe("@redhat-cloud-services/rbac-client: cross-account requests", () => {
  it("an associate creates, reads, edits and lists its request; the target organisation's admin lists, reads and approves it", async () => {
    const target = { org: "rc-car-target", user: "rc-car-admin", admin: true };
    await app.request("GET", `${V2}/workspaces/`, { as: target });
    const associate = {
      headers: {
        "x-rh-identity": encodeIdentityHeader({ orgId: "rc-car-home", userId: "rc-assoc", username: "rc-assoc@redhat.com", email: "rc-assoc@redhat.com", isInternal: true }),
      },
    };
    const approver = { headers: { "x-rh-identity": encodeIdentityHeader({ orgId: target.org, userId: target.user, username: target.user, isOrgAdmin: true }) } };
    const day = (offset: number) => {
      const d = new Date(Date.now() + offset * 86_400_000);
      return `${String(d.getUTCMonth() + 1).padStart(2, "0")}/${String(d.getUTCDate()).padStart(2, "0")}/${d.getUTCFullYear()}`;
    };
    const created = checkedV2(
      await client.createCrossAccountRequests({
        crossAccountRequestIn: { target_org: target.org, start_date: day(0), end_date: day(10), roles: ["Advisor viewer"] },
        options: associate,
      }),
    );
    expect(created.status).toBe(201);
    const id = (created.data as { request_id: string }).request_id;
    const mine = checkedV2(await client.listCrossAccountRequests({ queryBy: "user_id" as never, orgId: target.org, options: associate }));
    expect(mine.data.data.map((r: { request_id?: string }) => r.request_id)).toEqual([id]);
    const read = checkedV2(await client.getCrossAccountRequest({ uuid: id, queryBy: "user_id" as never, options: associate }));
    expect(read.data).toMatchObject({ request_id: id, status: "pending" });
    const put = checkedV2(
      await client.putCrossAccountRequest({ uuid: id, crossAccountRequestUpdateIn: { start_date: day(1), end_date: day(20), roles: ["Advisor viewer", "Patch viewer"] }, options: associate }),
    );
    expect((put.data as { roles: unknown[] }).roles).toHaveLength(2);

    const incoming = checkedV2(await client.listCrossAccountRequests({ status: "pending" as never, options: approver }));
    expect(incoming.data.data).toEqual([expect.objectContaining({ request_id: id, email: "rc-assoc@redhat.com", user_available: true })]);
    const detail = checkedV2(await client.getCrossAccountRequest({ uuid: id, options: approver }));
    expect(detail.data).toMatchObject({ email: "rc-assoc@redhat.com", end_date: day(20) });
    const approved = checkedV2(await client.patchCrossAccountRequest({ uuid: id, crossAccountRequestPatch: { status: "approved" as never }, options: approver }));
    expect(approved.data).toMatchObject({ status: "approved" });
    const approvedOnly = checkedV2(await client.listCrossAccountRequests({ queryBy: "user_id" as never, approvedOnly: "true" as never, options: associate }));
    expect(approvedOnly.data.data).toHaveLength(0);
  });
});
