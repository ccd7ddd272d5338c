// One membership path and one grant path, whichever API (v1, v2) or writer (the import) used it:
// what one writes the others see and can undo, and a refused request changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const V1 = "/api/rbac/v1";

beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

/** An organisation whose admin and two users have been seen (principals are recorded on their first request). */
async function organisation(org: string) {
  const admin = { org, user: `${org}-admin`, admin: true };
  for (const who of [admin, { org, user: "ann" }, { org, user: "ben" }]) await app.request("GET", `${V2}/workspaces/?type=default`, { as: who });
  const group = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "Team" } })).body.uuid as string;
  const members = async () => ((await app.request("GET", `${V1}/groups/${group}/principals/?limit=-1`, { as: admin })).body.data as { username: string }[]).map((p) => p.username).sort();
  const groupCount = async (username: string) => (await app.request("GET", `${V2}/principals/?username=${username}`, { as: admin })).body.data[0].group_count as number;
  const auditCount = async () => (await app.request("GET", `${V1}/auditlogs/?limit=1`, { as: admin })).body.meta.count as number;
  return { org, admin, group, members, groupCount, auditCount };
}

/** A v1 custom role granting inventory host reads (bound at the Default Workspace by the migration rule). */
async function hostReader(admin: { org: string; user: string; admin: boolean }) {
  const res = await app.request("POST", `${V1}/roles/`, { as: admin, body: { name: "Host reader", access: [{ permission: "inventory:hosts:read", resourceDefinitions: [] }] } });
  expect(res.status).toBe(201);
  return res.body.uuid as string;
}

describe("one group-membership path", () => {
  it("a membership the import writes is listed by v1 and v2 and removed by v1; one v1 adds is seen by v2", async () => {
    const o = await organisation("op1");
    // The import (a migration) adds ann through the same store path as the v1 API.
    const imported = await app.store.imports.applyTenant(o.org, { groups: [{ key: "team", id: o.group, name: "Team", members: ["ann"] }] });
    expect(imported.value.membersAdded).toBe(1);
    expect(await o.members()).toEqual(["ann"]);
    expect(await o.groupCount("ann")).toBe(1);
    expect((await app.request("DELETE", `${V1}/groups/${o.group}/principals/?usernames=ANN`, { as: o.admin })).status).toBe(204);
    expect(await o.members()).toEqual([]);
    expect(await o.groupCount("ann")).toBe(0);

    // Added by v1 (by user id), seen by v2 and by the import, which adds nothing again.
    expect((await app.request("POST", `${V1}/groups/${o.group}/principals/`, { as: o.admin, body: { principals: [{ user_id: "ben" }] } })).status).toBe(200);
    expect(await o.groupCount("ben")).toBe(1);
    const again = await app.store.imports.applyTenant(o.org, { groups: [{ key: "team", id: o.group, name: "Team", members: ["ben"] }] });
    expect(again.value.membersAdded).toBe(0);
    // Removed by username, as every member may be.
    expect((await app.request("DELETE", `${V1}/groups/${o.group}/principals/?usernames=ben`, { as: o.admin })).status).toBe(204);
    expect(await o.groupCount("ben")).toBe(0);
  });

  it("a member reaches the group's v2 grants while a member, and not after", async () => {
    const o = await organisation("op2");
    const role = await hostReader(o.admin);
    expect((await app.request("POST", `${V1}/groups/${o.group}/roles/`, { as: o.admin, body: { roles: [role] } })).status).toBe(200);
    const granted = async () =>
      (
        (await app.request("GET", `${V2}/role-bindings/?granted_subject_type=principal&granted_subject.principal.user_id=ann&limit=1000`, { as: o.admin })).body.data as { role: { id: string } }[]
      ).some((row) => row.role.id === role);
    expect(await granted()).toBe(false);
    await app.request("POST", `${V1}/groups/${o.group}/principals/`, { as: o.admin, body: { principals: [{ username: "ann" }] } });
    expect(await granted()).toBe(true);
    await app.request("DELETE", `${V1}/groups/${o.group}/principals/?usernames=ann`, { as: o.admin });
    expect(await granted()).toBe(false);
  });

  it.each([
    ["one unknown user among known ones", "POST", { principals: [{ username: "ann" }, { username: "nobody" }] }, "", 404],
    ["an unknown service account", "POST", { principals: [{ username: "ann" }, { clientId: "6b1f0c2e-8d4a-4e3b-9c5d-7a8b9c0d1e2f", type: "service-account" }] }, "", 404],
    ["a malformed principal", "POST", { principals: [{ username: "ann" }, { type: "robot" }] }, "", 400],
    ["one non-member among members", "DELETE", undefined, "?usernames=ann,ben,nobody", 404],
    ["a non-member service account", "DELETE", undefined, "?usernames=ann&service-accounts=6b1f0c2e-8d4a-4e3b-9c5d-7a8b9c0d1e2f", 404],
    ["no name at all", "DELETE", undefined, "?usernames=,", 400],
  ] as const)("refuses %s and changes nothing", async (_what, method, body, query, status) => {
    const o = await organisation(`op3-${method.toLowerCase()}-${status}-${query.length}-${JSON.stringify(body ?? "").length}`);
    if (method === "DELETE") await app.request("POST", `${V1}/groups/${o.group}/principals/`, { as: o.admin, body: { principals: [{ username: "ann" }, { username: "ben" }] } });
    const [before, audits] = [await o.members(), await o.auditCount()];
    const res = await app.request(method, `${V1}/groups/${o.group}/principals/${query}`, { as: o.admin, ...(body ? { body } : {}) });
    expect(res.status).toBe(status);
    expect(res.body.errors[0].status).toBe(String(status));
    expect(await o.members()).toEqual(before);
    expect(await o.auditCount()).toBe(audits);
  });
});

describe("one grant path", () => {
  it("a v1 group role and the same v2 grant are one binding, which v2 removes and v1 then no longer lists", async () => {
    const o = await organisation("op4");
    const role = await hostReader(o.admin);
    expect((await app.request("POST", `${V1}/groups/${o.group}/roles/`, { as: o.admin, body: { roles: [role] } })).status).toBe(200);
    const bindings = async () =>
      (await app.request("GET", `${V2}/role-bindings/?subject_type=group&subject_id=${o.group}&limit=1000`, { as: o.admin })).body.data as { role: { id: string }; resource: { id: string } }[];
    const [bound] = await bindings();
    expect(bound?.role.id).toBe(role);
    const resource = bound!.resource.id;

    // The same grant through v2 finds the v1 dual write's binding: still one row.
    const grant = { requests: [{ resource: { id: resource, type: "workspace" }, subject: { id: o.group, type: "group" }, role: { id: role } }] };
    expect((await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: o.admin, body: grant })).status).toBe(201);
    expect((await bindings()).map((b) => [b.role.id, b.resource.id])).toEqual([[role, resource]]);

    // Removed through v2: v1 lists the group without the role.
    const put = await app.request("PUT", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${resource}&subject_type=group&subject_id=${o.group}`, {
      as: o.admin,
      body: { roles: [] },
    });
    expect(put.status).toBe(200);
    expect(await bindings()).toEqual([]);
    expect((await app.request("GET", `${V1}/groups/${o.group}/roles/`, { as: o.admin })).body.data).toEqual([]);
  });

  it("a v2 grant to a group is v1's group role and member access", async () => {
    const o = await organisation("op5");
    const role = await hostReader(o.admin);
    await app.request("POST", `${V1}/groups/${o.group}/principals/`, { as: o.admin, body: { principals: [{ username: "ann" }] } });
    const ws = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: o.admin })).body.data[0].id;
    const grant = { requests: [{ resource: { id: ws, type: "workspace" }, subject: { id: o.group, type: "group" }, role: { id: role } }] };
    expect((await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: o.admin, body: grant })).status).toBe(201);
    const roles = (await app.request("GET", `${V1}/groups/${o.group}/roles/`, { as: o.admin })).body.data as { uuid: string }[];
    expect(roles.map((r) => r.uuid)).toEqual([role]);
    const access = (await app.request("GET", `${V1}/access/?application=inventory&username=ann`, { as: o.admin })).body.data as { permission: string }[];
    expect(access.map((a) => a.permission)).toContain("inventory:hosts:read");
  });

  it.each([
    ["a malformed role id", { roles: ["not-a-uuid"] }, 400],
    ["no role the organisation has", { roles: ["0c9d8e7f-6a5b-4c3d-8e1f-0a1b2c3d4e5f"] }, 404],
    ["no roles field", {}, 400],
  ] as const)("a v1 group-role write with %s changes nothing", async (_what, body, status) => {
    const o = await organisation(`op6-${status}-${JSON.stringify(body).length}`);
    const before = (await app.request("GET", `${V2}/role-bindings/?limit=1000`, { as: o.admin })).body.meta.count;
    const audits = await o.auditCount();
    const res = await app.request("POST", `${V1}/groups/${o.group}/roles/`, { as: o.admin, body });
    expect(res.status).toBe(status);
    expect((await app.request("GET", `${V2}/role-bindings/?limit=1000`, { as: o.admin })).body.meta.count).toBe(before);
    expect((await app.request("GET", `${V1}/groups/${o.group}/roles/`, { as: o.admin })).body.data).toEqual([]);
    expect(await o.auditCount()).toBe(audits);
  });
});
