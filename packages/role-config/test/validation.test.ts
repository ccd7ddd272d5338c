// Bad configuration is rejected with every problem listed, each naming its file and JSON path.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadRoleConfig, packageRoot, RoleConfigError, type RoleConfigErrorCode } from "../src/index.js";

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A scratch copy of the stage configuration with one edit applied. */
function stageCopyWith(edit: (root: string) => void): string {
  scratch = mkdtempSync(join(tmpdir(), "role-config-"));
  cpSync(join(packageRoot, "stage"), join(scratch, "stage"), { recursive: true });
  edit(scratch);
  return scratch;
}

const editJson = (root: string, file: string, change: (data: any) => void): void => {
  const path = join(root, "stage", file);
  const data = JSON.parse(readFileSync(path, "utf8"));
  change(data);
  writeFileSync(path, JSON.stringify(data));
};

interface Case {
  name: string;
  edit: (root: string) => void;
  code: RoleConfigErrorCode;
  file: string;
  path: string;
  message: RegExp;
}

const cases: Case[] = [
  { name: "role file that is not JSON", edit: (r) => writeFileSync(join(r, "stage/roles/patch.json"), "{ roles: "), code: "invalid-json", file: "stage/roles/patch.json", path: "$", message: /JSON/ },
  { name: "role without a description", edit: (r) => editJson(r, "roles/patch.json", (d) => delete d.roles[1].description), code: "invalid-role-file", file: "stage/roles/patch.json", path: "$.roles[1].description", message: /expected string/ },
  { name: "permission with an unknown verb", edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[0].access[0].permission = "patch:*:peek")), code: "invalid-role-file", file: "stage/roles/patch.json", path: "$.roles[0].access[0].permission", message: /app:resource:verb/ },
  { name: "role with neither access nor external", edit: (r) => editJson(r, "roles/advisor.json", (d) => delete d.roles[0].access), code: "invalid-role-file", file: "stage/roles/advisor.json", path: "$.roles[0]", message: /exactly one of 'access' or 'external'/ },
  { name: "unknown field on a role", edit: (r) => editJson(r, "roles/advisor.json", (d) => (d.roles[0].colour = "blue")), code: "invalid-role-file", file: "stage/roles/advisor.json", path: "$.roles[0]", message: /colour/ },
  { name: "permission catalogue with a bad verb", edit: (r) => editJson(r, "permissions/patch.json", (d) => (d.system[0].verb = "peek")), code: "invalid-permission-file", file: "stage/permissions/patch.json", path: "$.system[0].verb", message: /read/ },
  { name: "migrated app without a catalogue", edit: (r) => editJson(r, "migrated-apps.json", (d) => d.push("ghost")), code: "invalid-migrated-apps", file: "stage/migrated-apps.json", path: "$[6]", message: /permissions\/ghost\.json/ },
  { name: "KSL error", edit: (r) => writeFileSync(join(r, "stage/schemas/patch.ksl"), "version 0.1\nnamespace patch\nimport rbac\n@rbac.add_v1_based_permission(app:'patch', resource:'system', verb:'read');"), code: "schema-compile-failed", file: "stage/schemas/patch.ksl", path: "4:1", message: /missing-extension-argument .*'v2_perm'/ },
  { name: "role name used twice", edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[1].name = "Patch viewer")), code: "duplicate-role", file: "stage/roles/patch.json", path: "$.roles[1].name", message: /already defined in stage\/roles\/patch\.json \$\.roles\[0\]/ },
  { name: "permission of an unknown application", edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[0].access[0].permission = "billing:*:read")), code: "unknown-permission", file: "stage/roles/patch.json", path: "$.roles[0].access[0].permission", message: /no permissions\/billing\.json/ },
  { name: "permission of an unknown resource", edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[0].access[0].permission = "patch:templates:read")), code: "unknown-permission", file: "stage/roles/patch.json", path: "$.roles[0].access[0].permission", message: /no resource 'templates'/ },
  { name: "catalogue permission the schema does not model", edit: (r) => editJson(r, "permissions/patch.json", (d) => d.system.push({ verb: "delete" })), code: "unmodelled-permission", file: "stage/permissions/patch.json", path: "$.system", message: /patch_system_delete/ },
  {
    // In the catalogue (so not an unknown permission) but modelled by no KSL relation.
    name: "role permission that maps to no role relation",
    edit: (r) => {
      editJson(r, "permissions/patch.json", (d) => d.system.push({ verb: "delete" }));
      editJson(r, "roles/advisor.json", (d) => (d.roles[0].access = [{ permission: "patch:system:delete" }]));
    },
    code: "unmapped-permission", file: "stage/roles/advisor.json", path: "$.roles[0].access[0].permission", message: /rbac\/role#patch_system_delete/,
  },
];

describe("validation errors", () => {
  it.each(cases)("$name -> $code", ({ edit, code, file, path, message }) => {
    const root = stageCopyWith(edit);
    let error: unknown;
    try {
      loadRoleConfig("stage", { root });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RoleConfigError);
    const issue = (error as RoleConfigError).issues.find((i) => i.code === code && i.file === file && i.path === path);
    expect(issue, (error as Error).message).toBeDefined();
    expect(issue!.message).toMatch(message);
  });

  it("reports every problem, not only the first", () => {
    const root = stageCopyWith((r) => {
      editJson(r, "roles/patch.json", (d) => (d.roles[0].access[0].permission = "billing:*:read"));
      editJson(r, "roles/advisor.json", (d) => (d.roles[1].name = "Patch viewer"));
    });
    expect(() => loadRoleConfig("stage", { root })).toThrow(/2 problems in the role configuration/);
  });

  it("the unmodified copy loads", () => {
    expect(loadRoleConfig("stage", { root: stageCopyWith(() => undefined) }).roles.length).toBeGreaterThan(10);
  });
});
