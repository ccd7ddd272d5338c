import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const admin = { org: "err1", user: "e-admin", admin: true };
const PROBLEM = "application/problem+json";

beforeAll(async () => {
  app = await startApp({ maxBodyBytes: 2048 });
});
afterAll(() => app.stop());

async function workspaceCount(): Promise<number> {
  return (await app.request("GET", `${V2}/workspaces/?limit=-1`, { as: admin })).body.meta.count;
}

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, field?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain(PROBLEM);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.title).toBe("string");
  expect(res.body.detail).toBe(res.body.errors[0].message);
  expect(res.body.type).toMatch(/^http:\/\/project-kessel\.org\/problems\//);
  if (field) expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}

describe("malformed input changes nothing", () => {
  it.each([
    ["malformed JSON", { raw: '{"name": "x",' }, 400, undefined],
    ["a wrong type", { body: { name: 42 } }, 400, "name"],
    ["an unknown field", { body: { name: "ok", colour: "red" } }, 400, "colour"],
    ["a missing required field", { body: { description: "no name" } }, 400, "name"],
    ["a bad parent UUID", { body: { name: "ok", parent_id: "not-a-uuid" } }, 400, "parent_id"],
    ["a NUL byte", { body: { name: "bad\u0000name" } }, 400, "name"],
    ["an oversized body", { body: { name: "big", description: "x".repeat(4096) } }, 413, undefined],
    ["a non-JSON content type", { raw: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }, 415, undefined],
    ["a too long name", { body: { name: "n".repeat(256) } }, 400, "name"],
    ["forbidden characters in the name", { body: { name: "semi;colon" } }, 400, "name"],
  ] as const)("rejects %s", async (_name, options, status, field) => {
    const before = await workspaceCount();
    const res = await app.request("POST", `${V2}/workspaces/`, { as: admin, ...(options as object) });
    expectProblem(res, status, field);
    expect(res.body.title).toBe(status === 400 ? "The request payload contains invalid syntax." : "An error occurred.");
    expect(await workspaceCount()).toBe(before);
  });

  it.each([
    ["limit=abc", "limit"],
    ["limit=0", "limit"],
    ["limit=-5", "limit"],
    ["offset=-1", "offset"],
    ["type=galaxy", "type"],
    ["order_by=colour", "order_by"],
    ["parent_id=xyz", "parent_id"],
    ["ids=a,b", "ids"],
    ["with_ancestry=maybe", "with_ancestry"],
    ["name=a%00b", "name"],
  ])("rejects the query %s", async (query, field) => {
    expectProblem(await app.request("GET", `${V2}/workspaces/?${query}`, { as: admin }), 400, field);
  });

  it("clamps limits above the maximum as insights-rbac does", async () => {
    const res = await app.request("GET", `${V2}/workspaces/?limit=999999`, { as: admin });
    expect(res.body.meta.limit).toBe(3000);
  });

  it("answers a bad UUID in the path with 400 and an unknown one with 404", async () => {
    const bad = await app.request("GET", `${V2}/workspaces/nope/`, { as: admin });
    expectProblem(bad, 400, "id");
    expect(bad.body.detail).toBe("'nope' is not a valid UUID.");
    const missing = await app.request("GET", `${V2}/workspaces/00000000-0000-4000-8000-000000000000/`, { as: admin });
    expectProblem(missing, 404);
    expect(missing.body).toMatchObject({ title: "Not found.", detail: "No Workspace matches the given query.", errors: [{ field: "detail" }] });
    expect(missing.body.instance).toBeUndefined();
  });

  it("adds instance on PUT, PATCH and DELETE errors", async () => {
    const path = `${V2}/workspaces/00000000-0000-4000-8000-000000000000/`;
    for (const method of ["PATCH", "DELETE"]) {
      const res = await app.request(method, path, { as: admin, ...(method === "PATCH" ? { body: {} } : {}) });
      expect(res.body.instance).toBe(path);
    }
  });

  it("answers a missing identity with an empty 401 and a missing org with the plain 400", async () => {
    const none = await app.request("GET", `${V2}/workspaces/`, { as: null });
    expect(none.status).toBe(401);
    expect(none.text).toBe("");
    const noOrg = Buffer.from(JSON.stringify({ identity: { user: { username: "u", user_id: "u" } } })).toString("base64");
    const res = await app.request("GET", `${V2}/workspaces/`, { as: null, headers: { "x-rh-identity": noOrg } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: "An org_id must be provided in the identity header." });
  });

  it("rejects a role write with bad permissions without creating anything", async () => {
    const before = (await app.request("GET", `${V2}/roles/?limit=-1`, { as: admin })).body.data.length;
    const res = await app.request("POST", `${V2}/roles/`, {
      as: admin,
      body: { name: "Bad", permissions: [{ application: "inventory", resource_type: "hosts", operation: "read", extra: 1 }] },
    });
    expectProblem(res, 400, "permissions.0.extra");
    expect((await app.request("GET", `${V2}/roles/?limit=-1`, { as: admin })).body.data.length).toBe(before);
  });

  it("enforces the per-organisation workspace limit", async () => {
    const small = await startApp({ workspaceOrgLimit: 1 });
    try {
      const limited = { org: "err-limit", user: "l-admin", admin: true };
      expect((await small.request("POST", `${V2}/workspaces/`, { as: limited, body: { name: "one" } })).status).toBe(201);
      const second = await small.request("POST", `${V2}/workspaces/`, { as: limited, body: { name: "two" } });
      expect(second.status).toBe(400);
      expect(second.body.detail).toMatch(/^Workspace limit reached \(1\/1\)/);
    } finally {
      await small.stop();
    }
  });

  it("answers unknown routes and paths without the trailing slash with 404", async () => {
    expect((await app.request("GET", `${V2}/workspaces`, { as: admin })).status).toBe(404);
    expect((await app.request("GET", `${V2}/nothing/`, { as: admin })).status).toBe(404);
  });
});
