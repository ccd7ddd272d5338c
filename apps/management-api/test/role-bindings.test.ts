import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLATFORM_ROLES } from "@gatehouse/store";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const admin = { org: "rb1", user: "rb-admin", admin: true };
const V1 = "/api/rbac/v1";
let defaultId: string;
let groupId: string;
let roleId: string;

beforeAll(async () => {
  app = await startApp();
  defaultId = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: admin })).body.data[0].id;
  groupId = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "Readers" } })).body.uuid;
  roleId = (
    await app.request("POST", `${V2}/roles/`, {
      as: admin,
      body: { name: "Host viewer", permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] },
    })
  ).body.id;
});
afterAll(() => app.stop());

describe("role bindings", () => {
  it("batch-creates idempotently and lists direct and inherited bindings", async () => {
    const child = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Child" } })).body.id;
    const body = { requests: [{ resource: { id: defaultId, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: roleId } }] };
    const first = await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body });
    expect(first.status).toBe(201);
    expect(first.body.role_bindings).toHaveLength(1);
    expect(first.body.role_bindings[0]).toMatchObject({
      resource: { id: defaultId, type: "workspace" },
      subject: { id: groupId, type: "group" },
      role: { id: roleId },
    });
    expect(Object.keys(first.body.role_bindings[0].role).sort()).toEqual(["created", "id", "modified"]);
    const again = await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body });
    expect(again.status).toBe(201);

    const direct = await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${defaultId}&role_id=${roleId}`, { as: admin });
    expect(direct.status).toBe(200);
    expect(direct.body.data).toHaveLength(1);
    expect(direct.body.data[0]).toEqual({ resource: { id: defaultId }, role: expect.objectContaining({ id: roleId }), subject: { id: groupId, type: "group" }, sources: [{ id: defaultId }] });

    const inherited = await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${child}&role_id=${roleId}`, { as: admin });
    expect(inherited.body.data).toHaveLength(1);
    expect(inherited.body.data[0].resource.id).toBe(child);
    expect(inherited.body.data[0].sources).toEqual([{ id: defaultId }]);
    const directOnly = await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${child}&role_id=${roleId}&exclude_sources=indirect`, { as: admin });
    expect(directOnly.body.data).toHaveLength(0);
    const withGroup = await app.request("GET", `${V2}/role-bindings/?subject_type=group&subject_id=${groupId}&fields=subject(id,group.name)`, { as: admin });
    expect(withGroup.body.data[0].subject).toEqual({ id: groupId, type: "group", group: { name: "Readers" } });
  });

  it("is all-or-nothing when one request is bad", async () => {
    const ws = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Atomic" } })).body.id;
    const res = await app.request("POST", `${V2}/role-bindings:batchCreate/`, {
      as: admin,
      body: {
        requests: [
          { resource: { id: ws, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: roleId } },
          { resource: { id: ws, type: "workspace" }, subject: { id: "11111111-1111-4111-8111-111111111111", type: "group" }, role: { id: roleId } },
        ],
      },
    });
    expect(res.status).toBe(404);
    const listed = await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${ws}&exclude_sources=indirect`, { as: admin });
    expect(listed.body.data).toHaveLength(0);
  });

  it("batch-creates 100 bindings in one call and refuses 0 or 101", async () => {
    const ws = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Many" } })).body.id;
    const groups: string[] = [];
    for (let i = 0; i < 100; i += 1) groups.push((await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: `g${i}` } })).body.uuid);
    const requests = groups.map((id) => ({ resource: { id: ws, type: "workspace" }, subject: { id, type: "group" }, role: { id: roleId } }));
    const ok = await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body: { requests } });
    expect(ok.status).toBe(201);
    expect(ok.body.role_bindings.map((b: { subject: { id: string } }) => b.subject.id)).toEqual(groups);
    const tooMany = await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body: { requests: [...requests, requests[0]] } });
    expect(tooMany.status).toBe(400);
    expect((await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body: { requests: [] } })).status).toBe(400);
  });

  it("reads and replaces a subject's roles by subject", async () => {
    const ws = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "BySubject" } })).body.id;
    const q = `resource_type=workspace&resource_id=${ws}&subject_type=group&subject_id=${groupId}`;
    const put = await app.request("PUT", `${V2}/role-bindings/by-subject/?${q}`, { as: admin, body: { roles: [{ id: roleId }] } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ resource: { id: ws }, subject: { id: groupId, type: "group" }, roles: [{ id: roleId }] });
    expect(put.headers.get("x-gatehouse-consistency-token")).toBeTruthy();

    const list = await app.request("GET", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${ws}&exclude_sources=indirect`, { as: admin });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].roles.map((r: { id: string }) => r.id)).toEqual([roleId]);

    const unknown = await app.request("PUT", `${V2}/role-bindings/by-subject/?${q}`, { as: admin, body: { roles: [{ id: "22222222-2222-4222-8222-222222222222" }] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe("roles");

    const cleared = await app.request("PUT", `${V2}/role-bindings/by-subject/?${q}`, { as: admin, body: { roles: [] } });
    expect(cleared.body.roles).toEqual([]);
    const after = await app.request("GET", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${ws}&exclude_sources=indirect`, { as: admin });
    expect(after.body.data).toHaveLength(0);
  });

  it("expands the default bindings of platform roles into their child roles", async () => {
    const res = await app.request("GET", `${V2}/role-bindings/?resource.tenant.org_id=rb1&fields=role(id,name),subject(id,type)&limit=-1`, { as: admin });
    expect(res.status).toBe(200);
    const names = res.body.data.map((row: { role: { name: string } }) => row.role.name);
    // The default group's roles carry no tenant-wide permission (as in the public role configuration).
    expect(names).toEqual(expect.arrayContaining(["User Access administrator"]));
    expect(names.filter((name: string) => name.includes("(organization)"))).toEqual([]);
    expect(res.body.meta.limit).toBe(res.body.data.length);
  });

  it("requires the resource for by-subject and validates the tenant resource id", async () => {
    expect((await app.request("GET", `${V2}/role-bindings/by-subject/`, { as: admin })).status).toBe(400);
    const other = await app.request("GET", `${V2}/role-bindings/?resource_type=tenant&resource_id=redhat/someone-else`, { as: admin });
    expect(other.status).toBe(404);
    const own = await app.request("GET", `${V2}/role-bindings/?resource.tenant.org_id=rb1`, { as: admin });
    expect(own.status).toBe(200);
  });
});

describe("role-binding reads ordered and rendered as insights-rbac", () => {
  const role = async (name: string) =>
    (await app.request("POST", `${V2}/roles/`, { as: admin, body: { name, permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] } })).body.id as string;
  const bind = async (ws: string, subject: { id: string; type: string }, role: string) =>
    expect((await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body: { requests: [{ resource: { id: ws, type: "workspace" }, subject, role: { id: role } }] } })).status).toBe(
      201,
    );

  it("lists by role creation by default, and takes order_by as a comma list or repeated", async () => {
    const ws = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Ordered" } })).body.id;
    const older = await role("Zulu older");
    const newer = await role("Alpha newer");
    // Bound newest role first: the answer still starts with the older role.
    await bind(ws, { id: groupId, type: "group" }, newer);
    await bind(ws, { id: groupId, type: "group" }, older);
    const ids = async (extra: string) =>
      (await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${ws}&exclude_sources=indirect${extra}`, { as: admin })).body.data.map(
        (row: { role: { id: string } }) => row.role.id,
      );
    expect(await ids("")).toEqual([older, newer]);
    expect(await ids("&order_by=role.name")).toEqual([newer, older]);
    expect(await ids("&order_by=resource.id,-role.created")).toEqual([newer, older]);
    expect(await ids("&order_by=resource.id&order_by=role.created")).toEqual([older, newer]);
    const bad = await app.request("GET", `${V2}/role-bindings/?order_by=role.id,user.username`, { as: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { message: "Invalid ordering field 'user.username'. Valid fields: resource.id, resource.type, role.created, role.id, role.modified, role.name", field: "order_by" },
    ]);
  });

  it("lists by-subject groups most recently modified first and users by username", async () => {
    const ws = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "By subject order" } })).body.id;
    const older = await role("By subject older");
    const newer = await role("By subject newer");
    const first = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "A first group" } })).body.uuid;
    const second = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "B second group" } })).body.uuid;
    // The first group's binding is the newer one: the order still follows the groups.
    await bind(ws, { id: second, type: "group" }, older);
    await bind(ws, { id: first, type: "group" }, newer);
    const subjects = async (extra: string) =>
      (await app.request("GET", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${ws}&exclude_sources=indirect${extra}`, { as: admin })).body.data.map(
        (row: { subject: { id: string } }) => row.subject.id,
      );
    expect(await subjects("")).toEqual([second, first]);

    const uuids: string[] = [];
    for (const user of ["zed", "amy"]) {
      await app.request("GET", `${V2}/workspaces/`, { as: { org: "rb1", user } });
      uuids.push((await app.request("GET", `${V2}/principals/?username=${user}`, { as: admin })).body.data[0].uuid);
    }
    await bind(ws, { id: uuids[1]!, type: "user" }, older);
    await bind(ws, { id: uuids[0]!, type: "user" }, newer);
    expect(await subjects("&subject_type=user")).toEqual([uuids[1], uuids[0]]);
  });

  it("shows a platform role's binding as its child roles in by-subject too", async () => {
    const root = (await app.request("GET", `${V2}/workspaces/?type=root`, { as: admin })).body.data[0].id;
    const res = await app.request("GET", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${root}&fields=roles(id,name)&limit=100`, { as: admin });
    expect(res.status).toBe(200);
    const roles = res.body.data.flatMap((row: { roles: { id: string; name: string }[] }) => row.roles);
    expect(roles.map((r: { name: string }) => r.name)).toContain("Default access");
    expect(roles.filter((r: { id: string }) => PLATFORM_ROLES.some((p) => p.id === r.id))).toEqual([]);
    // Every section keeps its identity under a field selection.
    expect(res.body.data[0]).toMatchObject({ subject: { id: expect.any(String), type: "group" }, resource: { id: root } });
  });
});
