// End to end through the real interfaces of the all-in-one server: HTTP writes, gRPC checks,
// the project's client SDK and the official Kessel Node SDK, all against one running Gatehouse.
import { readFileSync } from "node:fs";
import { credentials, Metadata } from "@grpc/grpc-js";
import { createAuthzClient, type AuthzClient } from "@gatehouse/client";
import { Allowed, KesselInventoryServiceClient, type ResourceReference } from "@gatehouse/proto";
import { createSilentLogger } from "@gatehouse/telemetry";
import { ClientBuilder } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2";
import { fetchDefaultWorkspace, fetchRootWorkspace, principalSubject, workspaceResource } from "@project-kessel/kessel-sdk/kessel/rbac/v2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";

const ORG = "e2e-org";
const DOMAIN = "redhat";
const TOKEN_HEADER = "x-gatehouse-consistency-token";

interface PatternCheck {
  pattern: number;
  rpc: "Check" | "CheckForUpdate";
  object: "host" | "payments" | "default" | "root" | "tenant";
  relation: string;
  subject: string;
  allowed: boolean;
  why: string;
}
const cases = (JSON.parse(readFileSync(new URL("./e2e/pattern-checks.json", import.meta.url), "utf8")) as { checks: PatternCheck[] }).checks;

let gh: RunningGatehouse;
let http: (method: string, path: string, body?: unknown, user?: string) => Promise<{ status: number; json: any; token: string | null }>;
let grpc: KesselInventoryServiceClient;
const ids: Record<string, string> = {};
let lastToken = "";
const HOST_ID = "e2e-host-0001";

function principal(user: string) {
  return { resource: { resourceType: "principal", resourceId: `${DOMAIN}/${user}`, reporter: { type: "rbac" } } };
}

function objectRef(kind: PatternCheck["object"]): ResourceReference {
  if (kind === "host") return { resourceType: "host", resourceId: HOST_ID, reporter: { type: "hbi" } };
  if (kind === "tenant") return { resourceType: "tenant", resourceId: `${DOMAIN}/${ORG}`, reporter: { type: "rbac" } };
  return { resourceType: "workspace", resourceId: ids[kind]!, reporter: { type: "rbac" } };
}

type UnaryMethod = "check" | "checkForUpdate" | "reportResource";
type Callback = (e: Error | null, r?: unknown) => void;

function unary<Res>(method: UnaryMethod, req: unknown): Promise<Res> {
  const call = grpc[method] as unknown as (req: unknown, md: Metadata, opts: object, cb: Callback) => unknown;
  return new Promise((resolve, reject) => call.call(grpc, req, new Metadata(), {}, (e, r) => (e ? reject(e) : resolve(r as Res))));
}

async function listAll(resourceType: string, reporterType: string, relation: string, user: string, token?: string): Promise<string[]> {
  const out: string[] = [];
  const stream = grpc.streamedListObjects({
    objectType: { resourceType, reporterType },
    relation,
    subject: principal(user),
    pagination: { limit: 1000 },
    ...(token ? { consistency: { atLeastAsFresh: { token } } } : {}),
  });
  for await (const item of stream as AsyncIterable<{ object?: ResourceReference }>) if (item.object) out.push(item.object.resourceId);
  return out.sort();
}

beforeAll(async () => {
  gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: DOMAIN, env: "stage", seedDemo: false }, createSilentLogger());
  const base = `http://127.0.0.1:${gh.ports.http}`;
  http = async (method, path, body, user = "alice") => {
    const res = await fetch(base + path, {
      method,
      headers: { "x-rh-identity": demoIdentityHeader(ORG, user, user === "alice"), ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const token = res.headers.get(TOKEN_HEADER);
    if (token) lastToken = token;
    return { status: res.status, json: text ? JSON.parse(text) : null, token };
  };
  grpc = new KesselInventoryServiceClient(`127.0.0.1:${gh.ports.grpc}`, credentials.createInsecure());

  // The organisation's first request bootstraps its tenant; erin and frank sign in once.
  const root = await http("GET", "/api/rbac/v2/workspaces/?type=root");
  expect(root.status).toBe(200);
  ids["root"] = root.json.data[0].id;
  ids["default"] = (await http("GET", "/api/rbac/v2/workspaces/?type=default")).json.data[0].id;
  for (const user of ["erin", "frank"]) await http("GET", "/api/rbac/v2/workspaces/?type=root", undefined, user);

  const payments = await http("POST", "/api/rbac/v2/workspaces/", { name: "Payments", description: "e2e", parent_id: ids["default"] });
  expect(payments.status).toBe(201);
  ids["payments"] = payments.json.id;

  const role = async (name: string, permissions: [string, string, string][]) => {
    const res = await http("POST", "/api/rbac/v2/roles/", {
      name,
      description: `e2e ${name}`,
      permissions: permissions.map(([application, resource_type, operation]) => ({ application, resource_type, operation })),
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return res.json.id as string;
  };
  const hostsAndPatch = await role("e2e hosts and patch", [
    ["inventory", "hosts", "read"],
    ["inventory", "hosts", "write"],
    ["patch", "system", "read"],
    ["patch", "system", "write"],
  ]);
  const repos = await role("e2e repositories", [["content-sources", "repositories", "write"]]);
  const advisorSettings = await role("e2e advisor settings", [["advisor", "disable-recommendations", "write"]]);
  const principals = await role("e2e group reader", [["rbac", "groups", "read"]]);

  const group = await http("POST", "/api/rbac/v1/groups/", { name: "e2e team", description: "e2e" });
  expect(group.status, JSON.stringify(group.json)).toBe(201);
  const members = await http("POST", `/api/rbac/v1/groups/${group.json.uuid ?? group.json.id}/principals/`, { principals: [{ username: "erin" }] });
  expect(members.status, JSON.stringify(members.json)).toBe(200);

  const subject = { id: group.json.uuid ?? group.json.id, type: "group" };
  const bindings = await http("POST", "/api/rbac/v2/role-bindings:batchCreate/", {
    requests: [
      { resource: { id: ids["payments"], type: "workspace" }, subject, role: { id: hostsAndPatch } },
      { resource: { id: ids["default"], type: "workspace" }, subject, role: { id: repos } },
      { resource: { id: ids["root"], type: "workspace" }, subject, role: { id: advisorSettings } },
      { resource: { id: `${DOMAIN}/${ORG}`, type: "tenant" }, subject, role: { id: principals } },
    ],
  });
  expect(bindings.status, JSON.stringify(bindings.json)).toBe(201);
  expect(bindings.token).toBeTruthy();

  // The application reports its host into Payments, waiting until it is visible.
  await unary("reportResource", {
    type: "host",
    reporterType: "hbi",
    reporterInstanceId: "e2e-inventory",
    representations: { metadata: { localResourceId: HOST_ID, apiHref: `https://inventory.example/hosts/${HOST_ID}` }, common: { workspace_id: ids["payments"] } },
    writeVisibility: 2,
  });
});

afterAll(async () => {
  grpc?.close();
  await gh?.stop();
});

describe("checks over gRPC after setup through HTTP", () => {
  it.each(cases.map((c) => [`P${c.pattern} ${c.rpc} ${c.subject} ${c.relation} @ ${c.object} -> ${c.allowed}`, c] as const))("%s", async (_name, c) => {
    const request = { object: objectRef(c.object), relation: c.relation, subject: principal(c.subject) };
    const response =
      c.rpc === "Check"
        ? await unary<{ allowed: Allowed }>("check", { ...request, consistency: { atLeastAsFresh: { token: lastToken } } })
        : await unary<{ allowed: Allowed }>("checkForUpdate", request);
    expect(response.allowed, c.why).toBe(c.allowed ? Allowed.ALLOWED_TRUE : Allowed.ALLOWED_FALSE);
  });

  it("StreamedListObjects for Pattern 2 returns exactly the expected workspaces", async () => {
    expect(await listAll("workspace", "rbac", "patch_system_edit", "erin", lastToken)).toEqual([ids["payments"]]);
    expect(await listAll("workspace", "rbac", "patch_system_edit", "frank", lastToken)).toEqual([]);
    expect(await listAll("host", "hbi", "view", "erin", lastToken)).toEqual([HOST_ID]);
  });

  it("the consistency token of an HTTP write makes the next check see it (and a revoke is seen too)", async () => {
    const viewer = await http("POST", "/api/rbac/v2/roles/", {
      name: "e2e staging host editor",
      description: "",
      permissions: [{ application: "inventory", resource_type: "hosts", operation: "write" }],
    });
    const staging = await http("POST", "/api/rbac/v2/workspaces/", { name: "Staging", parent_id: ids["default"] });
    const frankGroup = await http("POST", "/api/rbac/v1/groups/", { name: "frank's team" });
    const groupId = frankGroup.json.uuid ?? frankGroup.json.id;
    await http("POST", `/api/rbac/v1/groups/${groupId}/principals/`, { principals: [{ username: "frank" }] });
    const write = await http("POST", "/api/rbac/v2/role-bindings:batchCreate/", {
      requests: [{ resource: { id: staging.json.id, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: viewer.json.id } }],
    });
    expect(write.status).toBe(201);
    const check = (token: string) =>
      unary<{ allowed: Allowed }>("check", {
        object: { resourceType: "workspace", resourceId: staging.json.id, reporter: { type: "rbac" } },
        relation: "inventory_host_update",
        subject: principal("frank"),
        consistency: { atLeastAsFresh: { token } },
      });
    expect((await check(write.token!)).allowed).toBe(Allowed.ALLOWED_TRUE);

    // New enemy: revoke through HTTP, then check with the revoke's token: must deny.
    const revoke = await http("PUT", `/api/rbac/v2/role-bindings/by-subject/?resource_id=${staging.json.id}&resource_type=workspace&subject_id=${groupId}&subject_type=group`, { roles: [] });
    expect(revoke.status, JSON.stringify(revoke.json)).toBe(200);
    expect((await check(revoke.token!)).allowed).toBe(Allowed.ALLOWED_FALSE);
  });
});

describe("client SDKs against the running services", () => {
  let client: AuthzClient;
  beforeAll(() => {
    client = createAuthzClient({
      enabled: true,
      url: `127.0.0.1:${gh.ports.grpc}`,
      workspaceUrl: `http://127.0.0.1:${gh.ports.cache}`,
      insecure: true,
      auth: { enabled: false },
    });
  });
  afterAll(() => client?.close());

  it("the project's client: one helper per pattern", async () => {
    expect(await client.checkResource({ resource: { type: "host", reporter: "hbi", id: HOST_ID }, permission: "view", subject: "erin" })).toBe(true);
    const filter = await client.listWorkspaceIds({ permission: "patch_system_edit", subject: "erin" });
    expect([...filter.ids]).toEqual([ids["payments"]]);
    expect(await client.checkDefaultWorkspace({ orgId: ORG, permission: "content_sources_repository_edit", subject: "erin" })).toBe(true);
    expect(await client.checkRootWorkspace({ orgId: ORG, permission: "content_sources_repository_edit", subject: "erin" })).toBe(false);
    expect(await client.checkRootWorkspace({ orgId: ORG, permission: "advisor_disable_recommendations_edit", subject: "erin", access: "write" })).toBe(true);
    expect(await client.checkTenant({ orgId: ORG, permission: "rbac_groups_read", subject: "erin" })).toBe(true);
    expect(await client.checkTenant({ orgId: ORG, permission: "rbac_groups_read", subject: "frank" })).toBe(false);
  });

  it("the official Kessel Node SDK, unchanged", async () => {
    const kessel = new ClientBuilder(`127.0.0.1:${gh.ports.grpc}`).insecure().buildAsync();
    // The lookup service the SDK calls: workspace-cache (local mode trusts the org header).
    const rbacBase = `http://127.0.0.1:${gh.ports.cache}`;
    const root = await fetchRootWorkspace(rbacBase, ORG);
    const dflt = await fetchDefaultWorkspace(rbacBase, ORG);
    expect(root.id).toBe(ids["root"]);
    expect(dflt.id).toBe(ids["default"]);
    const allowed = await kessel.check({ object: workspaceResource(dflt.id), relation: "content_sources_repository_edit", subject: principalSubject("erin", DOMAIN) });
    expect(allowed.allowed).toBe(Allowed.ALLOWED_TRUE);
    const denied = await kessel.checkForUpdate({ object: workspaceResource(root.id), relation: "content_sources_repository_edit", subject: principalSubject("erin", DOMAIN) });
    expect(denied.allowed).toBe(Allowed.ALLOWED_FALSE);
  });
});
