// v1 role and group writes with their dual write into v2 bindings, the organisation's v1 / v2
// mode (with the activation race on real Postgres), the audit log and parity upkeep.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

const V1 = "/api/rbac/v1";
let app: TestApp;
let orgSeq = 0;

beforeAll(async () => {
  // Postgres: the activation race needs concurrent transactions of a real server.
  app = await startApp();
});
afterAll(() => app.stop());

/** A fresh organisation with an admin and a user recorded. */
async function org() {
  const name = `v1w${process.pid}x${++orgSeq}`;
  const admin = { org: name, user: `${name}-admin`, admin: true };
  const user = { org: name, user: `${name}-user` };
  for (const who of [admin, user]) await app.request("GET", `${V2}/workspaces/?type=default`, { as: who });
  const ws = async (type: string) => (await app.request("GET", `${V2}/workspaces/?type=${type}`, { as: admin })).body.data[0].id as string;
  return { name, admin, user, root: await ws("root"), default: await ws("default"), tenant: `redhat/${name}` };
}

/** Groups bound to the role directly on the resource (the store's rows, inherited ones excluded). */
async function bindingsOf(o: Awaited<ReturnType<typeof org>>, resourceType: "tenant" | "workspace", resourceId: string, roleId: string) {
  const rows = (await app.store.roleBindings.list(o.name, { resource: { type: resourceType, id: resourceId }, roleId, limit: -1 })).data;
  return rows.flatMap((b) => b.subjects.filter((s) => s.type === "group").map((s) => s.id));
}

const access = (...permissions: string[]) => permissions.map((permission) => ({ permission, resourceDefinitions: [] }));

describe("v1 role writes with dual write", () => {
  it("creates a custom role, binds it to a group at its level, moves the binding when its level changes, and deletes it", async () => {
    const o = await org();
    const group = (await app.request("POST", `${V1}/groups/`, { as: o.admin, body: { name: "ops" } })).body.uuid;
    await app.request("POST", `${V1}/groups/${group}/principals/`, { as: o.admin, body: { principals: [{ username: o.user.user }] } });
    const created = await app.request("POST", `${V1}/roles/`, { as: o.admin, body: { name: "Patchers", description: "d", access: access("patch:system:read") } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Patchers", display_name: "Patchers", description: "d", system: false, accessCount: 1, applications: ["patch"] });
    expect(created.body.access).toEqual(access("patch:system:read"));
    const role = created.body.uuid as string;

    const added = await app.request("POST", `${V1}/groups/${group}/roles/`, { as: o.admin, body: { roles: [role] } });
    expect(added.status).toBe(200);
    expect(added.body.data.map((r: { uuid: string }) => r.uuid)).toEqual([role]);
    // Patch systems are checked at the Default Workspace (Pattern 2): the binding is there.
    expect(await bindingsOf(o, "workspace", o.default, role)).toEqual([group]);
    const seen = await app.request("GET", `${V1}/access/?application=patch&username=${o.user.user}`, { as: o.admin });
    expect(seen.body.data).toContainEqual(access("patch:system:read")[0]);

    // Adding an organisation-level permission (user access) moves the binding to the tenant.
    const moved = await app.request("PUT", `${V1}/roles/${role}/`, { as: o.admin, body: { name: "Patchers", access: access("patch:system:read", "rbac:principal:read") } });
    expect(moved.status).toBe(200);
    expect(await bindingsOf(o, "workspace", o.default, role)).toEqual([]);
    expect(await bindingsOf(o, "tenant", o.tenant, role)).toEqual([group]);
    // An advisor permission checked at the Root Workspace only: bound at root.
    const root = await app.request("PUT", `${V1}/roles/${role}/`, { as: o.admin, body: { name: "Patchers", access: access("advisor:disable-recommendations:write") } });
    expect(root.status).toBe(200);
    expect(await bindingsOf(o, "tenant", o.tenant, role)).toEqual([]);
    expect(await bindingsOf(o, "workspace", o.root, role)).toEqual([group]);

    const patched = await app.request("PATCH", `${V1}/roles/${role}/`, { as: o.admin, body: { display_name: "Patch team" } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Patchers", display_name: "Patch team", accessCount: 1 });
    const badPatch = await app.request("PATCH", `${V1}/roles/${role}/`, { as: o.admin, body: { access: [] } });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.errors[0].detail).toBe("Field 'access' is not supported. Please use one or more of: ['name', 'display_name', 'description'].");

    expect((await app.request("DELETE", `${V1}/roles/${role}/`, { as: o.admin })).status).toBe(204);
    expect(await bindingsOf(o, "workspace", o.root, role)).toEqual([]);
    expect((await app.request("GET", `${V1}/roles/${role}/`, { as: o.admin })).status).toBe(404);
  });

  it("binds a role limited to inventory groups on those workspaces only", async () => {
    const o = await org();
    const ws = (await app.request("POST", `${V2}/workspaces/`, { as: o.admin, body: { name: "edge", parent_id: o.default } })).body.id as string;
    const group = (await app.request("POST", `${V1}/groups/`, { as: o.admin, body: { name: "edge-ops" } })).body.uuid;
    const role = (
      await app.request("POST", `${V1}/roles/`, {
        as: o.admin,
        body: { name: "Edge hosts", access: [{ permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "in", value: [ws] } }] }] },
      })
    ).body.uuid as string;
    expect((await app.request("POST", `${V1}/groups/${group}/roles/`, { as: o.admin, body: { roles: [role] } })).status).toBe(200);
    expect(await bindingsOf(o, "workspace", ws, role)).toEqual([group]);
    expect(await bindingsOf(o, "workspace", o.default, role)).toEqual([]);
    // Removing the role from the group removes its bindings.
    expect((await app.request("DELETE", `${V1}/groups/${group}/roles/?roles=${role}`, { as: o.admin })).status).toBe(204);
    expect(await bindingsOf(o, "workspace", ws, role)).toEqual([]);
  });

  it("refuses bad role bodies with upstream's words and changes nothing", async () => {
    const o = await org();
    const cases: [unknown, string][] = [
      [{ name: "x" }, "A list of access is expected, but NoneType is found."],
      [{ name: "x", access: "nope" }, "A list of access is expected, but str is found."],
      [{ name: "x", access: [{ permission: "nope", resourceDefinitions: [] }] }, 'Permission must be of the format "application:resource_type:operation".'],
      [{ name: "x", access: access("nothing:here:read") }, "Permission does not exist: nothing:here:read"],
      [
        { name: "x", access: [{ permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "in", value: ["bad"] } }] }] },
        "attributeFilter with key 'group.id' must contain only valid UUIDs or None, invalid values: ['bad']",
      ],
      [
        { name: "x", access: [{ permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: { key: "a", operation: "like", value: "b" } }] }] },
        "attributeFilter operation must be one of ['in', 'equal']",
      ],
      [{ access: access("inventory:hosts:read") }, "This field is required."],
    ];
    for (const [body, detail] of cases) {
      const res = await app.request("POST", `${V1}/roles/`, { as: o.admin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].detail).toBe(detail);
    }
    const other = await org();
    const foreign = await app.request("POST", `${V1}/roles/`, {
      as: o.admin,
      body: { name: "x", access: [{ permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: { key: "group.id", operation: "equal", value: other.default } }] }] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0].detail).toContain("to workspace outside their org. Invalid workspace IDs:");
    const listed = await app.request("GET", `${V1}/roles/?system=false`, { as: o.admin });
    expect(listed.body.meta.count).toBe(0);
    // Nothing written, nothing logged.
    expect((await app.request("GET", `${V1}/auditlogs/`, { as: o.admin })).body.meta.count).toBe(0);
  });

  it("keeps system roles immutable and the admin default group's roles fixed", async () => {
    const o = await org();
    const system = (await app.request("GET", `${V1}/roles/?system=true&limit=1`, { as: o.admin })).body.data[0].uuid;
    expect((await app.request("DELETE", `${V1}/roles/${system}/`, { as: o.admin })).body.errors[0].detail).toBe("System roles cannot be deleted.");
    expect((await app.request("PUT", `${V1}/roles/${system}/`, { as: o.admin, body: { name: "x", access: [] } })).body.errors[0].detail).toBe("System roles may not be updated.");
    const adminGroup = (await app.request("GET", `${V1}/groups/?limit=100`, { as: o.admin })).body.data.find((g: { admin_default: boolean }) => g.admin_default).uuid;
    const res = await app.request("POST", `${V1}/groups/${adminGroup}/roles/`, { as: o.admin, body: { roles: [system] } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].detail).toBe("Default admin access cannot be modified.");
    expect((await app.request("POST", `${V1}/roles/`, { as: o.user, body: { name: "x", access: [] } })).status).toBe(403);
  });

  it("updates a group and logs every write in the audit log", async () => {
    const o = await org();
    const group = (await app.request("POST", `${V1}/groups/`, { as: o.admin, body: { name: "g1" } })).body.uuid;
    const put = await app.request("PUT", `${V1}/groups/${group}/`, { as: o.admin, body: { name: "g2", description: "renamed" } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ uuid: group, name: "g2", description: "renamed" });
    const role = (await app.request("POST", `${V1}/roles/`, { as: o.admin, body: { name: "r1", access: access("inventory:hosts:read") } })).body.uuid;
    await app.request("POST", `${V1}/groups/${group}/roles/`, { as: o.admin, body: { roles: [role] } });
    const logs = await app.request("GET", `${V1}/auditlogs/?order_by=created&limit=100`, { as: o.admin });
    expect(logs.status).toBe(200);
    expect(logs.body.data.map((l: { description: string; action: string; resource_type: string }) => [l.resource_type, l.action, l.description])).toEqual([
      ["group", "create", "Created group: g1"],
      ["group", "edit", "group g1: \n Edited name \nEdited description"],
      ["role", "create", "Created role: r1"],
      ["group", "add", "role r1 added to group: g2"],
    ]);
    expect(logs.body.data[0]).toEqual({
      sequence: expect.any(Number),
      created: expect.any(String),
      principal_username: o.admin.user,
      description: "Created group: g1",
      resource_type: "group",
      action: "create",
    });
    const roles = await app.request("GET", `${V1}/auditlogs/?resource_type=role`, { as: o.admin });
    expect(roles.body.meta.count).toBe(1);
    expect((await app.request("GET", `${V1}/auditlogs/`, { as: o.user })).status).toBe(403);
    expect((await app.request("GET", `${V1}/auditlogs/?action=fly`, { as: o.admin })).status).toBe(400);
  });
});

describe("one role name rule for v1 and v2 writes", () => {
  const v2Role = (name: string) => ({ name, permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] });

  it("refuses a v1 role's name or display name to either API, each in its own words, writing nothing", async () => {
    const o = await org();
    const ops = await app.request("POST", `${V1}/roles/`, { as: o.admin, body: { name: "Ops", display_name: "Ops team", access: access("inventory:hosts:read") } });
    expect(ops.status).toBe(201);
    const v1Refusals: [unknown, string, string][] = [
      [{ name: "ops", access: [] }, "Role 'ops' already exists for a tenant.", "role"],
      [{ name: "Other", display_name: "OPS TEAM", access: [] }, "Role 'Other' already exists for a tenant.", "role"],
      [{ name: "Default access (organization)", access: [] }, "Role name 'Default access (organization)' conflicts with an existing system role.", "name"],
    ];
    for (const [body, detail, source] of v1Refusals) {
      const res = await app.request("POST", `${V1}/roles/`, { as: o.admin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors).toEqual([{ detail, source, status: "400" }]);
    }
    for (const name of ["OPS", "ops team"]) {
      const res = await app.request("POST", `${V2}/roles/`, { as: o.admin, body: v2Role(name) });
      expect(res.status, name).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.body).toMatchObject({ status: 400, detail: `A role with name '${name}' already exists for this tenant.`, errors: [{ field: "name" }] });
    }
    // Nothing written: the organisation is still in v1 mode and holds the one role.
    expect((await app.request("GET", `${V2}/access:mode/`, { as: o.admin })).body.mode).toBe("v1");
    expect((await app.request("GET", `${V1}/roles/?system=false`, { as: o.admin })).body.meta.count).toBe(1);
  });

  it("holds a v2 rename to the same rule, against a v1 role's display name too", async () => {
    const o = await org();
    await app.request("POST", `${V1}/roles/`, { as: o.admin, body: { name: "Ops", display_name: "Ops team", access: access("inventory:hosts:read") } });
    const patchers = await app.request("POST", `${V2}/roles/`, { as: o.admin, body: v2Role("Patchers") });
    expect(patchers.status).toBe(201);
    for (const name of ["ops", "OPS TEAM"]) {
      const res = await app.request("PUT", `${V2}/roles/${patchers.body.id}/`, { as: o.admin, body: v2Role(name) });
      expect(res.status, name).toBe(400);
      expect(res.body).toMatchObject({ detail: `A role with name '${name}' already exists for this tenant.`, errors: [{ field: "name" }] });
    }
    const seeded = await app.request("PUT", `${V2}/roles/${patchers.body.id}/`, { as: o.admin, body: v2Role("User Access administrator") });
    expect(seeded.body).toMatchObject({ status: 400, detail: "Role name 'User Access administrator' conflicts with an existing system role." });
    expect((await app.request("GET", `${V2}/roles/${patchers.body.id}/`, { as: o.admin })).body.name).toBe("Patchers");
  });
});

describe("organisation mode", () => {
  it("activates v2 on the first v2 role-binding write; v1 role writes are refused after", async () => {
    const o = await org();
    const mode = async () => (await fetch(`${app.baseUrl}/admin/orgs/${o.name}/mode`)).json() as Promise<{ mode: string }>;
    expect((await mode()).mode).toBe("v1");
    const role = (await app.request("POST", `${V1}/roles/`, { as: o.admin, body: { name: "r1", access: access("inventory:hosts:read") } })).body.uuid;
    const group = (await app.request("POST", `${V1}/groups/`, { as: o.admin, body: { name: "g" } })).body.uuid;
    // A v2 read activates nothing.
    await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${o.default}`, { as: o.admin });
    expect((await mode()).mode).toBe("v1");
    const bound = await app.request("POST", `${V2}/role-bindings:batchCreate/`, {
      as: o.admin,
      body: { requests: [{ resource: { id: o.default, type: "workspace" }, subject: { id: group, type: "group" }, role: { id: role } }] },
    });
    expect(bound.status).toBe(201);
    expect((await mode()).mode).toBe("v2");
    const refused = await app.request("POST", `${V1}/roles/`, { as: o.admin, body: { name: "r2", access: [] } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ errors: [{ detail: "V1 write operations are not allowed for orgs using workspaces.", source: "detail", status: "403" }] });
    const groupRoles = await app.request("DELETE", `${V1}/groups/${group}/roles/?roles=${role}`, { as: o.admin });
    expect(groupRoles.status).toBe(403);
    expect(groupRoles.body.errors[0].detail).toBe("V1 role-to-group assignment operations are not allowed for orgs using workspaces. Use v2 role bindings instead.");
    // Groups stay shared by v1 and v2.
    expect((await app.request("PUT", `${V1}/groups/${group}/`, { as: o.admin, body: { name: "g2" } })).status).toBe(200);
  });

  it("lets an operator activate v2 only while parity shows no lost grant, when asked", async () => {
    const o = await org();
    const activate = (query = "") => fetch(`${app.baseUrl}/admin/orgs/${o.name}/mode/v2${query}`, { method: "POST" });
    const ok = await activate("?require_parity=true");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ org_id: o.name, mode: "v2", parity_lost: 0, changed: true });
    expect(await (await activate()).json()).toMatchObject({ mode: "v2", changed: false });
    expect((await fetch(`${app.baseUrl}/admin/orgs/no-such-org/mode`)).status).toBe(404);
  });

  it("lets no v1 write commit after activation: the store's own check, concurrent transactions", async () => {
    const o = await org();
    const targets = { levels: ["default" as const], workspaceIds: [] };
    const write = (i: number) =>
      app.store.v1Writes.createRole(o.name, { name: `store-race-${i}`, displayName: `store-race-${i}`, description: null, access: [], scope: "default", targets }).then(
        (w) => ({ ok: true as const, created: w.value.created }),
        (e: unknown) => ({ ok: false as const, code: (e as { code?: string }).code }),
      );
    const [activation, ...writes] = await Promise.all([app.store.orgMode.activate(o.name), ...Array.from({ length: 16 }, (_, i) => write(i))]);
    const activatedAt = activation.value.v2ActivatedAt!.getTime();
    for (const w of writes) {
      if (w.ok) expect(w.created.getTime()).toBeLessThanOrEqual(activatedAt);
      else expect(w.code).toBe("v2-activated");
    }
    expect((await write(99)).ok).toBe(false);
  });

  it("lets no v1 write commit after activation (concurrent writers)", async () => {
    const o = await org();
    const writers = 12;
    const results = await Promise.all([
      ...Array.from({ length: writers }, (_, i) => app.request("POST", `${V1}/roles/`, { as: o.admin, body: { name: `race-${i}`, access: access("inventory:hosts:read") } })),
      fetch(`${app.baseUrl}/admin/orgs/${o.name}/mode/v2`, { method: "POST" }).then((r) => r.json() as Promise<{ v2_activated_at: string }>),
    ]);
    const activation = results.pop() as { v2_activated_at: string };
    const roles = results as Awaited<ReturnType<TestApp["request"]>>[];
    for (const r of roles) expect([201, 403]).toContain(r.status);
    // Every role that was created was created before the activation committed.
    const created = (await app.request("GET", `${V1}/roles/?system=false&limit=100`, { as: o.admin })).body.data as { name: string; created: string }[];
    expect(created.length).toBe(roles.filter((r) => r.status === 201).length);
    for (const r of created) expect(Date.parse(r.created)).toBeLessThanOrEqual(Date.parse(activation.v2_activated_at));
    expect((await app.request("POST", `${V1}/roles/`, { as: o.admin, body: { name: "late", access: [] } })).status).toBe(403);
  });
});
