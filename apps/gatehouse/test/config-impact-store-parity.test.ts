// `gatehouse config-impact` against a store (embedded data directory, and Postgres at
// DATABASE_URL in a database of its own) reports the v1 grants whose v2 parity flips, as it does
// for a v1 export: the proposed schema renames the v2 permission patch:system:read is checked as,
// so every holder of the platform default "Patch viewer" still holds the v1 grant and v2 no longer
// allows it. Principals reached only through default access are evaluated too.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rbacConfigRepoDir } from "@gatehouse/role-config/testing";
import { createTestDatabase, DEFAULT_TEST_DATABASE_URL, testBackends } from "@gatehouse/store/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../src/program.js";
import { startGatehouse } from "../src/start/all-in-one.js";
import { captureOutput } from "./support/capture-output.js";
import { identityHttp } from "./support/identity-http.js";

const ORG = "store-parity-org";
const scratch = mkdtempSync(join(tmpdir(), "impact-parity-"));
const running = join(scratch, "running");
const proposed = join(scratch, "proposed");
const output = captureOutput();
const withPostgres = (await testBackends()).some((b) => b.name === "pg");

beforeAll(() => {
  cpSync(rbacConfigRepoDir(), running, { recursive: true });
  cpSync(rbacConfigRepoDir(), proposed, { recursive: true });
  const ksl = join(proposed, "configs/stage/schemas/src/patch.ksl");
  writeFileSync(ksl, readFileSync(ksl, "utf8").replaceAll("patch_system_view_assigned", "patch_system_read_assigned"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Seeds the store under the running configuration: pia in a group, quinn known by default access only. */
async function seed(store: { dataDir: string } | { databaseUrl: string }): Promise<string> {
  const gh = await startGatehouse(
    {
      dataDir: null,
      ...store,
      host: "127.0.0.1",
      httpPort: 0,
      grpcPort: 0,
      cachePort: 0,
      metricsPort: 0,
      domain: "redhat",
      env: "stage",
      roleConfigDir: join(running, "configs/stage"),
      seedDemo: false,
    },
    createSilentLogger(),
  );
  try {
    const http = identityHttp(() => `http://127.0.0.1:${gh.ports.http}`, ORG);
    const defaultWs = (await http("GET", "/api/rbac/v2/workspaces/?type=default")).json.data[0].id as string;
    await http("GET", "/api/rbac/v2/workspaces/?type=root", undefined, "pia");
    await http("GET", "/api/rbac/v2/workspaces/?type=root", undefined, "quinn");
    const group = await http("POST", "/api/rbac/v1/groups/", { name: "readers", description: "parity" });
    expect((await http("POST", `/api/rbac/v1/groups/${group.json.uuid}/principals/`, { principals: [{ username: "pia" }] })).status).toBe(200);
    return defaultWs;
  } finally {
    await gh.stop();
  }
}

async function impactOn(source: string[]): Promise<{ code: number; json: any }> {
  output.out = "";
  process.exitCode = undefined;
  await buildProgram().parseAsync(["node", "gatehouse", "config-impact", "--from", running, "--to", proposed, ...source, "--org", ORG, "--examples", "100", "--json"]);
  return { code: Number(process.exitCode ?? 0), json: JSON.parse(output.out) };
}

function expectParityFlips(run: { code: number; json: any }, defaultWs: string): void {
  expect(run.code).toBe(1);
  expect(run.json.source).toMatchObject({ kind: "store" });
  const row = run.json.permissions.find((p: { v2Permission: string }) => p.v2Permission === "patch_system_view_assigned");
  const at = { type: "rbac/workspace", id: defaultWs };
  for (const userId of ["alice", "pia", "quinn"]) {
    expect(row.examples.lost).toContainEqual({ orgId: ORG, userId, object: at });
    expect(row.examples.parityBroken).toContainEqual({ orgId: ORG, userId, object: at });
  }
  // Only what the rename reaches flips, and the v1 grants nobody can check any more are counted.
  expect(run.json.summary.parityBroken).toBe(row.parityBroken);
  expect(run.json.summary.parityRestored).toBe(0);
  expect(run.json.unverifiable).toContainEqual(expect.objectContaining({ v2Permission: "patch_system_view_assigned", heldGrants: expect.any(Number) }));
  expect(run.json.unverifiable.find((u: { v2Permission: string }) => u.v2Permission === "patch_system_view_assigned").heldGrants).toBeGreaterThanOrEqual(3);
  expect(run.json.blocking).toEqual(["patch_system_view_assigned"]);
}

describe("gatehouse config-impact on a store: parity flips", () => {
  it("on an embedded (PGlite) data directory", async () => {
    const dataDir = join(scratch, "data");
    const defaultWs = await seed({ dataDir });
    expectParityFlips(await impactOn(["--data-dir", dataDir]), defaultWs);
  });

  it.runIf(withPostgres)("on Postgres, in a database of its own", async () => {
    const db = await createTestDatabase(process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL, "gh_impact");
    try {
      const defaultWs = await seed({ databaseUrl: db.url });
      expectParityFlips(await impactOn(["--database-url", db.url]), defaultWs);
    } finally {
      await db.drop();
    }
  });
});
