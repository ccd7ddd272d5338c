// GET /api/rbac/v2/access:mode/: the caller's own organisation's v1 / v2 mode, read by the console
// to choose the API of its role writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
beforeAll(async () => {
  app = await startApp({}, { backend: "pglite" });
});
afterAll(() => app.stop());

describe("the caller's organisation mode", () => {
  it("answers v1 until the first v2 role write, then v2, to any signed-in user of the organisation only", async () => {
    const admin = { org: "mode-self", user: "mode-admin", admin: true };
    const user = { org: "mode-self", user: "mode-user" };
    const other = { org: "mode-other", user: "other-admin", admin: true };
    for (const who of [admin, user]) {
      const res = await app.request("GET", `${V2}/access:mode/`, { as: who });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ org_id: "mode-self", mode: "v1", v2_activated_at: null });
    }
    const created = await app.request("POST", `${V2}/roles/`, {
      as: admin,
      body: { name: "Patch readers", permissions: [{ application: "patch", resource_type: "system", operation: "read" }] },
    });
    expect(created.status).toBe(201);
    const after = await app.request("GET", `${V2}/access:mode/`, { as: user });
    expect(after.body).toMatchObject({ org_id: "mode-self", mode: "v2" });
    expect(typeof after.body.v2_activated_at).toBe("string");
    // Another organisation's mode is its own; no caller, no answer; the path only reads.
    expect((await app.request("GET", `${V2}/access:mode/`, { as: other })).body).toMatchObject({ org_id: "mode-other", mode: "v1" });
    expect((await app.request("GET", `${V2}/access:mode/`, { as: null })).status).toBe(401);
    expect((await app.request("POST", `${V2}/access:mode/`, { as: admin })).status).toBe(405);
  });
});
