import { encodeIdentityHeader } from "@gatehouse/auth";
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
    expect(dup.body).toEqual({ errors: [{ detail: "A group with the name 'Ops' exists for this tenant", source: "group", status: "400" }] });

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

  it("adds, lists and removes service accounts by client id; a refusal changes nothing", async () => {
    const own = "6b1f0c2e-8d4a-4e3b-9c5d-7a8b9c0d1e2f";
    const keyedByUserId = "0c9d8e7f-6a5b-4c3d-8e1f-0a1b2c3d4e5f";
    const foreign = "f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9";
    const identity = (org: string, serviceAccount: Record<string, string>) => ({
      "x-rh-identity": Buffer.from(JSON.stringify({ identity: { org_id: org, type: "ServiceAccount", service_account: serviceAccount } })).toString("base64"),
    });
    // Service accounts become known by their own requests: one keyed by its client id, one by the
    // user id its identity carries (found by upstream's username form), one of another organisation.
    for (const headers of [
      { "x-rh-identity": encodeIdentityHeader({ orgId: "gp1", serviceAccount: { clientId: own } }) },
      identity("gp1", { client_id: keyedByUserId, user_id: "sa-user-77", username: `service-account-${keyedByUserId}` }),
      { "x-rh-identity": encodeIdentityHeader({ orgId: "gp2", serviceAccount: { clientId: foreign } }) },
    ]) {
      expect((await app.request("GET", `${V2}/workspaces/?type=default`, { as: null, headers })).status).toBeLessThan(500);
    }
    const id = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "Robots" } })).body.uuid;
    const members = async (type = "all") => (await app.request("GET", `${V1}/groups/${id}/principals/?principal_type=${type}`, { as: admin })).body;

    const elsewhere = await app.request("POST", `${V1}/groups/${id}/principals/`, { as: admin, body: { principals: [{ username: "carol" }, { clientId: foreign, type: "service-account" }] } });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.errors).toEqual([{ detail: `Service account(s) {'${foreign}'} not found.`, source: "groups", status: "404" }]);
    expect((await members()).meta.count).toBe(0);

    const added = await app.request("POST", `${V1}/groups/${id}/principals/`, {
      as: admin,
      body: {
        principals: [
          { clientId: own.toUpperCase(), type: "service-account" },
          { clientId: keyedByUserId, type: "service-account" },
          { username: "carol", type: "user" },
        ],
      },
    });
    expect(added.status).toBe(200);
    // principalCount counts users only, as upstream's annotation: the two service accounts are not counted.
    expect(added.body.principalCount).toBe(1);
    expect((await members("service-account")).data).toEqual([
      { clientId: own, username: own, type: "service-account" },
      { clientId: keyedByUserId, username: `service-account-${keyedByUserId}`, type: "service-account" },
    ]);
    expect((await members("user")).data.map((p: { username: string }) => p.username)).toEqual(["carol"]);
    const both = await members();
    expect(both.meta.count).toBe(3);
    expect(Object.keys(both.data).sort()).toEqual(["serviceAccounts", "users"]);
    const paged = await app.request("GET", `${V1}/groups/${id}/principals/?principal_type=all&limit=1&offset=2`, { as: admin });
    expect(paged.body.data).toEqual({ users: [expect.objectContaining({ username: "carol" })] });

    const badType = await app.request("GET", `${V1}/groups/${id}/principals/?principal_type=robot`, { as: admin });
    expect(badType.status).toBe(400);
    expect(badType.body.errors[0].detail).toBe("principal_type query parameter value 'robot' is invalid. ['service-account', 'user', 'all'] are valid inputs.");

    // Removal: one of the two lists is required, and everything named must be a member; a
    // refusal removes nothing (upstream would already have removed the service accounts).
    const neither = await app.request("DELETE", `${V1}/groups/${id}/principals/`, { as: admin });
    expect(neither.status).toBe(400);
    expect(neither.body.errors[0].detail).toBe("Query parameter service-accounts or usernames is required.");
    const blank = await app.request("DELETE", `${V1}/groups/${id}/principals/?usernames=,&service-accounts=`, { as: admin });
    expect(blank.body.errors).toEqual(neither.body.errors);
    const notMember = await app.request("DELETE", `${V1}/groups/${id}/principals/?service-accounts=${own}&usernames=dave`, { as: admin });
    expect(notMember.status).toBe(404);
    expect(notMember.body.errors[0].detail).toBe("User(s) {'dave'} not found in the group 'Robots'.");
    const notMemberAccount = await app.request("DELETE", `${V1}/groups/${id}/principals/?service-accounts=${foreign}`, { as: admin });
    expect(notMemberAccount.status).toBe(404);
    expect(notMemberAccount.body.errors[0].detail).toBe(`Service account(s) {'${foreign}'} not found in the group 'Robots'`);
    expect((await members()).meta.count).toBe(3);

    const removed = await app.request("DELETE", `${V1}/groups/${id}/principals/?service-accounts=${own},${keyedByUserId}&usernames=carol`, { as: admin });
    expect(removed.status).toBe(204);
    expect((await members()).meta.count).toBe(0);
  });
});
