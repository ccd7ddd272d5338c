// Time-bound grants over HTTP: expires_at on batchCreate and by-subject PUT, validation, the
// OpenAPI document naming the extension, explain saying until when, and the periodic cleanup.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const admin = { org: "exp1", user: "exp-admin", admin: true };
const carol = { org: "exp1", user: "carol", admin: false };
let ws: string;
let roleId: string;
let groupId: string;
// The clock of the store and the API's answers, which judges expiries and drives the sweep: the
// test moves it past an expiry instead of waiting for the machine's clock to get there.
let clock = Date.now();

beforeAll(async () => {
  app = await startApp({ expiredGrantSweepIntervalMs: 100 }, { backend: "pglite", now: () => clock });
  await app.request("GET", `${V2}/workspaces/`, { as: carol });
  ws = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Temporary" } })).body.id;
  groupId = (await app.request("POST", "/api/rbac/v1/groups/", { as: admin, body: { name: "On call" } })).body.uuid;
  await app.request("POST", `/api/rbac/v1/groups/${groupId}/principals/`, { as: admin, body: { principals: [{ username: "carol" }] } });
  roleId = (await app.request("POST", `${V2}/roles/`, { as: admin, body: { name: "Temp editor", permissions: [{ application: "inventory", resource_type: "hosts", operation: "write" }] } })).body.id;
});
afterAll(() => app.stop());

const bindings = async () => (await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${ws}&role_id=${roleId}&exclude_sources=indirect`, { as: admin })).body.data;

describe("expiring role bindings", () => {
  it("documents expires_at in the OpenAPI document as an optional extension", async () => {
    const doc = (await app.request("GET", "/api/rbac/v2/openapi.json", { as: admin })).body;
    const text = JSON.stringify(doc);
    expect(text).toContain("expires_at");
    expect(text).toContain("Gatehouse extension");
  });

  it("shows expires_at in the list and by-subject answers only for a time-bound grant", async () => {
    const listWs = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Listed expiry" } })).body.id;
    const permanentGroup = (await app.request("POST", "/api/rbac/v1/groups/", { as: admin, body: { name: "Permanent staff" } })).body.uuid;
    const expiresAt = "2099-01-31T18:00:00.000Z";
    const grant = (subject: string, expiry?: string) => ({
      resource: { id: listWs, type: "workspace" },
      subject: { id: subject, type: "group" },
      role: { id: roleId },
      ...(expiry ? { expires_at: expiry } : {}),
    });
    const created = await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body: { requests: [grant(groupId, expiresAt), grant(permanentGroup)] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    // One binding with two subjects: a subject filter shows each subject's own grant.
    const listed = async (subject: string, extra = "") =>
      (await app.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${listWs}&exclude_sources=indirect&subject_type=group&subject_id=${subject}${extra}`, { as: admin })).body
        .data;
    expect(await listed(groupId)).toEqual([
      { role: expect.objectContaining({ id: roleId }), subject: { id: groupId, type: "group" }, resource: { id: listWs }, sources: [{ id: listWs }], expires_at: expiresAt },
    ]);
    expect((await listed(permanentGroup))[0]).not.toHaveProperty("expires_at");
    // A `fields` selection shows it only when it names it.
    expect((await listed(groupId, "&fields=role(name)"))[0]).not.toHaveProperty("expires_at");
    expect((await listed(groupId, "&fields=role(name),expires_at"))[0]).toMatchObject({ role: { id: roleId, name: "Temp editor" }, expires_at: expiresAt });

    const bySubject = (await app.request("GET", `${V2}/role-bindings/by-subject/?resource_type=workspace&resource_id=${listWs}&exclude_sources=indirect`, { as: admin })).body.data as {
      subject: { id: string };
      expires_at?: string;
    }[];
    expect(bySubject.find((row) => row.subject.id === groupId)?.expires_at).toBe(expiresAt);
    expect(bySubject.find((row) => row.subject.id === permanentGroup)).not.toHaveProperty("expires_at");

    // Granted again without expiry: permanent, and the answers show no expiry.
    await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body: { requests: [grant(groupId)] } });
    expect((await listed(groupId))[0]).not.toHaveProperty("expires_at");
  });

  it("shows until when in explain, and the sweep removes the binding after expiry", async () => {
    const expiresAt = new Date(clock + 3_600_000).toISOString();
    const body = { requests: [{ resource: { id: ws, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: roleId }, expires_at: expiresAt }] };
    const created = await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.role_bindings[0].expires_at).toBe(expiresAt);
    // Without expires_at the response is exactly insights-rbac's shape.
    const plain = await app.request("POST", `${V2}/role-bindings:batchCreate/`, {
      as: admin,
      body: { requests: [{ resource: { id: ws, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: roleId } }] },
    });
    expect(plain.body.role_bindings[0]).not.toHaveProperty("expires_at");
    // Writing it again without expires_at made it permanent: bind it again with one.
    await app.request("POST", `${V2}/role-bindings:batchCreate/`, { as: admin, body });
    expect(await bindings()).toHaveLength(1);

    const explained = await app.request("POST", `${V2}/access:explain/`, {
      as: admin,
      body: { subject: { type: "user", id: "carol" }, permission: "inventory_host_update", resource: { type: "workspace", id: ws } },
    });
    expect(explained.status, JSON.stringify(explained.body)).toBe(200);
    expect(explained.body.evaluator_summary).toContain(`granted until ${expiresAt}`);
    // Still there by the store's clock; once the clock passes the expiry, the periodic sweep
    // (not this test) removes it: wait for that, however long the machine takes.
    expect(await bindings()).toHaveLength(1);
    clock = Date.parse(expiresAt);
    while ((await bindings()).length > 0) await new Promise((r) => setTimeout(r, 50));
    expect(await bindings()).toEqual([]);
  });
});

// The answers judge expiry by the clock the server was given (the store's), not the machine's:
// with the sweep off, a grant past its expiry on that clock is still stored but no longer grants.
describe("answers judge expiry by the server's clock", () => {
  let clocked: TestApp;
  let at = Date.now();
  beforeAll(async () => {
    clocked = await startApp({ expiredGrantSweepIntervalMs: 0 }, { backend: "pglite", now: () => at });
  });
  afterAll(() => clocked?.stop());

  it("explain allows until the clock reaches the expiry and denies from then on, while the binding is still stored", async () => {
    const org = { org: "exp2", user: "exp2-admin", admin: true };
    const dave = { org: "exp2", user: "dave", admin: false };
    await clocked.request("GET", `${V2}/workspaces/`, { as: dave });
    const workspace = (await clocked.request("POST", `${V2}/workspaces/`, { as: org, body: { name: "Clocked" } })).body.id;
    const role = (await clocked.request("POST", `${V2}/roles/`, { as: org, body: { name: "Clocked editor", permissions: [{ application: "inventory", resource_type: "hosts", operation: "write" }] } }))
      .body.id;
    const group = (await clocked.request("POST", "/api/rbac/v1/groups/", { as: org, body: { name: "Clocked group" } })).body.uuid;
    await clocked.request("POST", `/api/rbac/v1/groups/${group}/principals/`, { as: org, body: { principals: [{ username: "dave" }] } });
    // A minute ahead of the server's clock, and years behind the machine's: only the server's clock can allow it.
    at = Date.parse("2001-01-01T00:00:00.000Z");
    const expiresAt = new Date(at + 60_000).toISOString();
    const created = await clocked.request("POST", `${V2}/role-bindings:batchCreate/`, {
      as: org,
      body: { requests: [{ resource: { id: workspace, type: "workspace" }, subject: { id: group, type: "group" }, role: { id: role }, expires_at: expiresAt }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const explain = async () =>
      (
        await clocked.request("POST", `${V2}/access:explain/`, {
          as: org,
          body: { subject: { type: "user", id: "dave" }, permission: "inventory_host_update", resource: { type: "workspace", id: workspace } },
        })
      ).body;
    const before = await explain();
    expect(before.allowed, JSON.stringify(before)).toBe(true);
    expect(before.evaluator_summary).toContain(`granted until ${expiresAt}`);

    at = Date.parse(expiresAt);
    const after = await explain();
    expect(after.allowed, JSON.stringify(after)).toBe(false);
    // Nothing swept it: the binding is still stored, the answer alone applied the clock.
    const stored = await clocked.request("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${workspace}&role_id=${role}&exclude_sources=indirect`, { as: org });
    expect(stored.body.data).toHaveLength(1);
  });
});
