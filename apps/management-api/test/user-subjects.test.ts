import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

// insights-rbac names users in role bindings by the principal's UUID (GET /principals/ `uuid`).
let app: TestApp;
const admin = { org: "us1", user: "us-admin", admin: true };
const alice = { org: "us1", user: "alice-id", admin: false };
let ws: string;
let roleId: string;
let aliceUuid: string;

beforeAll(async () => {
  app = await startApp({}, { backend: "pglite" });
  await app.request("GET", `${V2}/workspaces/`, { as: alice });
  const principals = await app.request("GET", `${V2}/principals/?username=alice-id`, { as: admin });
  aliceUuid = principals.body.data[0].uuid;
  ws = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Users" } })).body.id;
  roleId = (await app.request("POST", `${V2}/roles/`, { as: admin, body: { name: "Ws reader", permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] } })).body.id;
});
afterAll(() => app.stop());

describe("user subjects by principal UUID", () => {
  it("grants, lists and replaces by principal UUID and answers with it", async () => {
    const grant = { requests: [{ resource: { id: ws, type: "workspace" }, subject: { id: aliceUuid, type: "user" }, role: { id: roleId } }] };
    const created = await app.request("POST", `${V2}/role-bindings:batchCreate/?fields=subject(user.username),resource(id)`, { as: admin, body: grant });
    expect(created.status).toBe(201);
    expect(created.body.role_bindings[0]).toEqual({ subject: { id: aliceUuid, type: "user", user: { username: "alice-id" } }, resource: { id: ws } });

    const bySubjectId = await app.request("GET", `${V2}/role-bindings/?subject_type=user&subject_id=${aliceUuid}`, { as: admin });
    expect(bySubjectId.body.data.map((row: { subject: { id: string } }) => row.subject.id)).toEqual([aliceUuid]);
    for (const id of [aliceUuid, "alice-id"]) {
      const granted = await app.request("GET", `${V2}/role-bindings/?granted_subject_type=user&granted_subject_id=${id}&resource_type=workspace&resource_id=${ws}`, { as: admin });
      expect(granted.status).toBe(200);
      expect(granted.body.data.some((row: { role: { id: string } }) => row.role.id === roleId)).toBe(true);
    }
    const grouped = await app.request("GET", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${ws}&subject_type=user&subject_id=${aliceUuid}`, { as: admin });
    expect(grouped.body.data).toHaveLength(1);
    expect(grouped.body.data[0].subject).toEqual({ id: aliceUuid, type: "user" });

    const q = `resource_type=workspace&resource_id=${ws}&subject_type=user&subject_id=${aliceUuid}`;
    const cleared = await app.request("PUT", `${V2}/role-bindings/by-subject/?${q}`, { as: admin, body: { roles: [] } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.subject).toEqual({ id: aliceUuid, type: "user" });
    const none = await app.request("GET", `${V2}/role-bindings/?subject_type=user&subject_id=${aliceUuid}`, { as: admin });
    expect(none.body.data).toEqual([]);
  });

  it("refuses a user id, an unknown UUID and an unknown role with insights-rbac's answers, writing nothing", async () => {
    const request = (subject: string, role = roleId) => ({ requests: [{ resource: { id: ws, type: "workspace" }, subject: { id: subject, type: "user" }, role: { id: role } }] });
    const byUserId = await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body: request("alice-id") });
    expect(byUserId.status).toBe(400);
    expect(byUserId.body.errors[0].message).toBe("Must be a valid UUID.");
    const unknown = "9b2a3c4d-0000-4000-8000-000000000001";
    const missing = await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body: request(unknown) });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe(`user with id '${unknown}' not found`);
    const badRole = await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body: request(aliceUuid, unknown) });
    expect(badRole.status).toBe(400);
    expect(badRole.body.errors[0]).toEqual({ message: `Invalid field 'roles': The following roles do not exist: ${unknown}`, field: "roles" });
    const put = await app.request("PUT", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${ws}&subject_type=user&subject_id=${unknown}`, {
      as: admin,
      body: { roles: [{ id: roleId }] },
    });
    expect(put.status).toBe(404);
    expect(put.body.detail).toBe(`user with id '${unknown}' not found`);
    const listed = await app.request("GET", `${V2}/role-bindings/?subject_type=user&subject_id=${aliceUuid}`, { as: admin });
    expect(listed.body.data).toEqual([]);
  });

  it("does not resolve another organisation's principal", async () => {
    const other = { org: "us2", user: "other-admin", admin: true };
    const ows = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: other })).body.data[0].id;
    const res = await app.request("POST", `${V2}/role-bindings:batchCreate/`, {
      as: other,
      body: { requests: [{ resource: { id: ows, type: "workspace" }, subject: { id: aliceUuid, type: "user" }, role: { id: roleId } }] },
    });
    // The role is us1's custom role, so it is unknown here before the subject is looked at.
    expect(res.status).toBe(400);
    const seeded = (await app.request("GET", `${V2}/roles/?limit=1`, { as: other })).body.data[0].id;
    const again = await app.request("POST", `${V2}/role-bindings:batchCreate/`, {
      as: other,
      body: { requests: [{ resource: { id: ows, type: "workspace" }, subject: { id: aliceUuid, type: "user" }, role: { id: seeded } }] },
    });
    expect(again.status).toBe(404);
  });
});
