import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { rbacConfigRepoDir } from "@gatehouse/role-config/testing";
import { buildProgram } from "../src/program.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, "../../..", "fixtures/rbac-config");

let out = "";
let err = "";
let dir = "";
beforeEach(() => {
  out = "";
  err = "";
  dir = mkdtempSync(path.join(tmpdir(), "schema-cmd-"));
  process.exitCode = undefined;
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((err += String(chunk)), true));
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function run(...args: string[]): Promise<number> {
  await buildProgram().parseAsync(["node", "gatehouse", "schema", ...args]);
  return Number(process.exitCode ?? 0);
}

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const fixtureInputs = (env: string): string[] => [...readdirSync(path.join(fixtures, env, "src")).map((f) => path.join(fixtures, env, "src", f)), path.join(fixtures, env, "rbac_v1_permissions.json")];

const core = "version 0.1\nnamespace core\npublic type user {}\npublic type doc {\n relation owner: [Any user]\n relation view: owner\n}\n";

describe("gatehouse schema build", () => {
  it.each(["stage", "prod"])("writes the %s rbac-config schema byte for byte", async (env) => {
    const output = path.join(dir, "schema.zed");
    expect(await run("build", ...fixtureInputs(env), "-o", output)).toBe(0);
    expect(readFileSync(output, "utf8")).toBe(readFileSync(path.join(fixtures, env, "schema.zed"), "utf8"));
    expect(out).toMatch(/^wrote .*schema\.zed \(10 definitions from 17 files\)/);
  });

  it("prints to stdout with -o -", async () => {
    expect(await run("build", write("core.ksl", core), "-o", "-")).toBe(0);
    expect(out).toBe("definition core/doc {\n\tpermission owner = t_owner\n\trelation t_owner: core/user\n\tpermission view = owner\n}\n\ndefinition core/user {}\n");
  });

  it("exits 1 and prints every error as file:line:col code message, writing nothing", async () => {
    const bad = write("bad.ksl", "version 0.1\nnamespace bad\nimport core\ntype t {\n relation a: [core.nobody]\n relation b: missing\n}\n");
    const output = path.join(dir, "out.zed");
    expect(await run("build", write("core.ksl", core), bad, "-o", output)).toBe(1);
    expect(err.split("\n")).toEqual([
      `${bad}:5:15 unknown-type bad.t#a: type 'core.nobody' does not exist`,
      `${bad}:6:14 unknown-relation bad.t#b: 'missing' is not a relation of 'bad.t'`,
      "2 errors",
      "",
    ]);
    expect(() => readFileSync(output)).toThrow();
  });

  it("exits 2 when an input cannot be read", async () => {
    expect(await run("build", path.join(dir, "missing.ksl"), "-o", path.join(dir, "x.zed"))).toBe(2);
    expect(err).toMatch(/missing\.ksl: cannot read/);
  });
});

describe("gatehouse schema check", () => {
  it("exits 0 for a valid schema", async () => {
    expect(await run("check", ...fixtureInputs("stage"))).toBe(0);
    expect(out).toBe("ok: 17 files, 10 definitions\n");
  });

  it("exits 1 on syntax errors, reporting each with its position", async () => {
    const file = write("syntax.ksl", "version 0.1\nnamespace s\ntype t {\n relation a: [Any t] %\n relation b: [\n}\n");
    expect(await run("check", file)).toBe(1);
    expect(err).toContain(`${file}:4:22 unexpected-character unexpected character '%'`);
    expect(err).toContain(`${file}:6:1 syntax-error expected a name as a type in '[...]', found '}'`);
  });

  it("exits 1 when the generated zed breaks SpiceDB naming rules the evaluator enforces", async () => {
    const file = write("names.ksl", "version 0.1\nnamespace nsx\ntype thing {\n relation Ab: [Any thing]\n}\n");
    expect(await run("check", file)).toBe(1);
    expect(err).toMatch(/^schema\.zed:2:2 invalid-name invalid permission name 'Ab' in 'nsx\/thing'\n1 error\n$/);
  });
});

describe("gatehouse schema build|check --config-dir (the role-configuration repository's layout)", () => {
  const repo = rbacConfigRepoDir();
  /** A scratch copy of the snapshot (build writes into it). */
  function copyOfRepo(): string {
    const copy = path.join(dir, "repo");
    cpSync(repo, copy, { recursive: true });
    return copy;
  }

  it.each(["stage", "prod"])("build writes the committed %s schema.zed byte for byte", async (env) => {
    const copy = copyOfRepo();
    const committed = path.join(copy, "configs", env, "schemas/schema.zed");
    const expected = readFileSync(committed, "utf8");
    rmSync(committed);
    expect(await run("build", "--config-dir", path.join(copy, "configs", env))).toBe(0);
    expect(readFileSync(committed, "utf8")).toBe(expected);
    expect(out).toMatch(/^wrote .*configs\/\w+\/schemas\/schema\.zed \(\d+ definitions from /);
  });

  it.each(["stage", "prod"])("check passes on the %s snapshot", async (env) => {
    expect(await run("check", "--config-dir", path.join(repo, "configs", env))).toBe(0);
    expect(out).toMatch(new RegExp(`^ok: .*configs/${env}: 25 applications, 62 roles, \\d+ definitions; schemas/schema.zed up to date`));
    expect(err).toMatch(/warning: .*playbook-dispatcher/);
  });

  it("check fails with the first difference when the committed schema.zed is stale", async () => {
    const copy = copyOfRepo();
    // A new V1 permission of a not-yet-migrated application changes the generated schema.
    const permissions = path.join(copy, "configs/stage/permissions/cost-management.json");
    const data = JSON.parse(readFileSync(permissions, "utf8"));
    data.budgets = [{ verb: "read" }];
    writeFileSync(permissions, JSON.stringify(data));
    expect(await run("check", "--config-dir", path.join(copy, "configs/stage"))).toBe(1);
    expect(err).toMatch(/configs\/stage\/schemas\/schema\.zed: stale \(line \d+: committed ".*", fresh build ".*cost_management_budgets_read.*"\); run 'gatehouse schema build --config-dir /);
  });

  it("check fails when there is no committed schema.zed", async () => {
    const copy = copyOfRepo();
    rmSync(path.join(copy, "configs/prod/schemas/schema.zed"));
    expect(await run("check", "--config-dir", path.join(copy, "configs/prod"))).toBe(1);
    expect(err).toMatch(/schema\.zed: missing/);
  });

  it("check lists every validation problem with file and JSON path (exit 1)", async () => {
    const copy = copyOfRepo();
    const roles = path.join(copy, "configs/stage/roles/patch.json");
    const data = JSON.parse(readFileSync(roles, "utf8"));
    delete data.roles[0].version;
    data.roles[1].access[0].permission = "patch:*:peek";
    writeFileSync(roles, JSON.stringify(data));
    expect(await run("check", "--config-dir", path.join(copy, "configs/stage"))).toBe(1);
    expect(err).toContain("stage/roles/patch.json $.roles[0]: invalid-role-file must have required property 'version'");
    expect(err).toContain("stage/roles/patch.json $.roles[1].access[0].permission: invalid-role-file must match pattern");
    expect(err).toMatch(/2 errors in .*configs\/stage/);
  });

  it("refuses files together with --config-dir, and a missing directory", async () => {
    expect(await run("check", "x.ksl", "--config-dir", repo)).toBe(2);
    expect(await run("build", "--config-dir", path.join(dir, "nowhere"))).toBe(2);
    expect(err).toMatch(/does not exist/);
  });
});
