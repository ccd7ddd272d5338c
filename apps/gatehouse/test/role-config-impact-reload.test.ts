// A role-configuration reload that takes access away is refused over HTTP with the impact first
// (who loses which permission where, and a token accepting exactly that impact), changing
// nothing; the same reload with the token applies it. The pending impact can be read first.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials, Metadata } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceClient } from "@gatehouse/proto";
import { rbacConfigRepoDir } from "@gatehouse/role-config/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { identityHttp } from "./support/identity-http.js";

const ORG = "impact-org";
const scratch = mkdtempSync(join(tmpdir(), "impact-repo-"));
const dir = join(scratch, "configs/stage");
let gh: RunningGatehouse;
let grpc: KesselInventoryServiceClient;
let base = "";
let team = "";

const http = identityHttp(() => base, ORG);

function canViewHosts(user: string): Promise<boolean | string> {
  return new Promise((resolve) =>
    grpc.check(
      {
        object: { resourceType: "workspace", resourceId: team, reporter: { type: "rbac" } },
        relation: "inventory_host_view",
        subject: { resource: { resourceType: "principal", resourceId: `redhat/${user}`, reporter: { type: "rbac" } } },
        consistency: { atLeastAsFresh: { token: http.token } },
      },
      new Metadata(),
      (e, r) => resolve(e ? `error ${e.code}` : r!.allowed === Allowed.ALLOWED_TRUE),
    ),
  );
}

const activeHash = async () => ((await (await fetch(`${base}/role-config`)).json()) as { hash: string }).hash;

beforeAll(async () => {
  cpSync(rbacConfigRepoDir(), scratch, { recursive: true });
  gh = await startGatehouse(
    { dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", roleConfigDir: dir, seedDemo: false },
    createSilentLogger(),
  );
  base = `http://127.0.0.1:${gh.ports.http}`;
  grpc = new KesselInventoryServiceClient(`127.0.0.1:${gh.ports.grpc}`, credentials.createInsecure());
  const defaultWs = (await http("GET", "/api/rbac/v2/workspaces/?type=default")).json.data[0].id;
  team = (await http("POST", "/api/rbac/v2/workspaces/", { name: "Team", description: "impact", parent_id: defaultWs })).json.id;
  await http("GET", "/api/rbac/v2/workspaces/?type=root", undefined, "erin"); // erin signs in once: a known principal
  const group = await http("POST", "/api/rbac/v1/groups/", { name: "host people", description: "impact" });
  const groupId = group.json.uuid ?? group.json.id;
  const member = await http("POST", `/api/rbac/v1/groups/${groupId}/principals/`, { principals: [{ username: "erin" }] });
  expect(member.status, JSON.stringify(member.json)).toBe(200);
  const role = (await gh.store.roles.list(ORG, { kinds: ["seeded"], name: "Inventory Hosts Viewer" })).data[0]!;
  const bound = await http("POST", "/api/rbac/v2/role-bindings:batchCreate/", {
    requests: [{ resource: { id: team, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: role.id } }],
  });
  expect(bound.status, JSON.stringify(bound.json)).toBe(201);
});

afterAll(async () => {
  grpc?.close();
  await gh?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("a reload that takes access away", () => {
  it("the files as running: no impact", async () => {
    const res = await http("GET", "/role-config/impact");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ changed: false, impact: { summary: { lost: 0, gained: 0 } } });
  });

  it("a pending configuration that does not compile: 422 naming the file and line, for the impact and the reload; nothing changed", async () => {
    const ksl = join(dir, "schemas/src/patch.ksl");
    const text = readFileSync(ksl, "utf8");
    writeFileSync(ksl, `${text}\nthis is not ksl\n`);
    try {
      const hash = await activeHash();
      const head = await gh.store.feed.headRevision();
      for (const [method, path] of [
        ["GET", "/role-config/impact"],
        ["POST", "/role-config/reload"],
      ] as const) {
        const res = await http(method, path);
        expect(res.status, path).toBe(422);
        expect(res.json.errors.map((e: { message: string }) => e.message).join("\n")).toMatch(/stage\/schemas\/src\/patch\.ksl \d+:\d+/);
      }
      expect(await gh.store.feed.headRevision()).toBe(head);
      expect(await activeHash()).toBe(hash);
      expect(await canViewHosts("erin")).toBe(true);
    } finally {
      writeFileSync(ksl, text);
    }
  });

  it("is shown first (409 with the impact and its token), changes nothing, and applies with the token", async () => {
    expect(await canViewHosts("erin")).toBe(true);
    const file = join(dir, "roles/inventory.json");
    const roles = JSON.parse(readFileSync(file, "utf8"));
    // Nobody reads hosts any more: neither erin's role nor everyone's default role grants it.
    const viewer = roles.roles.find((r: { name: string }) => r.name === "Inventory Hosts Viewer");
    viewer.access = [];
    viewer.version += 1;
    const everyone = roles.roles.find((r: { name: string }) => r.name === "Inventory Hosts Administrator");
    everyone.access = everyone.access.filter((a: { permission: string }) => a.permission !== "inventory:hosts:read");
    everyone.version += 1;
    writeFileSync(file, JSON.stringify(roles, null, 2));

    const pending = await http("GET", "/role-config/impact");
    expect(pending.status).toBe(200);
    const row = pending.json.impact.permissions.find((p: { v2Permission: string }) => p.v2Permission === "inventory_host_view");
    expect(row.lost).toBeGreaterThanOrEqual(1);
    expect(row.examples.lost).toContainEqual({ orgId: ORG, userId: "erin", object: { type: "rbac/workspace", id: team } });
    expect(pending.json.impact.seededRoles).toEqual([
      expect.objectContaining({ name: "Inventory Hosts Administrator", change: "changed", permissionsRemoved: ["inventory:hosts:read"] }),
      expect.objectContaining({ name: "Inventory Hosts Viewer", change: "changed", permissionsRemoved: ["inventory:hosts:read"] }),
    ]);

    const hash = await activeHash();
    const head = await gh.store.feed.headRevision();
    const refused = await fetch(`${base}/role-config/reload`, { method: "POST" });
    expect(refused.status).toBe(409);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    const body = (await refused.json()) as any;
    expect(body).toMatchObject({ status: 409, type: expect.stringContaining("role-config-impact"), accept_token: pending.json.accept_token });
    expect(body.detail).toMatch(/takes access away/);
    expect(body.impact.permissions.map((p: { v2Permission: string }) => p.v2Permission)).toContain("inventory_host_view");
    // Nothing changed: no revision, the same configuration, erin still sees the hosts.
    expect(await gh.store.feed.headRevision()).toBe(head);
    expect(await activeHash()).toBe(hash);
    expect(await canViewHosts("erin")).toBe(true);

    // A token that is not this impact's accepts nothing; a malformed one is a 400.
    expect((await fetch(`${base}/role-config/reload?accept=${"0".repeat(32)}`, { method: "POST" })).status).toBe(409);
    const malformed = await fetch(`${base}/role-config/reload?accept=yes`, { method: "POST" });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).errors[0].field).toBe("accept");
    expect(await gh.store.feed.headRevision()).toBe(head);

    const applied = await http("POST", `/role-config/reload?accept=${body.accept_token}`);
    expect(applied.status, JSON.stringify(applied.json)).toBe(200);
    expect(applied.json.impact.lost).toBeGreaterThanOrEqual(1);
    expect(applied.json.seeding.updated).toEqual(
      expect.arrayContaining([
        { name: "Inventory Hosts Viewer", from: viewer.version - 1, to: viewer.version },
        { name: "Inventory Hosts Administrator", from: everyone.version - 1, to: everyone.version },
      ]),
    );
    expect(await activeHash()).not.toBe(hash);
    expect(await canViewHosts("erin")).toBe(false);
  });
});
