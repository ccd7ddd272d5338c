import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const V1 = "/api/rbac/v1";
const admin = { org: "gp1", user: "gp-admin", admin: true };
const carol = { org: "gp1", user: "carol" };
const dave = { org: "gp1", user: "dave" };

beforeAll(async () => {
  app = await startApp();
  // Principals are recorded on their first request.
  for (const who of [admin, carol, dave]) await app.request("GET", `${V2}/workspaces/?type=default`, { as: who });
});
afterAll(() => app.stop());

describe("groups and principals", () => {
  it("lists the organisation's principals read-only with filters and paging", async () => {
    const all = await app.request("GET", `${V2}/principals/?order_by=username`, { as: admin });
    expect(all.status).toBe(200);
    expect(all.body.data.map((p: { username: string }) => p.username)).toEqual(["carol", "dave", "gp-admin"]);
    expect(all.body.data[0]).toMatchObject({ type: "user", user_id: "carol", service_account_id: null, group_count: 0 });
    expect(all.body.data[0].uuid).toMatch(/^[0-9a-f-]{36}$/);
    const filtered = await app.request("GET", `${V2}/principals/?username=ar&limit=1`, { as: admin });
    expect(filtered.body.meta).toEqual({ count: 1, limit: 1, offset: 0 });
    const one = await app.request("GET", `${V2}/principals/${all.body.data[0].uuid}/`, { as: admin });
    expect(one.body.username).toBe("carol");
    expect((await app.request("POST", `${V2}/principals/`, { as: admin, body: {} })).status).toBe(405);
  });

  it("creates a group, adds and removes principals, and deletes it", async () => {
    const created = await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "Ops", description: "operators" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Ops", principalCount: 0, system: false });
    const id = created.body.uuid;
    const dup = await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "Ops" } });
    expect(dup.status).toBe(400);
    // v1 endpoints answer errors in the v1 shape.
    expect(dup.body).toEqual({ errors: [{ detail: "A group with the name 'Ops' already exists.", source: "name", status: "400" }] });

    const added = await app.request("POST", `${V1}/groups/${id}/principals/`, { as: admin, body: { principals: [{ username: "CAROL" }, { user_id: "dave" }] } });
    expect(added.status).toBe(200);
    expect(added.body.principalCount).toBe(2);
    const unknown = await app.request("POST", `${V1}/groups/${id}/principals/`, { as: admin, body: { principals: [{ username: "nobody" }] } });
    expect(unknown.status).toBe(404);

    const members = await app.request("GET", `${V1}/groups/${id}/principals/`, { as: admin });
    expect(members.body.data.map((p: { username: string }) => p.username).sort()).toEqual(["carol", "dave"]);
    const carolRecord = (await app.request("GET", `${V2}/principals/?username=carol`, { as: admin })).body.data[0];
    expect(carolRecord.group_count).toBe(1);

    expect((await app.request("DELETE", `${V1}/groups/${id}/principals/?usernames=dave`, { as: admin })).status).toBe(204);
    expect((await app.request("GET", `${V1}/groups/${id}/`, { as: admin })).body.principalCount).toBe(1);

    const list = await app.request("GET", `${V1}/groups/?name=Ops`, { as: admin });
    expect(list.body.data.map((g: { uuid: string }) => g.uuid)).toContain(id);
    expect((await app.request("DELETE", `${V1}/groups/${id}/`, { as: admin })).status).toBe(204);
    expect((await app.request("GET", `${V1}/groups/${id}/`, { as: admin })).status).toBe(404);
  });

  it("refuses to delete or edit the default groups", async () => {
    const list = await app.request("GET", `${V1}/groups/?limit=-1`, { as: admin });
    const platform = list.body.data.find((g: { platform_default: boolean }) => g.platform_default);
    expect(platform).toBeTruthy();
    expect((await app.request("DELETE", `${V1}/groups/${platform.uuid}/`, { as: admin })).status).toBe(400);
    expect((await app.request("POST", `${V1}/groups/${platform.uuid}/principals/`, { as: admin, body: { principals: [{ username: "carol" }] } })).status).toBe(400);
  });
});
