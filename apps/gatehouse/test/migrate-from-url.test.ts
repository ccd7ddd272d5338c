// `gatehouse migrate --from-url`: reading a live v1 API (Gatehouse's own v1 endpoints, and a stub
// answering in insights-rbac's v1 OpenAPI shapes) and importing it as the file import does.
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildServer, loadRoleConfiguration, type ManagementApiServer, type RoleConfiguration } from "@gatehouse/management-api";
import { openStore, type Store, type SystemRoleDefinition } from "@gatehouse/store";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { buildProgram } from "../src/program.js";
import { v1Root } from "../src/migration/v1-api.js";

async function run(args: string[]): Promise<{ out: string; err: string }> {
  let out = "";
  let err = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((err += String(chunk)), true));
  try {
    await buildProgram().parseAsync(["node", "gatehouse", ...args]);
  } finally {
    vi.restoreAllMocks();
  }
  return { out, err };
}

const SYSTEM_ROLES: SystemRoleDefinition[] = [
  { name: "Notifications viewer", display_name: "Notifications viewer", platform_default: true, access: [{ permission: "notifications:notifications:read" }] },
  { name: "Patch administrator", display_name: "Patch administrator", access: [{ permission: "patch:*:*" }] },
  { name: "User Access administrator", admin_default: true, access: [{ permission: "rbac:*:*" }] },
];

let config: RoleConfiguration;
const ORG = "54321";
const asUser = (user: string, admin = false) =>
  Buffer.from(JSON.stringify({ identity: { org_id: ORG, type: "User", user: { user_id: user, username: user, is_org_admin: admin } } })).toString("base64");

async function startApi(store: Store): Promise<{ api: ManagementApiServer; url: string }> {
  const api = buildServer({ port: 0, host: "127.0.0.1", logLevel: "silent" }, { store, roleConfiguration: config });
  const { port } = await api.start();
  return { api, url: `http://127.0.0.1:${port}` };
}

async function accessOf(url: string, user: string, admin = false): Promise<string[]> {
  const res = await fetch(`${url}/api/rbac/v1/access/?application=`, { headers: { "x-rh-identity": asUser(user, admin) } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: unknown[] };
  return body.data.map((e) => JSON.stringify(e)).sort();
}

beforeAll(async () => {
  const stage = await loadRoleConfiguration("stage");
  config = { ...stage, systemRoles: SYSTEM_ROLES };
});

afterEach(() => vi.restoreAllMocks());

describe("v1Root", () => {
  it("appends the v1 path to a host and keeps an explicit v1 root", () => {
    expect(v1Root("https://rbac.example.com")).toBe("https://rbac.example.com/api/rbac/v1");
    expect(v1Root("https://rbac.example.com/api/rbac/v1/")).toBe("https://rbac.example.com/api/rbac/v1");
    expect(() => v1Root("ftp://x")).toThrow(/http/);
    expect(() => v1Root("not a url")).toThrow(/not a URL/);
  });
});

describe("migrate --from-url against Gatehouse's own v1 endpoints", () => {
  let source: Store;
  let api: ManagementApiServer;
  let url = "";

  beforeAll(async () => {
    source = await openStore({});
    ({ api, url } = await startApi(source));
    // Seeded roles exist once the API has started; the organisation is imported into the source.
    const { value } = await source.imports.applyTenant(ORG, {
      principals: [
        { userId: "alice", username: "alice", isOrgAdmin: true },
        { userId: "bob", username: "bob" },
        { userId: "carol", username: "carol" },
      ],
      roles: [
        {
          key: "cost",
          name: "Cost viewer (AWS 123)",
          scope: "default",
          permissions: ["cost-management:*:read"],
          access: [{ permission: "cost-management:*:read", resourceDefinitions: [{ attributeFilter: { key: "cost-management.aws.account", operation: "in", value: ["123"] } }] }],
        },
        { key: "hosts", name: "Host viewer", scope: "default", permissions: ["inventory:hosts:read"] },
      ],
      groups: [{ key: "finance", name: "Finance", members: ["bob"] }],
      bindings: [
        { role: { key: "cost" }, group: { key: "finance" }, level: "default" },
        { role: { seeded: "Patch administrator" }, group: { key: "finance" }, level: "default" },
      ],
      defaultAccess: { default: [{ key: "hosts" }, { seeded: "Notifications viewer" }] },
    });
    expect(value.changed).toBe(true);
  });

  afterAll(async () => {
    await api?.stop();
    await source?.close();
  });

  it("reads roles, groups, members and the customised default group, and the target answers v1 access the same", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "migrate-url-"));
    const args = ["migrate", "--from-url", url, "--identity", asUser("alice", true), "--data-dir", dataDir, "--seed-system-roles", "--json", "--page-size", "2"];
    const first = await run(args);
    const result = JSON.parse(first.out) as { orgId: string; rolesCreated: number; groupsCreated: number; revision?: number }[];
    expect(result).toHaveLength(1);
    expect(result[0]).toMatchObject({ orgId: ORG, rolesCreated: 2, groupsCreated: 1 });
    expect(first.err).toMatch(/read http:\/\/127\.0\.0\.1:\d+ in \d+ requests/);
    expect(first.err).toMatch(/roles: \d+\/\d+/);

    const target = await openStore({ dataDir });
    try {
      // Seeded roles of the target are the source's system roles; the API must not re-seed them.
      const { api: targetApi, url: targetUrl } = await (async () => {
        const server = buildServer({ port: 0, host: "127.0.0.1", logLevel: "silent" }, { store: target, roleConfiguration: { ...config, systemRoles: [] } });
        const { port } = await server.start();
        return { api: server, url: `http://127.0.0.1:${port}` };
      })();
      try {
        for (const [user, admin] of [
          ["bob", false],
          ["carol", false],
          ["alice", true],
        ] as const) {
          expect(await accessOf(targetUrl, user, admin), user).toEqual(await accessOf(url, user, admin));
        }
        // The resource definition survived the trip.
        expect(await accessOf(targetUrl, "bob")).toContain(
          JSON.stringify({ permission: "cost-management:*:read", resourceDefinitions: [{ attributeFilter: { key: "cost-management.aws.account", operation: "in", value: ["123"] } }] }),
        );
        // carol is only in the customised default group: the host viewer role, not the platform default alone.
        expect(await accessOf(targetUrl, "carol")).toContain(JSON.stringify({ permission: "inventory:hosts:read", resourceDefinitions: [] }));
      } finally {
        await targetApi.stop();
      }
    } finally {
      await target.close();
    }

    // A second run reads the same organisation and writes nothing.
    const second = JSON.parse((await run(args)).out) as { rolesCreated: number; rolesUpdated: number; revision?: number }[];
    expect(second[0]).toMatchObject({ rolesCreated: 0, rolesUpdated: 0 });
    expect(second[0]!.revision).toBeUndefined();
  });
});

/** A stub answering in insights-rbac's v1 OpenAPI shapes (RoleOut/RoleWithAccess, GroupOut, Principal, ListPagination). */
function stubRbac(token: string): { server: Server; hits: string[]; failFirst: { remaining: number } } {
  const hits: string[] = [];
  const failFirst = { remaining: 1 };
  const ts = "2024-01-01T00:00:00Z";
  const role = (uuid: string, name: string, extra: Record<string, unknown>, access: unknown[] | undefined) => ({
    uuid,
    name,
    display_name: name,
    description: null,
    created: ts,
    modified: ts,
    policyCount: 1,
    accessCount: access?.length ?? 0,
    applications: [...new Set((access ?? []).map((a) => String((a as { permission: string }).permission).split(":")[0]))],
    system: false,
    platform_default: false,
    admin_default: false,
    external_role_id: null,
    external_tenant: null,
    ...extra,
    ...(access ? { access } : {}),
  });
  const costAccess = [{ permission: "cost-management:aws.account:read", resourceDefinitions: [{ attributeFilter: { key: "cost-management.aws.account", operation: "equal", value: "999" } }] }];
  const roles = [
    role("6b5e6d5c-1111-4a1a-9a1a-000000000001", "Notifications viewer", { system: true, platform_default: true }, [{ permission: "notifications:notifications:read", resourceDefinitions: [] }]),
    role("6b5e6d5c-1111-4a1a-9a1a-000000000002", "Patch administrator", { system: true }, [{ permission: "patch:*:*", resourceDefinitions: [] }]),
    role("6b5e6d5c-1111-4a1a-9a1a-000000000003", "User Access administrator", { system: true, admin_default: true }, [{ permission: "rbac:*:*", resourceDefinitions: [] }]),
    role("6b5e6d5c-1111-4a1a-9a1a-000000000004", "AWS 999 cost", {}, costAccess),
    role("6b5e6d5c-1111-4a1a-9a1a-000000000005", "Host viewer", {}, [{ permission: "inventory:hosts:read", resourceDefinitions: [] }]),
  ];
  const group = (uuid: string, name: string, extra: Record<string, unknown>) => ({
    uuid,
    name,
    description: null,
    created: ts,
    modified: ts,
    principalCount: 0,
    roleCount: 0,
    system: false,
    platform_default: false,
    admin_default: false,
    ...extra,
  });
  const groups = [
    group("7c000000-2222-4b2b-8b2b-000000000001", "Custom default access", { platform_default: true, system: false }),
    group("7c000000-2222-4b2b-8b2b-000000000002", "Default admin access", { admin_default: true, system: true }),
    group("7c000000-2222-4b2b-8b2b-000000000003", "Cloud cost team", {}),
  ];
  const groupRoles: Record<string, typeof roles> = {
    "7c000000-2222-4b2b-8b2b-000000000001": [roles[0]!, roles[4]!],
    "7c000000-2222-4b2b-8b2b-000000000003": [roles[1]!, roles[3]!],
  };
  const principal = (username: string, admin: boolean) => ({ username, email: `${username}@example.com`, first_name: username, last_name: "Test", is_active: true, is_org_admin: admin });
  const principals = [principal("jdoe", true), principal("msmith", false), principal("kwong", false)];
  const members: Record<string, unknown[]> = { "7c000000-2222-4b2b-8b2b-000000000003": [principal("msmith", false), principal("kwong", false)] };

  const page = (req: IncomingMessage, res: ServerResponse, items: unknown[]) => {
    const u = new URL(req.url ?? "/", "http://stub");
    const limit = Number(u.searchParams.get("limit") ?? 10);
    const offset = Number(u.searchParams.get("offset") ?? 0);
    const link = (o: number) => `${u.pathname}?limit=${limit}&offset=${o}`;
    res.end(
      JSON.stringify({
        meta: { count: items.length, limit, offset },
        links: {
          first: link(0),
          next: offset + limit < items.length ? link(offset + limit) : null,
          previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
          last: link(Math.max(0, items.length - limit)),
        },
        data: items.slice(offset, offset + limit),
      }),
    );
  };
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.setHeader("content-type", "application/json");
    if (req.headers["authorization"] !== `Bearer ${token}`) {
      res.statusCode = 401;
      res.end(JSON.stringify({ errors: [{ detail: "Authentication credentials were not provided.", status: "401" }] }));
      return;
    }
    if (failFirst.remaining-- > 0) {
      res.statusCode = 503;
      res.end("{}");
      return;
    }
    const u = new URL(req.url ?? "/", "http://stub");
    const p = u.pathname;
    let m: RegExpMatchArray | null;
    if (p === "/api/rbac/v1/roles/") {
      // The list leaves out one role's access (as a list without add_fields does): the reader fetches its detail.
      const withAccess = u.searchParams.get("add_fields") === "access";
      page(
        req,
        res,
        roles.map((r, i) => (withAccess && i !== 3 ? r : { ...r, access: undefined })),
      );
    } else if ((m = p.match(/^\/api\/rbac\/v1\/roles\/([^/]+)\/$/))) {
      const r = roles.find((x) => x.uuid === m![1]);
      res.statusCode = r ? 200 : 404;
      res.end(JSON.stringify(r ?? { errors: [{ detail: "Not found.", status: "404" }] }));
    } else if (p === "/api/rbac/v1/principals/") page(req, res, principals);
    else if (p === "/api/rbac/v1/groups/") page(req, res, groups);
    else if ((m = p.match(/^\/api\/rbac\/v1\/groups\/([^/]+)\/roles\/$/)))
      page(
        req,
        res,
        (groupRoles[m[1]!] ?? []).map((r) => ({ ...r, access: undefined })),
      );
    else if ((m = p.match(/^\/api\/rbac\/v1\/groups\/([^/]+)\/principals\/$/))) page(req, res, members[m[1]!] ?? []);
    else {
      res.statusCode = 404;
      res.end(JSON.stringify({ errors: [{ detail: "Not found.", status: "404" }] }));
    }
  });
  return { server, hits, failFirst };
}

describe("migrate --from-url against a stub in insights-rbac's v1 shapes", () => {
  let stub: ReturnType<typeof stubRbac>;
  let base = "";

  beforeAll(async () => {
    stub = stubRbac("s3cret");
    await new Promise<void>((resolve) => stub.server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => stub.server.close(resolve));
  });

  it("pages, retries, uses the bearer token and org header, and imports roles, access filters, groups and the default group", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "migrate-stub-"));
    const { out } = await run(["migrate", "--from-url", `${base}/api/rbac/v1/`, "--token", "s3cret", "--org-id", "777", "--data-dir", dataDir, "--seed-system-roles", "--json", "--page-size", "2"]);
    const [result] = JSON.parse(out) as { orgId: string; rolesCreated: number; groupsCreated: number }[];
    expect(result).toMatchObject({ orgId: "777", rolesCreated: 2, groupsCreated: 1 });
    // The first request failed with 503 and was retried; lists came in pages of 2.
    expect(stub.hits.filter((h) => h.startsWith("/api/rbac/v1/roles/?add_fields=access&limit=2&offset=0"))).toHaveLength(2);
    expect(stub.hits).toContain("/api/rbac/v1/roles/?add_fields=access&limit=2&offset=4");
    expect(stub.hits).toContain("/api/rbac/v1/roles/6b5e6d5c-1111-4a1a-9a1a-000000000004/");
    // Untouched default groups are not read; the customised one is, without its (implied) members.
    expect(stub.hits.some((h) => h.includes("7c000000-2222-4b2b-8b2b-000000000002"))).toBe(false);
    expect(stub.hits.some((h) => h.startsWith("/api/rbac/v1/groups/7c000000-2222-4b2b-8b2b-000000000001/principals/"))).toBe(false);

    const store = await openStore({ dataDir });
    try {
      const roles = (await store.roles.list("777", { kinds: ["custom"], limit: -1 })).data;
      const cost = roles.find((r) => r.name === "AWS 999 cost")!;
      expect(cost.id).toBe("6b5e6d5c-1111-4a1a-9a1a-000000000004");
      expect((await store.v1.accessOf([cost.id])).get(cost.id)).toEqual([
        { permission: "cost-management:aws.account:read", resourceDefinitions: [{ attributeFilter: { key: "cost-management.aws.account", operation: "equal", value: "999" } }] },
      ]);
      const team = (await store.groups.list("777", { name: "Cloud cost team", limit: -1 })).data[0]!;
      expect((await store.groups.members("777", team.id)).sort()).toEqual(["kwong", "msmith"]);
      const principal = await store.principals.get("777", "jdoe");
      expect(principal.isOrgAdmin).toBe(true);
      // Every user holds the customised default group's roles, and only those.
      const grants = await store.v1.grantsOf("777", "jdoe", { isOrgAdmin: false, defaultGroups: true });
      const names = new Map((await store.roles.list("777", { limit: -1 })).data.map((r) => [r.id, r.name]));
      expect(grants.map((g) => names.get(g.roleId)).sort()).toEqual(["Host viewer", "Notifications viewer"]);
    } finally {
      await store.close();
    }
  });

  it("refuses a wrong token with the source's answer, and bad options before any request", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "migrate-stub-"));
    stub.failFirst.remaining = 0;
    await expect(run(["migrate", "--from-url", base, "--token", "wrong", "--org-id", "777", "--data-dir", dataDir])).rejects.toThrow(/HTTP 401/);
    const before = stub.hits.length;
    await expect(run(["migrate", "--from-url", base, "--org-id", "777"])).rejects.toThrow(/--token or --identity/);
    await expect(run(["migrate", "--from-url", base, "--token", "s3cret"])).rejects.toThrow(/--org-id/);
    await expect(run(["migrate", "--from-url", base, "--input", "x.json"])).rejects.toThrow(/exactly one/);
    await expect(run(["migrate", "--from-url", base, "--token", "s3cret", "--org-id", "777", "--page-size", "0"])).rejects.toThrow(/--page-size/);
    expect(stub.hits.length).toBe(before);
  });

  it("gives up after the retries with the last failure", async () => {
    stub.failFirst.remaining = 100;
    await expect(run(["migrate", "--from-url", base, "--token", "s3cret", "--org-id", "777", "--retries", "1", "--dry-run"])).rejects.toThrow(/gave up after 2 attempts \(HTTP 503\)/);
    stub.failFirst.remaining = 0;
  });
});
