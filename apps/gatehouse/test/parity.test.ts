import { readFileSync } from "node:fs";
import { mkdtempSync, writeFileSync, readFileSync as read } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { check } from "@gatehouse/evaluator";
import { countLostGrants, defaultAssetTypes, TYPES, type RelationshipTuple } from "@gatehouse/rbac";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openStore } from "@gatehouse/store";
import { buildProgram } from "../src/program.js";
import { loadGraph, planTuples, runParity } from "../src/migration/parity-run.js";
import { planExport } from "../src/migration/plan.js";
import { validateV1Export } from "../src/migration/v1-export-schema.js";
import { randomExport } from "./support/random-export.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../..");
const schemaPath = path.join(repoRoot, "fixtures/rbac-config/stage/schema.zed");
const examplePath = path.join(here, "../examples/v1-export.json");
const schemaText = readFileSync(schemaPath, "utf8");
const catalog = defaultAssetTypes();

function parityOf(exp: ReturnType<typeof randomExport>, mutate?: (ts: RelationshipTuple[], planned: ReturnType<typeof planExport>) => RelationshipTuple[]) {
  const valid = validateV1Export(exp);
  const planned = planExport(valid, catalog);
  let tuples = planTuples(planned, "stage");
  if (mutate) tuples = mutate(tuples, planned);
  const { graph, rejected } = loadGraph(schemaText, tuples);
  const report = runParity({ export: valid, catalog, planned, graph, relationships: tuples });
  // The parity upkeep's count alone (no plan, relationships or explanations) is the report's.
  const lost = planned.reduce(
    (n, { tenant, plan }) =>
      n +
      countLostGrants({
        export: valid,
        catalog,
        tenant,
        ids: plan.ids,
        check: (resource, permission, subject) => check(graph, resource, permission, subject),
        isDefined: (type, permission) => graph.model.isPermission(type, permission) || graph.model.isRelation(type, permission),
      }),
    0,
  );
  expect(lost).toBe(report.summary.lost);
  return { report, rejected, planned };
}

describe("parity of generated v1 data", () => {
  it.each([1, 2, 3, 4, 5, 6])("seed %i: every v1 grant survives the migration", (seed) => {
    const { report, rejected } = parityOf(randomExport(seed, catalog));
    expect(rejected).toEqual([]);
    expect(report.summary.grantsVerified).toBeGreaterThan(0);
    expect(report.lost).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it("reports a mis-levelled binding (root-level role bound at the Default Workspace) as lost, with why", () => {
    const exp = {
      version: 1 as const,
      system_roles: [],
      tenants: [
        {
          org_id: "o1",
          principals: [{ user_id: "alice" }],
          roles: [{ name: "Acks", access: [{ permission: "advisor:disable-recommendations:write" }] }],
          groups: [{ name: "Ackers", principals: ["alice"], roles: ["Acks"] }],
        },
      ],
    };
    const { report } = parityOf(exp, (tuples, planned) => {
      const ids = planned[0]!.plan.ids;
      const binding = planned[0]!.plan.bindings.find((b) => b.level === "root" && !b.roleId.startsWith("platform"))!;
      // Move the role's binding from the Root Workspace down to the Default Workspace.
      return tuples.map((t) =>
        t.relation === "t_binding" && t.subjectId === binding.id && t.resourceId === ids.rootWorkspaceId ? { ...t, resourceType: TYPES.workspace, resourceId: ids.defaultWorkspaceId } : t,
      );
    });
    expect(report.ok).toBe(false);
    expect(report.lost).toHaveLength(1);
    const lost = report.lost[0]!;
    expect(lost).toMatchObject({
      userId: "alice",
      permission: "advisor:disable-recommendations:write",
      v2Permission: "advisor_disable_recommendations_edit",
      pattern: 4,
      checkedAt: "root",
      boundAt: ["default"],
      heldVia: ["Acks via Ackers"],
    });
    expect(lost.reason).toBe("bound at Default Workspace, checked at Root Workspace");
    expect(lost.explain).toBeTruthy();
  });

  it("lists over-grants of a role lifted to a higher level separately", () => {
    const exp = {
      version: 1 as const,
      system_roles: [],
      tenants: [
        {
          org_id: "o2",
          principals: [{ user_id: "bob" }],
          roles: [{ name: "Mixed", access: [{ permission: "advisor:disable-recommendations:write" }, { permission: "content-sources:repositories:read" }] }],
          groups: [{ name: "G", principals: ["bob"], roles: ["Mixed"] }],
        },
      ],
    };
    const { report } = parityOf(exp);
    expect(report.ok).toBe(true);
    expect(report.overGrants).toContainEqual(expect.objectContaining({ permission: "content-sources:repositories:read", checkedAt: "default", grantedAt: ["root"] }));
  });
});

describe("gatehouse parity (CLI)", () => {
  afterEach(() => {
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  async function run(args: string[]): Promise<string> {
    let out = "";
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await buildProgram().parseAsync(["node", "gatehouse", ...args]);
    return out;
  }

  it("prints a table, writes JSON and exits 0 for the example export", async () => {
    const jsonPath = path.join(mkdtempSync(path.join(tmpdir(), "parity-")), "report.json");
    const out = await run(["parity", "--input", examplePath, "--schema", schemaPath, "--json", jsonPath]);
    expect(out).toContain("OK: no v1 grant is lost");
    expect(out).toContain("Accepted over-grants");
    expect(process.exitCode ?? 0).toBe(0);
    const report = JSON.parse(read(jsonPath, "utf8"));
    expect(report.ok).toBe(true);
    expect(report.summary.grantsVerified).toBeGreaterThan(10);
  });

  it("rejects an invalid export with every problem listed", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "parity-"));
    const bad = path.join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        version: 1,
        system_roles: [],
        tenants: [
          { org_id: "o1", principals: [{ user_id: "a" }], groups: [{ name: "G", principals: ["ghost"], roles: ["Nope"] }], roles: [{ name: "R", access: [{ permission: "inventory:hosts" }] }] },
        ],
      }),
    );
    await expect(run(["parity", "--input", bad, "--schema", schemaPath])).rejects.toThrow(/unknown principal 'ghost'[\s\S]*unknown role 'Nope'|invalid-permission|inventory:hosts/);
    await expect(run(["parity", "--input", path.join(dir, "missing.json"), "--schema", schemaPath])).rejects.toThrow(/no such file/);
  });
});

describe("gatehouse parity: unverified grants are not OK", () => {
  afterEach(() => {
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  async function run(args: string[]): Promise<{ out: string; err: string; code: number }> {
    let out = "";
    let err = "";
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((err += String(chunk)), true));
    await buildProgram().parseAsync(["node", "gatehouse", ...args]);
    vi.restoreAllMocks();
    const code = Number(process.exitCode ?? 0);
    process.exitCode = undefined;
    return { out, err, code };
  }

  // compliance is one of the applications the real role-configuration repository models and the built-in configuration does not.
  const complianceExport = () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "parity-")), "compliance.json");
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        system_roles: [],
        tenants: [
          {
            org_id: "o1",
            principals: [{ user_id: "alice" }],
            roles: [{ name: "Compliance readers", access: [{ permission: "compliance:policy:read" }, { permission: "advisor:exports:read" }] }],
            groups: [{ name: "Readers", principals: ["alice"], roles: ["Compliance readers"] }],
          },
        ],
      }),
    );
    return file;
  };

  it("the example export is fully verified under the default (built-in) configuration", async () => {
    const { out, code } = await run(["parity", "--input", examplePath]);
    expect(out).toContain("every held v1 grant verified");
    expect(out).not.toContain("Not verified");
    expect(code).toBe(0);
  });

  it("exits 1 and says what to configure when a held grant's application is not modelled", async () => {
    const input = complianceExport();
    const refused = await run(["parity", "--input", input]);
    expect(refused.code).toBe(1);
    expect(refused.out).not.toMatch(/^OK/m);
    expect(refused.out).toContain("NOT VERIFIED");
    expect(refused.out).toMatch(/compliance:policy:read\s+compliance_policy_view\s+rbac\/workspace\s+1/);
    expect(refused.err).toMatch(/1 held v1 grant\(s\) could not be verified \(applications: compliance\)/);
    expect(refused.err).toContain("--config-dir");
    expect(refused.err).toContain("--accept-unverified");

    const report = JSON.parse((await run(["parity", "--input", input, "--json", "-"])).out);
    expect(report).toMatchObject({ ok: true, verified: false, summary: { grantsUnverified: 1 } });

    const accepted = await run(["parity", "--input", input, "--accept-unverified"]);
    expect(accepted.code).toBe(0);
    expect(accepted.out).toContain("NOT verified (accepted by --accept-unverified)");

    // The public role-configuration repository models compliance: everything is verified there.
    const modelled = await run(["parity", "--input", input, "--config-dir", path.join(repoRoot, "fixtures/rbac-config-repo/configs/stage")]);
    expect(modelled.out).toContain("every held v1 grant verified");
    expect(modelled.code).toBe(0);
  });

  it("refuses --schema with --config-dir", async () => {
    await expect(run(["parity", "--input", examplePath, "--schema", schemaPath, "--config-dir", "x"])).rejects.toThrow(/exclude each other/);
  });
});

describe("gatehouse parity --from-store", () => {
  afterEach(() => {
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  async function run(args: string[]): Promise<string> {
    let out = "";
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await buildProgram().parseAsync(["node", "gatehouse", ...args]);
    vi.restoreAllMocks();
    return out;
  }

  it("finds no lost grant after migrate, then reports a binding moved to the wrong level as lost (exit 1)", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "parity-store-"));
    await run(["migrate", "--input", examplePath, "--data-dir", dataDir, "--seed-system-roles", "--json"]);

    // Gatehouse's own schema (role configuration), the store's tuples and ids.
    const ok = JSON.parse(await run(["parity", "--input", examplePath, "--data-dir", dataDir, "--json", "-"]));
    expect(ok.source.kind).toBe("store");
    expect(ok.ok).toBe(true);
    expect(ok.lost).toEqual([]);
    expect(ok.summary.grantsVerified).toBeGreaterThan(10);
    expect(ok.rejectedTuples).toEqual([]);
    expect(process.exitCode ?? 0).toBe(0);

    // Move the root-level custom role's binding down to the Default Workspace.
    const store = await openStore({ dataDir });
    try {
      const org = "11789772";
      const t = await store.tenants.get(org);
      const role = (await store.roles.list(org, { kinds: ["custom"], limit: -1 })).data.find((r) => r.name === "Patch and repositories operator")!;
      expect(role.scope).toBe("root");
      const binding = (await store.roleBindings.list(org, { roleId: role.id, limit: -1 })).data[0]!;
      expect(binding.resource).toEqual({ type: "workspace", id: t.rootWorkspaceId });
      const subject = binding.subjects[0]!;
      const root = { type: "workspace" as const, id: t.rootWorkspaceId };
      await store.roleBindings.replaceRolesOfSubject(
        org,
        root,
        subject,
        (await store.roleBindings.rolesOfSubject(org, root, subject)).filter((r) => r !== role.id),
      );
      await store.roles.update(org, role.id, { name: role.name, permissions: role.permissions, scope: "default" });
      await store.roleBindings.batchCreate(org, [{ resource: { type: "workspace", id: t.defaultWorkspaceId }, subject, roleId: role.id }]);
    } finally {
      await store.close();
    }

    const bad = JSON.parse(await run(["parity", "--input", examplePath, "--data-dir", dataDir, "--json", "-"]));
    expect(bad.ok).toBe(false);
    expect(process.exitCode).toBe(1);
    const lost = bad.lost.find((l: { permission: string }) => l.permission === "advisor:disable-recommendations:write");
    expect(lost).toMatchObject({ orgId: "11789772", userId: "51834777", checkedAt: "root", boundAt: ["default"] });
    expect(lost.reason).toBe("bound at Default Workspace, checked at Root Workspace");
    expect(lost.explain).toBeTruthy();

    // The planned migration itself is still fine.
    const planned = JSON.parse(await run(["parity", "--input", examplePath, "--data-dir", dataDir, "--from-plan", "--json", "-"]));
    expect(planned.source.kind).toBe("plan");
    expect(planned.ok).toBe(true);
  });

  it("needs a store for --from-store", async () => {
    await expect(run(["parity", "--input", examplePath, "--from-store"])).rejects.toThrow(/--from-store needs --database-url or --data-dir/);
  });
});
