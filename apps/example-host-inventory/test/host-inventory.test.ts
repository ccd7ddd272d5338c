import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { type AuthzClient, createAuthzClient, loadClientConfig } from "@gatehouse/client";
import { type Host, Inventory, buildServer } from "@gatehouse/example-host-inventory";
import { type Stack, startStack } from "./stack.js";

const ORG = "o1";
const identity = (userId: string) => encodeIdentityHeader({ orgId: ORG, userId, username: userId });

describe("example host inventory against the real stack", () => {
  let stack: Stack;
  let base: string;
  let stopApp: () => Promise<void>;
  const db = new PGlite();
  const inventory = new Inventory(db);
  const get = async (path: string, userId: string) => {
    const response = await fetch(`${base}${path}`, { headers: { "x-rh-identity": identity(userId) } });
    return { status: response.status, body: (await response.json()) as { data?: Host[]; id?: string; meta?: { count: number } } };
  };
  /** The engine follows the store's change feed; wait until it has applied the seed, however long that takes. */
  const eventually = async (probe: () => Promise<boolean>) => {
    while (!(await probe())) await new Promise((r) => setTimeout(r, 50));
  };

  beforeAll(async () => {
    stack = await startStack();
    await inventory.migrate();
    const { store } = stack;
    const tenant = (await store.tenants.bootstrap(ORG)).value;
    await store.principals.upsert(ORG, [
      { userId: "alice", username: "alice" },
      { userId: "bob", username: "bob" },
    ]);
    const a = (await store.workspaces.create(ORG, { name: "Team A" })).value;
    const b = (await store.workspaces.create(ORG, { name: "Team B" })).value;
    for (const [id, workspaceId] of [
      ["h-a", a.id],
      ["h-b", b.id],
      ["h-d", tenant.defaultWorkspaceId],
    ] as const) {
      await store.hosts.report(ORG, id, workspaceId);
    }
    await inventory.addHosts(
      [
        ["h-a", a.id],
        ["h-b", b.id],
        ["h-d", tenant.defaultWorkspaceId],
      ].map(([id, workspaceId]) => ({ id: id!, orgId: ORG, name: `host ${id}`, workspaceId: workspaceId! })),
    );
    // Another organisation's host in a workspace id nobody of ORG is bound to: never listed for ORG.
    await inventory.addHosts([{ id: "h-x", orgId: "o2", name: "host h-x", workspaceId: tenant.defaultWorkspaceId }]);
    inventory.addSavedView({ id: "v1", orgId: ORG, name: "RHEL 9", query: "os=rhel9" });
    const role = (await store.roles.create(ORG, { name: "Host viewer", permissions: ["inventory:hosts:read"], scope: "default" })).value;
    await store.roleBindings.batchCreate(ORG, [
      { resource: { type: "workspace", id: a.id }, subject: { type: "principal", id: "alice" }, roleId: role.id },
      { resource: { type: "workspace", id: tenant.defaultWorkspaceId }, subject: { type: "principal", id: "bob" }, roleId: role.id },
    ]);
    const app = buildServer({ port: 0, host: "127.0.0.1", authz: stack.client(), inventory });
    base = `http://127.0.0.1:${(await app.start()).port}`;
    stopApp = app.stop;
    await eventually(async () => (await get("/api/inventory/v1/hosts", "bob")).body.data?.length === 3);
  });
  afterAll(async () => {
    await stopApp();
    await stack.close();
    await db.close();
  });

  it("Pattern 2: lists only hosts in workspaces the user may view (bindings inherit downward)", async () => {
    expect((await get("/api/inventory/v1/hosts", "alice")).body.data?.map((h) => h.id)).toEqual(["h-a"]);
    expect((await get("/api/inventory/v1/hosts", "bob")).body.data?.map((h) => h.id)).toEqual(["h-a", "h-b", "h-d"]);
    expect((await get("/api/inventory/v1/hosts", "mallory")).body.data).toEqual([]);
  });

  it("Pattern 2 over SQL: pages by id, counts every match, and tells the lookup and the query apart", async () => {
    const response = await fetch(`${base}/api/inventory/v1/hosts?limit=2&offset=1`, { headers: { "x-rh-identity": identity("bob") } });
    expect(response.headers.get("server-timing")).toMatch(/^authz;dur=[\d.]+, sql;dur=[\d.]+$/);
    expect(await response.json()).toMatchObject({ meta: { count: 3, limit: 2, offset: 1 }, data: [{ id: "h-b" }, { id: "h-d" }] });
  });

  it("filters the list by the configured workspace permission", async () => {
    const asked: string[] = [];
    const authz = { enabled: true, listWorkspaceIds: async ({ permission }: { permission: string }) => (asked.push(permission), { ids: [] }), close: () => undefined } as unknown as AuthzClient;
    const app = buildServer({ port: 0, host: "127.0.0.1", authz, inventory, listPermission: "patch_system_edit" });
    const { port } = await app.start();
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/inventory/v1/hosts`, { headers: { "x-rh-identity": identity("bob") } });
      expect(await response.json()).toEqual({ meta: { count: 0, limit: 10, offset: 0 }, data: [] });
      expect(asked).toEqual(["patch_system_edit"]);
    } finally {
      await app.stop();
    }
  });

  it.each(["limit=0", "limit=1001", "limit=abc", "offset=-1", "offset=1e3", "limit=1&limit=2"])("rejects the query %s with problem+json", async (query) => {
    const response = await fetch(`${base}/api/inventory/v1/hosts?${query}`, { headers: { "x-rh-identity": identity("bob") } });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(((await response.json()) as { errors: { field: string }[] }).errors[0]!.field).toMatch(/^(limit|offset)$/);
  });

  it("detail: a Check on the host; denied hosts look like missing ones", async () => {
    expect(await get("/api/inventory/v1/hosts/h-a", "alice")).toMatchObject({ status: 200, body: { id: "h-a" } });
    expect((await get("/api/inventory/v1/hosts/h-b", "alice")).status).toBe(404);
    expect((await get("/api/inventory/v1/hosts/nope", "bob")).status).toBe(404);
  });

  it("Pattern 3: saved views are checked on the Default Workspace; a binding lower down does not reach it", async () => {
    expect(await get("/api/inventory/v1/saved-views", "bob")).toMatchObject({ status: 200, body: { data: [{ id: "v1" }] } });
    expect((await get("/api/inventory/v1/saved-views", "alice")).status).toBe(403);
  });

  it("the workspace lookup got the service's token and org id, never the user's identity header", async () => {
    expect(stack.lookupProxy.seen.length).toBeGreaterThan(0);
    for (const headers of stack.lookupProxy.seen) {
      expect(headers["x-rh-identity"]).toBeUndefined();
      expect(headers["x-rh-rbac-org-id"]).toBe(ORG);
      expect(headers["authorization"]).toMatch(/^Bearer /);
    }
  });

  it("refreshes the service token when it expires, and keeps working", async () => {
    // The client times its token by this clock: moving it past the token's lifetime stands for
    // the time passing, with no wait and no race against a short-lived token on a slow machine.
    let clock = Date.now();
    const client = stack.client(undefined, undefined, { now: () => clock });
    try {
      const before = stack.issuer.tokenRequests();
      expect(await client.checkDefaultWorkspace({ orgId: ORG, permission: "inventory_host_view", subject: "bob" })).toBe(true);
      expect(await client.checkResource({ resource: { type: "host", reporter: "hbi", id: "h-a" }, permission: "inventory_host_view", subject: "alice" })).toBe(true);
      expect(stack.issuer.tokenRequests() - before).toBe(1);
      clock += 3_600_000; // the token's whole lifetime (the issuer's expires_in)
      expect(await client.checkResource({ resource: { type: "host", reporter: "hbi", id: "h-a" }, permission: "inventory_host_view", subject: "alice" })).toBe(true);
      expect(stack.issuer.tokenRequests() - before).toBe(2);
    } finally {
      client.close();
    }
  });

  it("a token for the wrong audience is refused by the engine and by the lookup", async () => {
    const client = stack.client("wrong-audience", "other-secret");
    try {
      await expect(client.checkTenant({ orgId: ORG, permission: "inventory_host_view", subject: "bob" })).rejects.toMatchObject({ code: "unauthenticated" });
      await expect(client.rootWorkspaceId(ORG)).rejects.toMatchObject({ code: "unauthenticated" });
    } finally {
      client.close();
    }
  });

  it("keeps answering when Redis stops mid-test (workspace-cache falls back to the store)", async () => {
    await stack.redis.stop();
    // A fresh application instance: nothing cached in its SDK, so the lookup must really be served.
    const app = buildServer({ port: 0, host: "127.0.0.1", authz: stack.client(), inventory });
    const { port } = await app.start();
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/inventory/v1/saved-views`, { headers: { "x-rh-identity": identity("bob") } });
      expect(response.status).toBe(200);
      const denied = await fetch(`http://127.0.0.1:${port}/api/inventory/v1/saved-views`, { headers: { "x-rh-identity": identity("alice") } });
      expect(denied.status).toBe(403);
    } finally {
      await app.stop();
      await stack.redis.restart();
    }
  });

  it("AUTHZ_ENABLED=false: the SDK makes no call and the example serves every host of the organisation", async () => {
    const app = buildServer({ port: 0, host: "127.0.0.1", authz: createAuthzClient(loadClientConfig({ AUTHZ_ENABLED: "false" })), inventory });
    const { port } = await app.start();
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/inventory/v1/hosts`, { headers: { "x-rh-identity": identity("mallory") } });
      expect(response.headers.get("x-authz")).toBe("disabled");
      expect(((await response.json()) as { data: Host[] }).data).toHaveLength(3);
    } finally {
      await app.stop();
    }
  });

  it("rejects a request without an identity", async () => {
    expect((await fetch(`${base}/api/inventory/v1/hosts`)).status).toBe(401);
  });
});
