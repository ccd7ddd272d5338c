// Unpaired surrogates and invalid UTF-8 are refused with 400 problem+json naming the field, on
// every way text enters the HTTP API (JSON body escapes, raw body bytes, query parameters, path
// ids); nothing is stored with U+FFFD in their place.
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

const cases = JSON.parse(readFileSync(new URL("./cases/malformed-text.json", import.meta.url), "utf8")) as {
  jsonBodies: Array<{ name: string; body: string; field: string }>;
  rawBodies: Array<{ name: string; hex: string }>;
  queries: Array<{ name: string; query: string; field: string }>;
  paths: string[];
};

let app: TestApp;
const admin = { org: "mt1", user: "mt-admin", admin: true };
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

const identity = async () => (await import("@gatehouse/auth")).encodeIdentityHeader({ orgId: admin.org, userId: admin.user, username: admin.user, isOrgAdmin: true });

/** Sent byte for byte: fetch would re-encode the target and the body. */
async function raw(
  method: string,
  path: string,
  body?: Buffer,
): Promise<{ status: number; type: string; json: { status: number; detail: string; errors?: Array<{ source: string }>; source?: string } }> {
  const url = new URL(app.baseUrl);
  const headers: Record<string, string> = { "x-rh-identity": await identity(), ...(body ? { "content-type": "application/json" } : {}) };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function workspaceCount(): Promise<number> {
  return (await app.request("GET", `${V2}/workspaces/?limit=-1`, { as: admin })).body.meta.count as number;
}

function expectRefused(res: Awaited<ReturnType<typeof raw>>, field?: string): void {
  expect(res.status).toBe(400);
  expect(res.type).toMatch(/^application\/problem\+json/);
  expect(res.json.detail.length).toBeLessThan(300);
  if (field !== undefined) expect(JSON.stringify(res.json)).toContain(`"${field}"`);
}

describe("JSON body escapes", () => {
  it.each(cases.jsonBodies.map((c) => [c.name, c] as const))("%s: 400 naming the field, nothing created", async (_name, c) => {
    const before = await workspaceCount();
    const res = await raw("POST", `${V2}/workspaces/`, Buffer.from(c.body));
    expectRefused(res, c.field);
    expect(res.json.detail).toMatch(/surrogate/i);
    expect(await workspaceCount()).toBe(before);
  });

  it("a well-formed pair (an emoji) is accepted and kept exactly", async () => {
    const res = await raw("POST", `${V2}/workspaces/`, Buffer.from('{"name": "emoji-ws", "description": "smile \\ud83d\\ude00"}'));
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ description: "smile \u{1F600}" });
  });
});

describe("raw body bytes", () => {
  it.each(cases.rawBodies.map((c) => [c.name, c] as const))("%s: 400, nothing created", async (_name, c) => {
    const before = await workspaceCount();
    const res = await raw("POST", `${V2}/workspaces/`, Buffer.from(c.hex, "hex"));
    expectRefused(res);
    expect(res.json.detail).toMatch(/UTF-8/);
    expect(await workspaceCount()).toBe(before);
  });
});

describe("query parameters", () => {
  it.each(cases.queries.map((c) => [c.name, c] as const))("%s: 400 naming the parameter", async (_name, c) => {
    expectRefused(await raw("GET", `${V2}/workspaces/?${c.query}`), c.field);
  });
});

describe("path ids", () => {
  it.each(cases.paths)("%s: 400", async (id) => {
    expectRefused(await raw("GET", `${V2}/workspaces/${id}/`));
    expectRefused(await raw("PATCH", `${V2}/workspaces/${id}/`, Buffer.from('{"name":"x"}')));
  });
});
