// The official Node SDK (@project-kessel/kessel-sdk 3.3.1), used unchanged against the engine.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ClientBuilder } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2";
import { ClientBuilder as HealthClientBuilder } from "@project-kessel/kessel-sdk/kessel/inventory/v1";
import { fetchDefaultWorkspace, fetchRootWorkspace, listWorkspaces, principalSubject, workspaceResource } from "@project-kessel/kessel-sdk/kessel/rbac/v2";
import type { Store, Tenant } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childWorkspace, readGrant, startEngine, type RunningEngine } from "./helpers.js";

const ORG = "sdk-org";
const WORKSPACES = 1200;

let engine: RunningEngine;
let tenant: Tenant;
let rbac: Server;
let rbacUrl: string;

/**
 * The RBAC v2 root/default lookup the SDK's fetch helpers call, served from the store's tenant
 * data (exactly the contract's shape: 200 and `data` with one workspace).
 */
function rbacWorkspaceLookup(store: Store): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const type = url.searchParams.get("type");
    const orgId = request.headers["x-rh-rbac-org-id"];
    if (url.pathname !== "/api/rbac/v2/workspaces/" || (type !== "root" && type !== "default") || typeof orgId !== "string") {
      response.writeHead(400).end();
      return;
    }
    store.tenants.get(orgId).then(
      async (found) => {
        const workspace = await store.workspaces.get(orgId, type === "root" ? found.rootWorkspaceId : found.defaultWorkspaceId);
        const body = { meta: { count: 1, limit: 10, offset: 0 }, data: [{ id: workspace.id, name: workspace.name, type: workspace.type, description: workspace.description }] };
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      },
      () => response.writeHead(404).end(),
    );
  });
}

beforeAll(async () => {
  engine = await startEngine();
  tenant = (await engine.store.tenants.bootstrap(ORG)).value;
  const children = Array.from({ length: WORKSPACES }, (_, i) => childWorkspace(`sdk-ws-${String(i).padStart(5, "0")}`, tenant.defaultWorkspaceId));
  const { revision } = await engine.store.relationships.write(ORG, { touch: [...children, ...readGrant(tenant.defaultWorkspaceId, "sdk-user")] });
  // Wait until the graph reflects the seed (CheckForUpdate is fully consistent).
  const client = new ClientBuilder(`127.0.0.1:${engine.port}`).insecure().buildAsync();
  await client.checkForUpdate({ object: workspaceResource(tenant.defaultWorkspaceId), relation: "view", subject: principalSubject("sdk-user", "redhat") });
  expect(revision).toBeGreaterThan(0);
  rbac = rbacWorkspaceLookup(engine.store);
  await new Promise<void>((resolve) => rbac.listen(0, "127.0.0.1", resolve));
  rbacUrl = `http://127.0.0.1:${(rbac.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (rbac ? rbac.close(() => resolve()) : resolve()));
  await engine?.close();
});

describe("official Node SDK 3.3.1, unchanged", () => {
  it("Check, CheckForUpdate and CheckBulk", async () => {
    const client = new ClientBuilder(`127.0.0.1:${engine.port}`).insecure().buildAsync();
    const user = principalSubject("sdk-user", "redhat");
    const stranger = principalSubject("stranger", "redhat");
    const target = workspaceResource("sdk-ws-00042");
    expect((await client.check({ object: target, relation: "view", subject: user })).allowed).toBe(1);
    expect((await client.check({ object: target, relation: "view", subject: stranger })).allowed).toBe(2);
    expect((await client.checkForUpdate({ object: target, relation: "view", subject: user })).allowed).toBe(1);
    const bulk = await client.checkBulk({
      items: [
        { object: target, relation: "view", subject: user },
        { object: target, relation: "view", subject: stranger },
      ],
      consistency: { minimizeLatency: true },
    });
    expect(bulk.pairs.map((pair: { item?: { allowed: number } }) => pair.item?.allowed)).toEqual([1, 2]);
    expect(bulk.pairs[1]?.request?.subject?.resource?.resourceId).toBe("redhat/stranger");
  });

  it(`listWorkspaces pages through ${WORKSPACES + 1} workspaces, each exactly once`, async () => {
    const client = new ClientBuilder(`127.0.0.1:${engine.port}`).insecure().buildAsync();
    const ids: string[] = [];
    for await (const item of listWorkspaces(client, principalSubject("sdk-user", "redhat"), "view")) {
      ids.push(item.object!.resourceId);
    }
    expect(ids.length).toBe(WORKSPACES + 1); // the children plus the default workspace itself
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(tenant.defaultWorkspaceId);
    expect(ids).toContain(`sdk-ws-${String(WORKSPACES - 1).padStart(5, "0")}`);
  });

  it("health service answers livez/readyz", async () => {
    const health = new HealthClientBuilder(`127.0.0.1:${engine.port}`).insecure().buildAsync();
    expect(await health.getLivez({})).toEqual({ status: "OK", code: 200 });
    expect(await health.getReadyz({})).toEqual({ status: "OK", code: 200 });
  });

  it("fetchRootWorkspace / fetchDefaultWorkspace", async () => {
    const root = await fetchRootWorkspace(rbacUrl, ORG);
    const defaults = await fetchDefaultWorkspace(rbacUrl, ORG);
    expect(root.id).toBe(tenant.rootWorkspaceId);
    expect(defaults.id).toBe(tenant.defaultWorkspaceId);
    // The default workspace's id feeds straight into a Check.
    const client = new ClientBuilder(`127.0.0.1:${engine.port}`).insecure().buildAsync();
    const answer = await client.check({ object: workspaceResource(defaults.id), relation: "view", subject: principalSubject("sdk-user", "redhat") });
    expect(answer.allowed).toBe(1);
  });
});
