import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSystemUsers } from "@gatehouse/auth";
import { sharedRedisUrl, startThrowawayRedis, type ThrowawayRedis } from "@gatehouse/cache/testing";
import { type BuiltInWorkspaces, type WorkspaceDirectory, buildServer } from "@gatehouse/workspace-cache";
import { type TestIssuer, startTestIssuer } from "./issuer.js";

/** A directory that can be switched off, standing in for Postgres going down. */
function switchableDirectory(orgs: Map<string, BuiltInWorkspaces>) {
  const state = { up: true, calls: 0 };
  const directory: WorkspaceDirectory = {
    async builtInWorkspaces(orgId) {
      state.calls++;
      if (!state.up) throw new Error("connection refused");
      return orgs.get(orgId) ?? null;
    },
  };
  return { directory, state };
}

function workspacesFor(orgId: string): BuiltInWorkspaces {
  const root = randomUUID();
  const at = "2026-01-01T00:00:00.000000Z";
  return {
    root: { id: root, parent_id: null, type: "root", name: "Root Workspace", description: `root of ${orgId}`, created: at, modified: at },
    default: { id: randomUUID(), parent_id: root, type: "default", name: "Default Workspace", description: null, created: at, modified: at },
  };
}

describe.each(["memory", "redis"] as const)("workspace-cache over %s", (kind) => {
  let issuer: TestIssuer;
  let base: string;
  let stop: () => Promise<void>;
  const orgs = new Map([["o1", workspacesFor("o1")]]);
  const { directory, state } = switchableDirectory(orgs);
  const get = (type: string, headers: Record<string, string>) => fetch(`${base}/api/rbac/v2/workspaces/?type=${type}&with_ancestry=true`, { headers });
  let serviceToken: string;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    const server = buildServer({
      port: 0,
      host: "127.0.0.1",
      source: { directory },
      cache: kind === "memory" ? { kind } : { kind, url: await sharedRedisUrl(), keyPrefix: `test:wsc:${randomUUID()}:` },
      auth: {
        mode: "oidc",
        issuerUrl: issuer.url,
        audience: "gatehouse",
        insecure: true,
        systemUsers: parseSystemUsers(JSON.stringify({ "svc-client": { is_service_account: true, allow_any_org: true }, "one-org": {} })),
      },
    });
    const { port } = await server.start();
    base = `http://127.0.0.1:${port}`;
    stop = server.stop;
    serviceToken = await issuer.token();
  });
  afterAll(async () => {
    await stop();
    await issuer.stop();
  });

  it("answers liveness and readiness probes without credentials", async () => {
    for (const path of ["/livez", "/readyz"]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toMatchObject({ status: "ok" });
    }
  });

  it("returns the root and default workspace in the list envelope with exactly one element", async () => {
    const headers = { authorization: `Bearer ${serviceToken}`, "x-rh-rbac-org-id": "o1" };
    const root = await get("root", headers);
    expect(root.status).toBe(200);
    const body = (await root.json()) as { data: { id: string; type: string }[]; meta: unknown };
    expect(body.data).toEqual([orgs.get("o1")!.root]);
    expect(body.meta).toEqual({ count: 1, limit: 10, offset: 0 });
    const def = (await (await get("default", headers)).json()) as { data: { id: string; parent_id: string }[] };
    expect(def.data).toHaveLength(1);
    expect(def.data[0]).toMatchObject({ id: orgs.get("o1")!.default.id, parent_id: orgs.get("o1")!.root.id, type: "default" });
  });

  it("keeps answering from the cache while the store is down", async () => {
    const headers = { authorization: `Bearer ${serviceToken}`, "x-rh-rbac-org-id": "o1" };
    await get("root", headers);
    state.up = false;
    try {
      const response = await get("default", headers);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-gatehouse-cache")).toBe("hit");
      // An organisation never cached cannot be answered: a clear 503, not a wrong answer.
      const uncached = await get("root", { ...headers, "x-rh-rbac-org-id": "o-uncached" });
      expect(uncached.status).toBe(503);
      expect(uncached.headers.get("content-type")).toContain("application/problem+json");
    } finally {
      state.up = true;
    }
  });

  it("answers 404 for an unknown organisation and does not cache the miss", async () => {
    const headers = { authorization: `Bearer ${serviceToken}`, "x-rh-rbac-org-id": "o2" };
    const missing = await get("root", headers);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { detail: string }).detail).toMatch(/No tenant exists for organisation 'o2'/);
    orgs.set("o2", workspacesFor("o2"));
    const found = await get("root", headers);
    expect(found.status).toBe(200);
  });

  it("rejects missing, invalid and wrong-audience tokens, and orgs the caller may not read", async () => {
    const org = { "x-rh-rbac-org-id": "o1" };
    expect((await get("root", org)).status).toBe(401);
    expect((await get("root", { ...org, authorization: "Bearer not-a-jwt" })).status).toBe(401);
    const wrongAudience = await issuer.token({ aud: "someone-else" });
    expect((await get("root", { ...org, authorization: `Bearer ${wrongAudience}` })).status).toBe(401);
    const expired = await issuer.token({ expiresIn: -120 });
    expect((await get("root", { ...org, authorization: `Bearer ${expired}` })).status).toBe(401);
    const unknownSubject = await issuer.token({ sub: "stranger" });
    expect((await get("root", { ...org, authorization: `Bearer ${unknownSubject}` })).status).toBe(403);
    // A system user without allow_any_org may only read its own token's organisation.
    const scoped = await issuer.token({ sub: "one-org", orgId: "o9" });
    expect((await get("root", { ...org, authorization: `Bearer ${scoped}` })).status).toBe(403);
  });

  it("rejects a missing org header and unsupported workspace types with 400", async () => {
    const auth = { authorization: `Bearer ${serviceToken}` };
    expect((await get("root", auth)).status).toBe(400);
    expect((await get("standard", { ...auth, "x-rh-rbac-org-id": "o1" })).status).toBe(400);
    expect((await get("root", { ...auth, "x-rh-rbac-org-id": "bad org!" })).status).toBe(400);
  });
});

describe("workspace-cache with Redis stopped mid-test", () => {
  let redis: ThrowawayRedis;
  it("falls back to the store while Redis is down, counts the failure, and uses Redis again when it returns", async () => {
    redis = await startThrowawayRedis();
    const orgs = new Map([["o1", workspacesFor("o1")]]);
    const { directory, state } = switchableDirectory(orgs);
    const server = buildServer({ port: 0, host: "127.0.0.1", source: { directory }, auth: { mode: "disabled" }, cache: { kind: "redis", url: redis.url, commandTimeoutMs: 600_000 } });
    // A stopped Redis refuses at once (no offline queue), so the command bound only guards a hang: a
    // short one would turn a slow machine's late answer into a fallback.
    const { port } = await server.start();
    const get = () => fetch(`http://127.0.0.1:${port}/api/rbac/v2/workspaces/?type=root`, { headers: { "x-rh-rbac-org-id": "o1" } });
    try {
      expect((await get()).headers.get("x-gatehouse-cache")).toBe("miss");
      expect((await get()).headers.get("x-gatehouse-cache")).toBe("hit");
      await redis.stop();
      const during = await get();
      expect(during.status).toBe(200);
      expect(((await during.json()) as { data: { id: string }[] }).data[0]!.id).toBe(orgs.get("o1")!.root.id);
      expect(state.calls).toBe(2);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toMatch(/gatehouse_workspace_cache_cache_failures_total\{cache="builtin_workspaces",operation="get",code="cache-\w+"\} 1/);
      await redis.restart();
      // The client reconnects in the background: until it has, each request falls back to the store
      // (a miss, nothing cached). Wait for the event that matters, a hit from the restarted Redis,
      // however long reconnecting takes; its first answer after reconnecting was a miss (it is empty).
      const seen: (string | null)[] = [];
      while (seen.at(-1) !== "hit") {
        if (seen.length > 0) await new Promise((r) => setTimeout(r, 20)); // a pause between attempts, not a deadline
        seen.push((await get()).headers.get("x-gatehouse-cache"));
      }
      expect(seen.at(-2)).toBe("miss");
      expect(new Set(seen.slice(0, -1))).toEqual(new Set(["miss"]));
    } finally {
      await server.stop();
      await redis.stop();
    }
  });
});
