// `gatehouse config-impact --data-dir`: the impact on what an embedded store holds (seeded from
// the first configuration), for a change that takes a permission from a role bound on a team's
// workspace: the loss is named on that workspace; an organisation the store lacks is an error.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rbacConfigRepoDir } from "@gatehouse/role-config/testing";
import { openStore } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../src/program.js";
import { startGatehouse } from "../src/start/all-in-one.js";
import { captureOutput } from "./support/capture-output.js";
import { identityHttp } from "./support/identity-http.js";

const ORG = "store-impact-org";
const scratch = mkdtempSync(join(tmpdir(), "impact-store-"));
const running = join(scratch, "running");
const proposed = join(scratch, "proposed");
const dataDir = join(scratch, "data");
const output = captureOutput();
let team = "";

beforeAll(async () => {
  cpSync(rbacConfigRepoDir(), running, { recursive: true });
  cpSync(rbacConfigRepoDir(), proposed, { recursive: true });
  const file = join(proposed, "configs/stage/roles/inventory.json");
  const roles = JSON.parse(readFileSync(file, "utf8"));
  for (const r of roles.roles as { name: string; version: number; access: { permission: string }[] }[]) {
    if (r.name !== "Inventory Hosts Viewer" && r.name !== "Inventory Hosts Administrator") continue;
    r.access = r.access.filter((a) => a.permission !== "inventory:hosts:read");
    r.version += 1;
  }
  writeFileSync(file, JSON.stringify(roles, null, 2));

  const gh = await startGatehouse(
    { dataDir, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", roleConfigDir: join(running, "configs/stage"), seedDemo: false },
    createSilentLogger(),
  );
  try {
    const http = identityHttp(() => `http://127.0.0.1:${gh.ports.http}`, ORG);
    const defaultWs = (await http("GET", "/api/rbac/v2/workspaces/?type=default")).json.data[0].id;
    await http("GET", "/api/rbac/v2/workspaces/?type=root", undefined, "erin");
    team = (await http("POST", "/api/rbac/v2/workspaces/", { name: "Team", description: "impact", parent_id: defaultWs })).json.id;
    const group = await http("POST", "/api/rbac/v1/groups/", { name: "host people", description: "impact" });
    const groupId = group.json.uuid;
    expect((await http("POST", `/api/rbac/v1/groups/${groupId}/principals/`, { principals: [{ username: "erin" }] })).status).toBe(200);
    const role = (await gh.store.roles.list(ORG, { kinds: ["seeded"], name: "Inventory Hosts Viewer" })).data[0]!;
    const bound = await http("POST", "/api/rbac/v2/role-bindings:batchCreate/", {
      requests: [{ resource: { id: team, type: "workspace" }, subject: { id: groupId, type: "group" }, role: { id: role.id } }],
    });
    expect(bound.status).toBe(201);
  } finally {
    await gh.stop();
  }
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function impact(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  process.exitCode = undefined;
  try {
    await buildProgram().parseAsync(["node", "gatehouse", "config-impact", "--from", running, "--to", proposed, "--data-dir", dataDir, ...args]);
    return { code: Number(process.exitCode ?? 0), out: output.out, err: output.err };
  } catch (err) {
    return { code: 1, out: output.out, err: err instanceof Error ? err.message : String(err) };
  }
}

describe("gatehouse config-impact on a store", () => {
  it("names erin's loss on the team's workspace, per permission and organisation; exit 1", async () => {
    const run = await impact("--json", "--org", ORG);
    expect(run.code).toBe(1);
    const json = JSON.parse(run.out);
    expect(json.source).toMatchObject({ kind: "store" });
    const row = json.permissions.find((p: { v2Permission: string }) => p.v2Permission === "inventory_host_view");
    expect(row.examples.lost).toContainEqual({ orgId: ORG, userId: "erin", object: { type: "rbac/workspace", id: team } });
    expect(json.organisations.map((o: { orgId: string }) => o.orgId)).toEqual([ORG]);
    // The two roles the change rewrites (their versions were raised), nothing else.
    expect(json.seededRoles.map((r: { name: string }) => r.name).sort()).toEqual(["Inventory Hosts Administrator", "Inventory Hosts Viewer"]);
  });

  it("bad input: an organisation the store does not have, a configuration that does not compile, a missing revision; the store is unchanged", async () => {
    const headOf = async () => {
      const store = await openStore({ dataDir, domain: "redhat" });
      try {
        return await store.feed.headRevision();
      } finally {
        await store.close();
      }
    };
    const head = await headOf();
    const org = await impact("--org", "nobody-here");
    expect(org.code).toBe(1);
    expect(org.err).toContain("organisation 'nobody-here' is not in the store");

    const broken = join(scratch, "broken");
    cpSync(proposed, broken, { recursive: true });
    writeFileSync(join(broken, "configs/stage/schemas/src/hbi.ksl"), `${readFileSync(join(broken, "configs/stage/schemas/src/hbi.ksl"), "utf8")}\nnot ksl at all\n`);
    const compile = await impact("--to", broken);
    expect(compile.code).toBe(1);
    expect(compile.err).toMatch(/does not load:[\s\S]*stage\/schemas\/src\/hbi\.ksl \d+:\d+/);

    const missing = await impact("--to", "no-such-revision", "--repo", scratch);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("'no-such-revision' is neither a directory nor a revision");
    expect(output.out).toBe("");
    expect(await headOf()).toBe(head);
  });
});
