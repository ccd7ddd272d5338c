// Bad configuration is rejected with every problem listed, each naming its file and JSON path.
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  cpSync(join(packageRoot, "configs/stage"), join(scratch, "configs/stage"), { recursive: true });
  edit(scratch);
  return scratch;
}

const editJson = (root: string, file: string, change: (data: any) => void): void => {
  const path = join(root, "configs/stage", file);
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
  {
    name: "role file that is not JSON",
    edit: (r) => writeFileSync(join(r, "configs/stage/roles/patch.json"), "{ roles: "),
    code: "invalid-json",
    file: "stage/roles/patch.json",
    path: "$",
    message: /JSON/,
  },
  {
    name: "role without a description",
    edit: (r) => editJson(r, "roles/patch.json", (d) => delete d.roles[1].description),
    code: "invalid-role-file",
    file: "stage/roles/patch.json",
    path: "$.roles[1]",
    message: /required property 'description'/,
  },
  {
    name: "permission with an unknown verb",
    edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[0].access[0].permission = "patch:*:peek")),
    code: "invalid-role-file",
    file: "stage/roles/patch.json",
    path: "$.roles[0].access[0].permission",
    message: /must match pattern/,
  },
  {
    name: "role with neither access nor external",
    edit: (r) => editJson(r, "roles/advisor.json", (d) => delete d.roles[0].access),
    code: "invalid-role-file",
    file: "stage/roles/advisor.json",
    path: "$.roles[0]",
    message: /exactly one of 'access' or 'external' \(none present\)/,
  },
  {
    name: "unknown field on a role",
    edit: (r) => editJson(r, "roles/advisor.json", (d) => (d.roles[0].colour = "blue")),
    code: "invalid-role-file",
    file: "stage/roles/advisor.json",
    path: "$.roles[0]",
    message: /must not have property 'colour'/,
  },
  {
    name: "permission catalogue with a bad verb",
    edit: (r) => editJson(r, "permissions/patch.json", (d) => (d.system[0].verb = "peek")),
    code: "invalid-permission-file",
    file: "stage/permissions/patch.json",
    path: "$.system[0].verb",
    message: /must be one of "\*", "read"/,
  },
  {
    name: "migrated app without a catalogue",
    edit: (r) => appendFileSync(join(r, "configs/stage/schemas/migrated_apps.lst"), "ghost\n"),
    code: "invalid-app-list",
    file: "stage/schemas/migrated_apps.lst",
    path: "line 7",
    message: /permissions\/ghost\.json/,
  },
  {
    name: "hosts-only app without a catalogue",
    edit: (r) => writeFileSync(join(r, "configs/stage/schemas/hostsonly_apps.lst"), "ghost\n"),
    code: "invalid-app-list",
    file: "stage/schemas/hostsonly_apps.lst",
    path: "line 1",
    message: /permissions\/ghost\.json/,
  },
  {
    name: "missing migrated_apps.lst",
    edit: (r) => rmSync(join(r, "configs/stage/schemas/migrated_apps.lst")),
    code: "read-failed",
    file: "stage/schemas/migrated_apps.lst",
    path: "$",
    message: /ENOENT/,
  },
  { name: "missing roles directory", edit: (r) => rmSync(join(r, "configs/stage/roles"), { recursive: true }), code: "read-failed", file: "stage/roles", path: "$", message: /cannot list files/ },
  {
    name: "version that is not an integer",
    edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[0].version = "2")),
    code: "invalid-role-file",
    file: "stage/roles/patch.json",
    path: "$.roles[0].version",
    message: /must be integer/,
  },
  {
    name: "attribute filter with an unknown operation",
    edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[0].access[0].resourceDefinitions = [{ attributeFilter: { key: "k", operation: "like", value: "v" } }])),
    code: "invalid-role-file",
    file: "stage/roles/patch.json",
    path: "$.roles[0].access[0].resourceDefinitions[0].attributeFilter.operation",
    message: /"equal", "in"/,
  },
  {
    name: "KSL error",
    edit: (r) =>
      writeFileSync(join(r, "configs/stage/schemas/src/patch.ksl"), "version 0.1\nnamespace patch\nimport rbac\n@rbac.add_v1_based_permission(app:'patch', resource:'system', verb:'read');"),
    code: "schema-compile-failed",
    file: "stage/schemas/src/patch.ksl",
    path: "4:1",
    message: /missing-extension-argument .*'v2_perm'/,
  },
  {
    name: "role name used twice",
    edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[1].name = "Patch viewer")),
    code: "duplicate-role",
    file: "stage/roles/patch.json",
    path: "$.roles[1].name",
    message: /already defined in stage\/roles\/patch\.json \$\.roles\[0\]/,
  },
  {
    name: "permission of an unknown application",
    edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[0].access[0].permission = "billing:*:read")),
    code: "unknown-permission",
    file: "stage/roles/patch.json",
    path: "$.roles[0].access[0].permission",
    message: /no permissions\/billing\.json/,
  },
  {
    name: "permission of an unknown resource",
    edit: (r) => editJson(r, "roles/patch.json", (d) => (d.roles[0].access[0].permission = "patch:templates:read")),
    code: "unknown-permission",
    file: "stage/roles/patch.json",
    path: "$.roles[0].access[0].permission",
    message: /no resource 'templates'/,
  },
  {
    // In the catalogue (so not an unknown permission) but modelled by no KSL relation.
    name: "role permission that maps to no role relation",
    edit: (r) => {
      editJson(r, "permissions/patch.json", (d) => d.system.push({ verb: "delete" }));
      editJson(r, "roles/advisor.json", (d) => (d.roles[0].access = [{ permission: "patch:system:delete" }]));
    },
    code: "unmapped-permission",
    file: "stage/roles/advisor.json",
    path: "$.roles[0].access[0].permission",
    message: /rbac\/role#patch_system_delete/,
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

  it("a migrated application's permission that no KSL models is a warning, not an error (the real repository has them)", () => {
    const config = loadRoleConfig("stage", { root: stageCopyWith((r) => editJson(r, "permissions/patch.json", (d) => d.system.push({ verb: "delete" }))) });
    expect(config.warnings).toEqual([
      expect.objectContaining({ code: "unmodelled-permission", file: "stage/permissions/patch.json", path: "$.system", message: expect.stringMatching(/patch_system_delete/) }),
    ]);
  });

  it("names the configuration directory in the message", () => {
    const root = stageCopyWith((r) => editJson(r, "roles/patch.json", (d) => delete d.roles[1].description));
    expect(() => loadRoleConfig("stage", { root })).toThrow(join(root, "configs/stage"));
  });

  it("the unmodified copy loads", () => {
    expect(loadRoleConfig("stage", { root: stageCopyWith(() => undefined) }).roles.length).toBeGreaterThan(10);
  });
});
