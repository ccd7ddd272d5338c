import { encodeIdentityHeader } from "@gatehouse/auth";
import { openTestStore, type TestStore } from "@gatehouse/store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "../src/index.js";
import { testRoleConfiguration } from "./helpers.js";

const V2 = "/api/rbac/v2";
const ORG = "o-explain";
const OTHER = "o-other";
const EXPLAIN = `${V2}/access:explain/`;

interface Who {
  org: string;
  user: string;
  admin?: boolean;
  serviceAccount?: boolean;
}
const alice: Who = { org: ORG, user: "alice", admin: true };
const carol: Who = { org: ORG, user: "carol" };
const mallory: Who = { org: OTHER, user: "mallory", admin: true };

function identity(who: Who): string {
  if (who.serviceAccount) {
    const raw = { identity: { org_id: who.org, type: "ServiceAccount", service_account: { client_id: who.user, username: who.user, user_id: who.user } } };
    return Buffer.from(JSON.stringify(raw)).toString("base64");
  }
  return encodeIdentityHeader({ orgId: who.org, userId: who.user, username: who.user, isOrgAdmin: who.admin ?? false });
}

// The explain, permissions and parity endpoints through real HTTP over a store this file owns.
describe("access explorer endpoints", () => {
  let store: TestStore;
  let stop: () => Promise<void>;
  let base: string;
  const ids: Record<string, string> = {};

  const call = async (method: string, path: string, as: Who | null, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (as) headers["x-rh-identity"] = identity(as);
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { status: res.status, type: res.headers.get("content-type") ?? "", text, body: text ? (JSON.parse(text) as any) : null };
  };
  const explain = (body: unknown, as: Who | null = alice) => call("POST", EXPLAIN, as, body);
  const carolOn = (resource: { type: string; id: string }, permission = "patch_system_edit") => explain({ subject: { type: "user", id: "carol" }, permission, resource });

  beforeAll(async () => {
    store = await openTestStore({ name: "pglite" });
    const server = buildServer({ port: 0, host: "127.0.0.1" }, { store, roleConfiguration: await testRoleConfiguration(), consoleDir: null });
    const { port } = await server.start();
    base = `http://127.0.0.1:${port}`;
    stop = () => server.stop();

    const tenant = (await store.tenants.bootstrap(ORG)).value;
    ids["root"] = tenant.rootWorkspaceId;
    ids["default"] = tenant.defaultWorkspaceId;
    await store.principals.upsert(ORG, [
      { userId: "alice", username: "alice", isOrgAdmin: true },
      { userId: "bob", username: "bob" },
      { userId: "carol", username: "carol" },
    ]);
    const production = (await store.workspaces.create(ORG, { name: "Production", parentId: tenant.defaultWorkspaceId })).value.id;
    ids["production"] = production;
    ids["eu"] = (await store.workspaces.create(ORG, { name: "Production EU", parentId: production })).value.id;
    const operators = (await store.groups.create(ORG, { name: "Patch operators" })).value.id;
    ids["operators"] = operators;
    await store.groups.addMembers(ORG, operators, ["carol"]);
    const viewers = (await store.groups.create(ORG, { name: "Viewers" })).value.id;
    ids["viewers"] = viewers;
    await store.groups.addMembers(ORG, viewers, ["bob"]);
    const roles = (await store.roles.list(ORG, { limit: -1 })).data;
    const role = (name: string) => roles.find((r) => r.name === name)!.id;
    // A custom role bound below the level its application checks: disabling advisor recommendations is checked at the Root Workspace.
    const misLevelled = (await store.roles.create(ORG, { name: "Advisor recommendation switches (legacy)", permissions: ["advisor:disable-recommendations:write"], scope: "default" })).value.id;
    await store.roleBindings.batchCreate(ORG, [
      { resource: { type: "workspace", id: production }, subject: { type: "group", id: operators }, roleId: role("Inventory Hosts viewer") },
      { resource: { type: "workspace", id: production }, subject: { type: "group", id: operators }, roleId: role("Patch administrator") },
      { resource: { type: "workspace", id: tenant.defaultWorkspaceId }, subject: { type: "group", id: viewers }, roleId: role("Inventory Hosts viewer") },
      { resource: { type: "workspace", id: tenant.defaultWorkspaceId }, subject: { type: "group", id: viewers }, roleId: misLevelled },
    ]);
    ids["host"] = "0b7d1a52-5d0e-4b8a-9c55-2f3c1a9e00aa";
    await store.hosts.report(ORG, ids["host"], ids["eu"]!);

    const other = (await store.tenants.bootstrap(OTHER)).value;
    await store.principals.upsert(OTHER, [{ userId: "mallory", username: "mallory", isOrgAdmin: true }]);
    ids["otherWorkspace"] = (await store.workspaces.create(OTHER, { name: "Theirs", parentId: other.defaultWorkspaceId })).value.id;
    ids["otherGroup"] = (await store.groups.create(OTHER, { name: "Theirs" })).value.id;
    ids["otherHost"] = "0b7d1a52-5d0e-4b8a-9c55-2f3c1a9e00bb";
    await store.hosts.report(OTHER, ids["otherHost"], other.defaultWorkspaceId);
  });
  afterAll(async () => {
    await stop?.();
    await store?.close();
  });

  it("allows carol patch_system_edit on Production with the path user → group → binding (role) → workspace", async () => {
    const res = await carolOn({ type: "workspace", id: ids["production"]! });
    expect(res.status).toBe(200);
    expect(res.body.allowed).toBe(true);
    expect(res.body.revision).toBeGreaterThan(0);
    expect(res.body.permission).toMatchObject({ name: "patch_system_edit", v1: ["patch:system:write"], pattern: 2, checked_at: "default" });
    const grants = res.body.grants.map((g: any) => [g.grants, g.role.name, g.via_group?.name, g.bound_at.name, g.inherited_through.map((w: any) => w.name)]);
    expect(grants).toEqual(
      expect.arrayContaining([
        ["inventory_host_view", "Inventory Hosts viewer", "Patch operators", "Production", ["Production"]],
        ["patch_system_edit_assigned", "Patch administrator", "Patch operators", "Production", ["Production"]],
      ]),
    );
    expect(res.body.tree.allowed).toBe(true);
  });

  it("follows inheritance down to a child workspace and a host, and accepts the v1 form", async () => {
    const eu = await carolOn({ type: "workspace", id: ids["eu"]! }, "patch:system:write");
    expect(eu.body.allowed).toBe(true);
    expect(eu.body.permission.name).toBe("patch_system_edit");
    expect(eu.body.grants[0].inherited_through.map((w: any) => w.name)).toEqual(["Production", "Production EU"]);
    const host = await carolOn({ type: "host", id: ids["host"]! });
    expect(host.body.allowed).toBe(true);
    expect(host.body.grants[0].inherited_through.map((w: any) => w.type)).toEqual(["workspace", "workspace", "host"]);
  });

  it("denies carol at the Root Workspace and says where it is bound, where the application checks, and what would grant it", async () => {
    const res = await carolOn({ type: "workspace", id: ids["root"]! });
    expect(res.status).toBe(200);
    expect(res.body.allowed).toBe(false);
    expect(res.body.target_level).toBe("root");
    expect(res.body.summary).toContain("bound at the Production workspace");
    expect(res.body.summary).toContain("this application checks each resource in its own workspace (here the Root Workspace)");
    expect(res.body.evaluator_summary).toContain("grants inherit downward only");
    expect(res.body.grants).toEqual([]);
    expect(res.body.summary).toContain("grants inherit downward only, so that binding does not reach the Root Workspace");
    // A suggestion must be bindable there: a role scoped for the Root Workspace, attached to it.
    for (const suggestion of res.body.suggestions) expect(suggestion.resource.id).toBe(ids["root"]);
  });

  it("explains a group, a tenant target and a denial with nothing bound", async () => {
    const group = await explain({ subject: { type: "group", id: ids["viewers"]! }, permission: "inventory_host_view", resource: { type: "workspace", id: ids["eu"]! } });
    expect(group.body.allowed).toBe(true);
    expect(group.body.grants[0].bound_at.name).toBe("Default Workspace");
    const tenant = await explain({ subject: { type: "user", id: "bob" }, permission: "rbac_principal_read", resource: { type: "tenant", id: ORG } });
    const own = await explain({ subject: { type: "user", id: "bob" }, permission: "rbac_principal_read", resource: { type: "tenant" } });
    expect(own.body.resource.id).toBe(`redhat/${ORG}`);
    expect(tenant.status).toBe(200);
    expect(tenant.body.permission.checked_at).toBe("tenant");
    const none = await explain({ subject: { type: "user", id: "bob" }, permission: "patch_system_edit", resource: { type: "workspace", id: ids["default"]! } });
    expect(none.body.allowed).toBe(false);
    expect(none.body.summary).toContain("no role binding grants patch_system_edit");
    expect(none.body.suggestions.map((x: any) => [x.permission, x.resource.id, x.subject.id])).toEqual([["patch_system_edit_assigned", ids["default"], "bob"]]);
  });

  it("says where the application checks against the target asked about", async () => {
    const production = { type: "workspace", id: ids["production"]! };
    const hostLevel = await explain({ subject: { type: "user", id: "bob" }, permission: "patch_system_edit", resource: production });
    expect(hostLevel.body.summary).toContain("this application checks each resource in its own workspace (here the Production workspace)");
    expect(hostLevel.body.summary).not.toContain("checks at the Default Workspace");
    expect(hostLevel.body.permission.checked_at_label).toBe("resource's own workspace");
    const defaultLevel = await explain({ subject: { type: "user", id: "bob" }, permission: "content_sources_repository_edit", resource: production });
    expect(defaultLevel.body.summary).toContain("this application checks at the Default Workspace, not at the Production workspace");
    // The fix goes where the application checks, not on the target.
    expect(defaultLevel.body.fixes.map((f: any) => f.resource.id)).toEqual([ids["default"]]);
  });

  it("fixes bob's mis-levelled grant narrowly: a role with exactly that permission, at the Root Workspace, for the group he held it through; applied and undone through the calls it shows", async () => {
    const bobAdvisor = { subject: { type: "user", id: "bob" }, permission: "advisor_disable_recommendations_edit", resource: { type: "workspace", id: ids["root"]! } };
    const denied = await explain(bobAdvisor);
    expect(denied.body.allowed).toBe(false);
    expect(denied.body.fixes).toHaveLength(1);
    const fix = denied.body.fixes[0];
    expect(fix.role).toBeNull();
    expect(fix.new_role).toMatchObject({ name: "Advisor recommendation switches (legacy) (Root Workspace)", permissions: ["advisor:disable-recommendations:write"] });
    expect(fix.subject).toEqual({ type: "group", id: ids["viewers"], name: "Viewers" });
    expect(fix.resource.id).toBe(ids["root"]);
    expect(fix.preview.also_grants).toEqual([]);
    expect(fix.preview.also_members).toEqual([]);
    expect(fix.preview.also_reaches).toEqual(expect.arrayContaining(["Default Workspace", "Production", "Production EU"]));
    expect(fix.steps.map((s: any) => `${s.method} ${s.path}`)).toEqual(["POST /api/rbac/v2/roles/", "POST /api/rbac/v2/role-bindings:batchCreate/"]);
    expect(fix.undo_roles).toEqual([]);

    // Apply exactly the shown calls, the created role's id in place of the placeholder.
    const created = await call(fix.steps[0].method, fix.steps[0].path, alice, fix.steps[0].body);
    expect(created.status).toBe(201);
    const bind = JSON.parse(JSON.stringify(fix.steps[1].body).replaceAll("{created_role_id}", created.body.uuid ?? created.body.id));
    expect((await call(fix.steps[1].method, fix.steps[1].path, alice, bind)).status).toBe(201);
    expect((await explain(bobAdvisor)).body.allowed).toBe(true);
    const parity = await call("GET", `${V2}/access:parity/`, alice);
    expect(parity.body.report.lost.filter((l: any) => l.userId === "bob")).toEqual([]);

    // Undo: the group's roles on the Root Workspace back to what they were, then the created role.
    const undo = `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${ids["root"]}&subject_type=group&subject_id=${ids["viewers"]}`;
    expect((await call("PUT", undo, alice, { roles: fix.undo_roles.map((id: string) => ({ id })) })).status).toBe(200);
    expect((await call("POST", `${V2}/roles:batchDelete/`, alice, { ids: [created.body.uuid ?? created.body.id] })).status).toBe(204);
    expect((await explain(bobAdvisor)).body.allowed).toBe(false);
    expect((await call("GET", `${V2}/access:parity/`, alice)).body.report.lost.filter((l: any) => l.userId === "bob")).toHaveLength(1);
  });

  it("binds the user itself when no group carried the grant, and that fix is undone the same way", async () => {
    const bobPatch = { subject: { type: "user", id: "bob" }, permission: "patch_system_edit", resource: { type: "workspace", id: ids["production"]! } };
    const fix = (await explain(bobPatch)).body.fixes[0];
    expect(fix.subject).toMatchObject({ type: "user", id: "bob" });
    expect(fix.role).not.toBeNull();
    expect(fix.preview.also_grants.length).toBeGreaterThan(0); // an existing, broader role: what else it grants is shown
    expect(fix.steps).toHaveLength(1);
    expect((await call(fix.steps[0].method, fix.steps[0].path, alice, fix.steps[0].body)).status).toBe(201);
    expect((await explain(bobPatch)).body.allowed).toBe(true);
    const subject = fix.steps[0].body.requests[0].subject;
    const undo = `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${ids["production"]}&subject_type=user&subject_id=${subject.id}`;
    expect((await call("PUT", undo, alice, { roles: fix.undo_roles.map((id: string) => ({ id })) })).status).toBe(200);
    expect((await explain(bobPatch)).body.allowed).toBe(false);
  });

  it("answers bad input with problem+json 400s", async () => {
    const cases: [unknown, string][] = [
      [{ subject: { type: "user", id: "carol" }, permission: "no_such_permission", resource: { type: "workspace", id: ids["production"] } }, "permission"],
      [{ subject: { type: "user", id: "carol" }, permission: "x".repeat(129), resource: { type: "workspace", id: ids["production"] } }, "permission"],
      [{ subject: { type: "group", id: "not-a-uuid" }, permission: "patch_system_edit", resource: { type: "workspace", id: ids["production"] } }, "subject.id"],
      [{ subject: { type: "robot", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace", id: ids["production"] } }, "subject.type"],
      [{ subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace", id: "nope" } }, "resource.id"],
      [{ subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace", id: "a".repeat(300) } }, "resource.id"],
      [{ subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace", id: ids["production"] }, extra: 1 }, "extra"],
      [{ subject: { type: "user", id: "carol" }, permission: "rbac_workspace_view", resource: { type: "host", id: ids["host"] } }, "permission"],
      [{ subject: { type: "user", id: "carol" } }, "permission"],
      [{ subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace" } }, "resource.id"],
    ];
    for (const [body, field] of cases) {
      const res = await explain(body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(res.type).toContain("application/problem+json");
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
      expect(res.text.length).toBeLessThan(2000); // never echoes unbounded input
    }
    const notJson = await fetch(base + EXPLAIN, { method: "POST", headers: { "x-rh-identity": identity(alice), "content-type": "application/json" }, body: "{" });
    expect(notJson.status).toBe(400);
  });

  it("answers unknown subjects and targets, and another tenant's ids, with 404", async () => {
    const production = { type: "workspace", id: ids["production"]! };
    const cases: unknown[] = [
      { subject: { type: "user", id: "nobody" }, permission: "patch_system_edit", resource: production },
      { subject: { type: "group", id: "00000000-0000-4000-8000-000000000000" }, permission: "patch_system_edit", resource: production },
      { subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace", id: "00000000-0000-4000-8000-000000000000" } },
      { subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "host", id: "00000000-0000-4000-8000-000000000001" } },
      // Another tenant's user, group, workspace, host and tenant id.
      { subject: { type: "user", id: "mallory" }, permission: "patch_system_edit", resource: production },
      { subject: { type: "group", id: ids["otherGroup"] }, permission: "patch_system_edit", resource: production },
      { subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace", id: ids["otherWorkspace"] } },
      { subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "host", id: ids["otherHost"] } },
      { subject: { type: "user", id: "carol" }, permission: "rbac_principal_read", resource: { type: "tenant", id: `redhat/${OTHER}` } },
    ];
    for (const body of cases) {
      const res = await explain(body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.type).toContain("application/problem+json");
    }
    // From the other tenant's side, this tenant's ids are just as unknown.
    const theirs = await explain({ subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace", id: ids["production"] } }, mallory);
    expect(theirs.status).toBe(404);
  });

  it("lets org admins and service accounts explain, nobody else", async () => {
    const body = { subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace", id: ids["production"] } };
    const asCarol = await explain(body, carol);
    expect(asCarol.status).toBe(403);
    expect(asCarol.type).toContain("application/problem+json");
    expect((await explain(body, null)).status).toBe(401);
    expect((await call("GET", `${V2}/access:parity/`, carol)).status).toBe(403);
    // The permission catalogue is the schema's, no tenant data: any signed-in user reads it.
    expect((await call("GET", `${V2}/access:permissions/`, carol)).status).toBe(200);
    const sa = await explain(body, { org: ORG, user: "svc-console", serviceAccount: true });
    expect(sa.status).toBe(200);
    expect(sa.body.allowed).toBe(true);
  });

  it("answers any user about their own access only, without other members, the raw tree or API calls", async () => {
    const bob: Who = { org: ORG, user: "bob" };
    const self = (body: unknown, as: Who | null = bob) => call("POST", `${V2}/access:explain-self/`, as, body);
    const denied = await self({ permission: "advisor_disable_recommendations_edit", resource: { type: "workspace", id: ids["root"]! } });
    expect(denied.status).toBe(200);
    expect(denied.body.allowed).toBe(false);
    expect(denied.body.subject).toMatchObject({ type: "user", id: "bob" });
    expect(denied.body.summary).toContain("bound at the Default Workspace");
    expect(denied.body.ask).toEqual(["Ask an organisation administrator to bind a role holding exactly advisor:disable-recommendations:write to your group Viewers on Root Workspace."]);
    for (const hidden of ["tree", "fixes", "suggestions", "evaluator_summary"]) expect(denied.body).not.toHaveProperty(hidden);
    const allowed = await self({ permission: "patch_system_edit", resource: { type: "workspace", id: ids["production"]! } }, carol);
    expect(allowed.body.allowed).toBe(true);
    expect(allowed.body.grants[0].via_group.name).toBe("Patch operators");
    // A subject in the body is refused, not obeyed: nobody asks about someone else here.
    const other = await self({ subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "workspace", id: ids["production"]! } });
    expect(other.status).toBe(400);
    expect(other.body.errors.map((e: any) => e.field)).toContain("subject");
    // Another tenant's workspace is unknown; bad input is a 400; no credentials a 401.
    expect((await self({ permission: "patch_system_edit", resource: { type: "workspace", id: ids["otherWorkspace"]! } })).status).toBe(404);
    const bad = await self({ permission: "x".repeat(500), resource: { type: "tenant" } });
    expect(bad.status).toBe(400);
    expect(bad.text.length).toBeLessThan(2000);
    expect((await self({ permission: "patch_system_edit", resource: { type: "tenant" } }, null)).status).toBe(401);
  });

  it("tells the local sign-in whether an organisation exists, without creating it", async () => {
    const probe = (org: string) => call("GET", `${V2}/access:organisation/?org_id=${encodeURIComponent(org)}`, null);
    expect((await probe(ORG)).status).toBe(204);
    const typo = await probe("o-explian");
    expect(typo.status).toBe(404);
    expect(typo.type).toContain("application/problem+json");
    expect(await store.tenants.find("o-explian")).toBeUndefined();
    const bad = await probe("x".repeat(300));
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain("x".repeat(65));
  });

  it("lists the active catalogue's permissions with their v1 forms", async () => {
    const res = await call("GET", `${V2}/access:permissions/`, alice);
    expect(res.status).toBe(200);
    const edit = res.body.data.find((p: any) => p.name === "patch_system_edit");
    expect(edit).toMatchObject({ v1: ["patch:system:write"], pattern: 2, checked_at: "default", granted: ["patch_system_edit_assigned"] });
  });

  it("reports the mis-levelled v1 grant as lost, with the level explanation", async () => {
    const res = await call("GET", `${V2}/access:parity/`, alice);
    expect(res.status).toBe(200);
    expect(res.body.v1_assignments).toBeGreaterThan(0);
    const lost = res.body.report.lost.filter((l: any) => l.userId === "bob");
    expect(lost.map((l: any) => l.permission)).toEqual(["advisor:disable-recommendations:write"]);
    expect(lost[0]).toMatchObject({ checkedAt: "root", boundAt: ["default"], reason: "bound at Default Workspace, checked at Root Workspace" });
    expect(lost[0].checkObject.id).toBe(ids["root"]);
    // Bindings on Production are v2 grants, not v1 assignments: carol loses nothing.
    expect(res.body.report.lost.filter((l: any) => l.userId === "carol")).toEqual([]);
    expect(res.body.report.summary.grantsVerified).toBeGreaterThan(0);
  });

  it("documents the endpoints in the OpenAPI document", async () => {
    const doc = await call("GET", `${V2}/openapi.json`, null);
    expect(doc.body.paths[`${V2}/access:explain/`].post.operationId).toBe("Access_explain");
    expect(doc.body.paths[`${V2}/access:explain/`].post.responses["400"]).toBeDefined();
    expect(doc.body.paths[`${V2}/access:parity/`].get.operationId).toBe("Access_parity");
    expect(doc.body.paths[`${V2}/access:mode/`].get.operationId).toBe("Access_mode");
    expect(doc.body.paths[`${V2}/access:explain-self/`].post.operationId).toBe("Access_explainSelf");
  });
});
