// `gatehouse config-impact` over a git repository in the role-configuration repository's layout
// (the rbac-config fixture, one commit per kind of change upstream's pull requests make) and the
// example v1 export: what each change reports, what it must not, the exit status, --accept, --json,
// and bad input (a revision that does not exist, a configuration that does not compile, an
// organisation the data does not have).
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rbacConfigRepoDir } from "@gatehouse/role-config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../src/program.js";
import { captureOutput } from "./support/capture-output.js";

const example = fileURLToPath(new URL("../examples/v1-export.json", import.meta.url));
const repo = mkdtempSync(join(tmpdir(), "config-impact-repo-"));
const stage = join(repo, "configs/stage");
const output = captureOutput();

const git = (...args: string[]) => execFileSync("git", ["-C", repo, "-c", "user.name=test", "-c", "user.email=test@example.com", ...args], { encoding: "utf8" }).trim();
const commit = (message: string) => {
  git("add", "-A");
  git("commit", "-q", "-m", message);
  return git("rev-parse", "HEAD");
};
const editJson = (file: string, change: (data: any) => void) => {
  const path = join(stage, file);
  const data = JSON.parse(readFileSync(path, "utf8"));
  change(data);
  writeFileSync(path, JSON.stringify(data, null, 2));
};
const editText = (file: string, change: (text: string) => string) => writeFileSync(join(stage, file), change(readFileSync(join(stage, file), "utf8")));

const revs: Record<string, string> = {};

beforeAll(() => {
  cpSync(rbacConfigRepoDir(), repo, { recursive: true });
  git("init", "-q");
  revs.base = commit("base");
  // A role losing a permission: "Patch viewer" (every user's default) no longer reads patch.
  editJson("roles/patch.json", (d) => {
    const viewer = d.roles.find((r: { name: string }) => r.name === "Patch viewer");
    viewer.access = [];
    viewer.version += 1;
  });
  revs.roleLoses = commit("Patch viewer loses patch:*:read");
  git("checkout", "-q", "-b", "new-app", revs.base);
  // A new application: its permissions, a role for it, nothing anybody held changes.
  writeFileSync(join(stage, "permissions/gadgets.json"), JSON.stringify({ widget: [{ verb: "read" }] }, null, 2));
  writeFileSync(
    join(stage, "roles/gadgets.json"),
    JSON.stringify(
      { roles: [{ name: "Gadgets viewer", description: "Read gadgets.", system: true, platform_default: true, admin_default: false, version: 1, access: [{ permission: "gadgets:widget:read" }] }] },
      null,
      2,
    ),
  );
  revs.newApp = commit("a new application");
  git("checkout", "-q", "-b", "rename", revs.base);
  // A permission renamed in the schema: patch:system:read is now modelled as another v2 permission.
  editText("schemas/src/patch.ksl", (t) => t.replaceAll("patch_system_view_assigned", "patch_system_read_assigned"));
  revs.renamed = commit("patch_system_view_assigned renamed");
  git("checkout", "-q", "-b", "broken", revs.base);
  editText("schemas/src/patch.ksl", (t) => `${t}\nthis is not ksl\n`);
  revs.broken = commit("a schema that does not compile");
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

async function impact(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let code = 0;
  process.exitCode = undefined;
  try {
    await buildProgram().parseAsync(["node", "gatehouse", "config-impact", "--repo", repo, "--input", example, ...args]);
    code = Number(process.exitCode ?? 0);
  } catch (err) {
    code = 1;
    output.err += err instanceof Error ? err.message : String(err);
  }
  return { code, out: output.out, err: output.err };
}

describe("gatehouse config-impact", () => {
  it("a role losing a permission: who loses it, exit 1 unless accepted by name or by the impact's digest", async () => {
    const run = await impact("--from", revs.base!, "--to", revs.roleLoses!);
    expect(run.code).toBe(1);
    expect(run.out).toContain("access lost: **2**");
    expect(run.out).toMatch(/\| patch_system_view_assigned \| Default Workspace \| patch:system:read \| 2 \| 0 \| 0 \| 11789772\/51834777 on rbac\/workspace:/);
    expect(run.out).toMatch(/\| Patch viewer \| changed \| {2}\| patch:\*:read \|/);
    expect(run.out).toContain("Verdict: **blocked**");
    // alice keeps it through the admin default role "Patch administrator": not reported.
    expect(run.out).not.toContain("11789772/51834776");
    const digest = /--accept ([0-9a-f]{16})/.exec(run.out)![1]!;

    output.out = "";
    expect((await impact("--from", revs.base!, "--to", revs.roleLoses!, "--accept", "patch:system:read")).code).toBe(0);
    output.out = "";
    expect((await impact("--from", revs.base!, "--to", revs.roleLoses!, "--accept", digest)).code).toBe(0);
    output.out = "";
    expect((await impact("--from", revs.base!, "--to", revs.roleLoses!, "--accept", "advisor:disable-recommendations:write")).code).toBe(1);
  });

  it("--json: the same impact for machines, with the blocking permissions", async () => {
    const run = await impact("--from", revs.base!, "--to", revs.roleLoses!, "--json", "--org", "11789772");
    expect(run.code).toBe(1);
    const json = JSON.parse(run.out);
    expect(json).toMatchObject({ ok: false, blocking: ["patch_system_view_assigned"], summary: { organisations: 1, lost: 2, gained: 0, parityBroken: 0, seededRolesChanged: 1 } });
    expect(json.permissions[0]).toMatchObject({ v2Permission: "patch_system_view_assigned", checkedAt: "default", lost: 2 });
    expect(json.organisations).toEqual([expect.objectContaining({ orgId: "11789772", lost: 2 })]);
    expect(json.digest).toMatch(/^[0-9a-f]{16}$/);
  });

  it("a new application: a seeded role added, nothing lost, exit 0; the directory form answers the same", async () => {
    const run = await impact("--from", revs.base!, "--to", revs.newApp!);
    expect(run.code).toBe(0);
    expect(run.out).toContain("access lost: **0**");
    expect(run.out).toMatch(/\| Gadgets viewer \| added \| gadgets:widget:read \|/);
    output.out = "";
    git("checkout", "-q", "new-app");
    const fromDir = await impact("--from", revs.base!, "--to", repo);
    expect(fromDir.code).toBe(0);
    expect(fromDir.out).toMatch(/\| Gadgets viewer \| added \|/);
  });

  it("a permission renamed in the schema: unverifiable, lost, and the v1 grants' parity breaks", async () => {
    const run = await impact("--from", revs.base!, "--to", revs.renamed!, "--json");
    expect(run.code).toBe(1);
    const json = JSON.parse(run.out);
    expect(json.unverifiable).toEqual([expect.objectContaining({ v2Permission: "patch_system_view_assigned", objectType: "rbac/workspace", v1Permissions: ["patch:system:read"] })]);
    const row = json.permissions.find((p: { v2Permission: string }) => p.v2Permission === "patch_system_view_assigned");
    expect(row.lost).toBeGreaterThan(0);
    expect(row.parityBroken).toBe(row.lost);
    // Nothing else moves: the change reaches the patch permissions only.
    expect(json.permissions.map((p: { v2Permission: string }) => p.v2Permission)).toEqual(["patch_system_view_assigned"]);
    expect(json.summary.permissionsEvaluated).toBeLessThan(json.summary.permissions);
  });

  it("bad input: a missing revision, a configuration that does not compile, an unknown organisation", async () => {
    const missing = await impact("--from", "no-such-revision", "--to", revs.base!);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("'no-such-revision' is neither a directory nor a revision");
    const broken = await impact("--from", revs.base!, "--to", revs.broken!);
    expect(broken.code).toBe(1);
    expect(broken.err).not.toContain("gatehouse-config-");
    expect(broken.err).toMatch(/does not load:[\s\S]*stage\/schemas\/src\/patch\.ksl \d+:\d+/);
    const option = await impact("--from=--output=/dev/null", "--to", revs.base!);
    expect(option.code).toBe(1);
    expect(option.err).toContain("'--output=/dev/null' is not a revision");
    const org = await impact("--from", revs.base!, "--to", revs.roleLoses!, "--org", "nobody");
    expect(org.code).toBe(1);
    expect(org.err).toContain("organisation 'nobody' is not in the v1 export");
    expect(output.out).toBe("");
  });
});
