// Client mistakes and hostile requests: each is a 4xx problem+json that changes nothing.
import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const admin = { org: "hi1", user: "hi-admin", admin: true };
const other = { org: "hi2", user: "hi2-admin", admin: true };
const V1 = "/api/rbac/v1";

beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

/** A request sent byte for byte (fetch would normalise the target and the Host header). */
function raw(path: string, headers: Record<string, string> = {}, method = "GET", body?: Buffer | string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers, setHost: !("host" in headers) }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const identity = async (as = admin) => {
  const { encodeIdentityHeader } = await import("@gatehouse/auth");
  return encodeIdentityHeader({ orgId: as.org, userId: as.user, username: as.user, isOrgAdmin: as.admin });
};

function expectProblem(res: { status: number; headers: Record<string, unknown> | Headers; text: string }, status: number): void {
  expect(res.status).toBe(status);
  const type = res.headers instanceof Headers ? res.headers.get("content-type") : res.headers["content-type"];
  expect(String(type)).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.text) as { status: number; detail: string };
  expect(body.status).toBe(status);
  expect(body.detail.length).toBeLessThan(300);
}

describe("malformed requests are client errors", () => {
  it.each(["%", "%E0%A4%A", "%ZZ", "%C0%AF", "abc%"])("refuses bad percent-encoding in a path id (%s)", async (id) => {
    expectProblem(await raw(`${V2}/workspaces/${id}/`, { "x-rh-identity": await identity() }), 400);
    expectProblem(await raw(`${V2}/roles/${id}/`, { "x-rh-identity": await identity() }), 400);
  });

  it("refuses a NUL byte in a path id before it reaches the database", async () => {
    expectProblem(await raw(`${V2}/principals/a%00b/`, { "x-rh-identity": await identity() }), 400);
    // v1 keeps insights-rbac's v1 error shape.
    const v1 = await raw(`${V1}/principals/a%00b/`, { "x-rh-identity": await identity() });
    expect(v1.status).toBe(400);
    expect(JSON.parse(v1.text).errors[0].status).toBe("400");
  });

  it.each(["gzip", "br", "deflate", "x-unknown"])("refuses Content-Encoding %s on a body that is not encoded so", async (encoding) => {
    const before = await app.request("GET", `${V2}/workspaces/?limit=-1`, { as: admin });
    const res = await raw(
      `${V2}/workspaces/`,
      { "x-rh-identity": await identity(), "content-type": "application/json", "content-encoding": encoding },
      "POST",
      JSON.stringify({ name: `enc-${encoding}` }),
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expectProblem(res, res.status);
    const after = await app.request("GET", `${V2}/workspaces/?limit=-1`, { as: admin });
    expect(after.body.meta.count).toBe(before.body.meta.count);
  });

  it("still accepts a body that really is gzip-encoded", async () => {
    const res = await raw(
      `${V2}/workspaces/`,
      { "x-rh-identity": await identity(), "content-type": "application/json", "content-encoding": "gzip" },
      "POST",
      gzipSync(JSON.stringify({ name: "really-gzipped" })),
    );
    expect(res.status).toBe(201);
  });
});

describe("pagination links", () => {
  it("are relative paths, whatever Host header or absolute request target the client sent", async () => {
    const headers = { "x-rh-identity": await identity(), host: "evil.example" };
    for (const target of [`${V2}/workspaces/?limit=1`, `http://evil.example${V2}/workspaces/?limit=1`, `//evil.example${V2}/workspaces/?limit=1`]) {
      const res = await raw(target, headers);
      if (res.status !== 200) {
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        continue;
      }
      const body = JSON.parse(res.text) as { links: Record<string, string | null> };
      for (const link of Object.values(body.links)) {
        if (link === null) continue;
        expect(link.startsWith(`${V2}/workspaces/`)).toBe(true);
        expect(link).not.toContain("evil");
      }
    }
  });
});

describe("no existence oracle across tenants", () => {
  it("answers batchCreate with another tenant's group exactly as with a group that does not exist", async () => {
    const foreignGroup = (await app.request("POST", `${V1}/groups/`, { as: other, body: { name: "Theirs" } })).body.uuid as string;
    const defaultId = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: admin })).body.data[0].id as string;
    const roleId = (
      await app.request("POST", `${V2}/roles/`, {
        as: admin,
        body: { name: "Oracle viewer", permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] },
      })
    ).body.id as string;
    const attempt = (groupId: string) =>
      app.request("POST", `${V2}/role-bindings:batchCreate/`, {
        as: admin,
        body: { requests: [{ resource: { id: defaultId, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: roleId } }] },
      });
    const missingId = "0b5e6f1a-1111-4222-8333-944455556666";
    const foreign = await attempt(foreignGroup);
    const missing = await attempt(missingId);
    expect(foreign.status).toBe(missing.status);
    expect(foreign.body.detail.replace(foreignGroup, "<id>")).toBe(missing.body.detail.replace(missingId, "<id>"));
    expect(foreign.text).not.toMatch(/another tenant/i);
  });
});

describe("no existence oracle across tenants (roles)", () => {
  it("answers batchCreate with another tenant's custom role exactly as with a role that does not exist", async () => {
    const foreignRole = (
      await app.request("POST", `${V2}/roles/`, {
        as: other,
        body: { name: "Their viewer", permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] },
      })
    ).body.id as string;
    expect(foreignRole).toBeTypeOf("string");
    const defaultId = (await app.request("GET", `${V2}/workspaces/?type=default`, { as: admin })).body.data[0].id as string;
    const groupId = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "Role oracle group" } })).body.uuid as string;
    const attempt = (roleId: string) =>
      app.request("POST", `${V2}/role-bindings:batchCreate/`, {
        as: admin,
        body: { requests: [{ resource: { id: defaultId, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: roleId } }] },
      });
    const missingId = "0b5e6f1a-2222-4222-8333-944455556666";
    const foreign = await attempt(foreignRole);
    const missing = await attempt(missingId);
    expect(missing.status).toBe(400);
    expect(foreign.status).toBe(missing.status);
    expect(foreign.body.detail.replace(foreignRole, "<id>")).toBe(missing.body.detail.replace(missingId, "<id>"));
    expect(foreign.text).not.toMatch(/another tenant/i);
  });
});

describe("error messages quote request values bounded", () => {
  // Each of these messages quotes the value the client sent (insights-rbac's wording); a long value
  // is cut, so one request cannot make an answer, or a log line of it, as large as itself.
  const long = `x${"y".repeat(5000)}`;
  it.each([
    ["roles order_by", "GET", `${V2}/roles/?order_by=${long}`, undefined],
    ["role-binding list order_by", "GET", `${V2}/role-bindings/?order_by=${long}`, undefined],
    ["role-binding exclude_sources", "GET", `${V2}/role-bindings/?exclude_sources=${long}`, undefined],
    [
      "a UUID in a body",
      "POST",
      `${V2}/role-bindings:batchCreate/`,
      JSON.stringify({ requests: [{ resource: { id: long, type: "workspace" }, subject: { id: long, type: "group" }, role: { id: long } }] }),
    ],
    [
      "a subject type in a body",
      "POST",
      `${V2}/role-bindings:batchCreate/`,
      JSON.stringify({ requests: [{ resource: { id: long, type: long }, subject: { id: long, type: long }, role: { id: long } }] }),
    ],
    ["v1 access order_by", "GET", `/api/rbac/v1/access/?application=inventory&order_by=${long}`, undefined],
  ])("%s", async (_name, method, path, body) => {
    const res = await raw(path, { "x-rh-identity": await identity(), ...(body ? { "content-type": "application/json" } : {}) }, method, body);
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(2000);
    expect(res.text).not.toContain("y".repeat(200));
  });
});

describe("not-found messages naming group members are bounded", () => {
  // `usernames` and `service-accounts` may list many names (as many as the request line holds);
  // the 404 quotes at most ten, each cut like any quoted value, and counts the rest.
  const names = Array.from({ length: 40 }, (_, i) => `nobody-${i}-${"y".repeat(250)}`);
  it.each([["usernames"], ["service-accounts"]])("DELETE ?%s= with 40 long names", async (parameter) => {
    const headers = { "x-rh-identity": await identity(), "content-type": "application/json" };
    const created = await raw(`${V1}/groups/`, headers, "POST", JSON.stringify({ name: `echo-bound-${parameter}` }));
    expect(created.status).toBe(201);
    const { uuid } = JSON.parse(created.text) as { uuid: string };
    const res = await raw(`${V1}/groups/${uuid}/principals/?${parameter}=${names.join(",")}`, headers, "DELETE");
    expect(res.status).toBe(404);
    expect(res.text.length).toBeLessThan(2500);
    expect(res.text).not.toContain("y".repeat(200));
    expect(res.text).toContain("(30 more)");
  });
});
