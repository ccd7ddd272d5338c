import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const admin = { org: "roles1", user: "r-admin", admin: true };
const perm = (p: string) => {
  const [application, resource_type, operation] = p.split(":");
  return { application, resource_type, operation };
};

beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

describe("roles", () => {
  it("creates a custom role and echoes permissions in request order", async () => {
    const res = await app.request("POST", `${V2}/roles/`, {
      as: admin,
      body: { name: "Host reader", description: "reads", permissions: [perm("inventory:hosts:write"), perm("inventory:hosts:read")] },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-gatehouse-consistency-token")).toBeTruthy();
    expect(Object.keys(res.body).sort()).toEqual(["description", "id", "last_modified", "name", "permissions"]);
    expect(res.body.permissions).toEqual([perm("inventory:hosts:write"), perm("inventory:hosts:read")]);

    const got = await app.request("GET", `${V2}/roles/${res.body.id}/?fields=id,name,permissions_count,org_id`, { as: admin });
    expect(got.body).toEqual({ id: res.body.id, name: "Host reader", permissions_count: 2, org_id: "roles1" });
  });

  it("refuses unknown permissions, mixed scopes and taken names", async () => {
    const unknown = await app.request("POST", `${V2}/roles/`, { as: admin, body: { name: "x", permissions: [perm("inventory:hosts:fly")] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toBe("The following permissions do not exist: inventory:hosts:fly");
    expect(unknown.body.errors[0].field).toBe("permissions");

    const mixed = await app.request("POST", `${V2}/roles/`, { as: admin, body: { name: "y", permissions: [perm("inventory:hosts:read"), perm("rbac:groups:read")] } });
    expect(mixed.status).toBe(400);
    expect(mixed.body.detail).toMatch(/^All permissions in a role must belong to the same scope/);

    await app.request("POST", `${V2}/roles/`, { as: admin, body: { name: "Taken", permissions: [perm("inventory:hosts:read")] } });
    const taken = await app.request("POST", `${V2}/roles/`, { as: admin, body: { name: "Taken", permissions: [perm("inventory:hosts:read")] } });
    expect(taken.status).toBe(400);
    expect(taken.body.errors[0].field).toBe("name");
  });

  it("lists with cursor pagination and the name filter", async () => {
    for (const name of ["Page a", "Page b", "Page c"]) {
      await app.request("POST", `${V2}/roles/`, { as: admin, body: { name, permissions: [perm("inventory:hosts:read")] } });
    }
    const first = await app.request("GET", `${V2}/roles/?name=page&limit=2`, { as: admin });
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ limit: 2 });
    expect(first.body.data.map((r: { name: string }) => r.name)).toEqual(["Page a", "Page b"]);
    expect(first.body.links.previous).toBeNull();
    const second = await app.request("GET", first.body.links.next, { as: admin });
    expect(second.body.data.map((r: { name: string }) => r.name)).toEqual(["Page c"]);
    expect(second.body.links.next).toBeNull();
    const badField = await app.request("GET", `${V2}/roles/?fields=id,nope`, { as: admin });
    expect(badField.status).toBe(400);
    expect(badField.body.detail).toMatch(/Unknown field 'nope'/);
  });

  it("lists seeded roles and refuses to update or delete them", async () => {
    const seeded = await app.request("GET", `${V2}/roles/?name=User Access administrator&limit=5`, { as: admin });
    const role = seeded.body.data.find((r: { name: string }) => r.name === "User Access administrator");
    expect(role).toBeTruthy();
    const put = await app.request("PUT", `${V2}/roles/${role.id}/`, { as: admin, body: { name: "Mine", permissions: [perm("inventory:hosts:read")] } });
    expect(put.status).toBe(400);
    expect(put.body.detail).toBe("System roles may not be updated.");
    const del = await app.request("POST", `${V2}/roles:batchDelete/`, { as: admin, body: { ids: [role.id] } });
    expect(del.body.detail).toBe("System roles may not be deleted.");
  });

  it("replaces a role with PUT and batch-deletes all or nothing", async () => {
    const a = await app.request("POST", `${V2}/roles/`, { as: admin, body: { name: "Del a", permissions: [perm("inventory:hosts:read")] } });
    const b = await app.request("POST", `${V2}/roles/`, { as: admin, body: { name: "Del b", permissions: [perm("inventory:hosts:read")] } });
    const put = await app.request("PUT", `${V2}/roles/${a.body.id}/`, { as: admin, body: { name: "Del a2", permissions: [perm("inventory:hosts:write")] } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: "Del a2", description: "", permissions: [perm("inventory:hosts:write")] });

    const missing = "00000000-0000-4000-8000-000000000000";
    const partial = await app.request("POST", `${V2}/roles:batchDelete/`, { as: admin, body: { ids: [a.body.id, missing] } });
    expect(partial.status).toBe(404);
    expect(partial.body.errors[0].field).toBe("ids");
    expect((await app.request("GET", `${V2}/roles/${a.body.id}/`, { as: admin })).status).toBe(200);

    const ok = await app.request("POST", `${V2}/roles:batchDelete/`, { as: admin, body: { ids: [a.body.id, b.body.id] } });
    expect(ok.status).toBe(204);
    expect((await app.request("GET", `${V2}/roles/${b.body.id}/`, { as: admin })).status).toBe(404);
  });
});
