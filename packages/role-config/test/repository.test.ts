// The public role-configuration repository snapshot (stage and prod), loaded through the
// directory loader exactly as an operator's checkout would be.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { check, RelationshipGraph, type Relationship } from "@gatehouse/evaluator";
import { loadConfigDirectory, modelOf, RoleConfigError, v1PermissionRelation } from "../src/index.js";
import { rbacConfigRepoDir, rbacConfigRepoEnv, referenceV1OnlyPermissionsFile } from "../src/testing.js";
import { firstDifference } from "./support/diff.js";

const ENVS = ["stage", "prod"] as const;

describe.each(ENVS)("rbac-config %s", (env) => {
  const config = loadConfigDirectory(rbacConfigRepoEnv(env));

  it("loads every application and role, validated against the repository's own JSON Schemas", () => {
    expect(config.jsonSchemas).toBe("repository");
    expect(Object.keys(config.permissions)).toHaveLength(25);
    expect(config.roles).toHaveLength(62);
    expect(config.migratedApps).toContain("inventory");
    expect(config.hostsOnlyApps).toEqual([]);
    expect(config.identity.dir).toBe(rbacConfigRepoEnv(env));
    expect(config.identity.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("builds the committed schema.zed byte for byte", () => {
    expect(config.committedSchemaZed).toBeDefined();
    expect(firstDifference(config.schemaZed, config.committedSchemaZed!)).toBeUndefined();
  });

  it("generates rbac_v1_permissions.json as the reference generator does", () => {
    const reference = referenceV1OnlyPermissionsFile(env);
    if (!reference) return; // only the schema is committed upstream; the zed comparison above covers it
    expect(config.v1OnlyPermissions).toBe(readFileSync(reference, "utf8"));
  });

  it("warns about migrated permissions that no KSL models (playbook-dispatcher), without failing", () => {
    expect(config.warnings.map((w) => w.file)).toEqual(expect.arrayContaining([`${env}/permissions/playbook-dispatcher.json`]));
  });

  it("a user bound to a real application's role gets that application's permission at the right level", () => {
    const graph = new RelationshipGraph(modelOf(config));
    const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string): Relationship => ({ resourceType, resourceId, relation, subjectType, subjectId });
    const role = config.roles.find((r) => r.name === "Patch administrator")!;
    expect(role).toBeDefined();
    for (const a of role.access!) graph.add(rel("rbac/role", "patch-admin", `t_${v1PermissionRelation(a.permission)}`, "rbac/principal", "*"));
    graph.add(rel("rbac/tenant", "redhat/1", "t_platform", "rbac/platform", "p"));
    graph.add(rel("rbac/workspace", "root", "t_parent", "rbac/tenant", "redhat/1"));
    graph.add(rel("rbac/workspace", "default", "t_parent", "rbac/workspace", "root"));
    graph.add(rel("rbac/workspace", "team", "t_parent", "rbac/workspace", "default"));
    graph.add(rel("rbac/workspace", "other", "t_parent", "rbac/workspace", "default"));
    graph.add(rel("rbac/role_binding", "b1", "t_role", "rbac/role", "patch-admin"));
    graph.add(rel("rbac/role_binding", "b1", "t_subject", "rbac/principal", "redhat/alice"));
    graph.add(rel("rbac/workspace", "team", "t_binding", "rbac/role_binding", "b1"));
    const alice = { type: "rbac/principal", id: "redhat/alice" };
    expect(check(graph, { type: "rbac/workspace", id: "team" }, "patch_system_view_assigned", alice)).toBe(true);
    expect(check(graph, { type: "rbac/workspace", id: "other" }, "patch_system_view_assigned", alice)).toBe(false);
    expect(check(graph, { type: "rbac/workspace", id: "default" }, "patch_system_view_assigned", alice)).toBe(false);
  });
});

describe("rbac-config snapshot copies", () => {
  const scratch = mkdtempSync(join(tmpdir(), "rbac-config-repo-"));
  cpSync(rbacConfigRepoDir(), scratch, { recursive: true });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("reports every schema violation of the repository's JSON Schemas at once, with file and JSON path", () => {
    const rolesFile = join(scratch, "configs/stage/roles/patch.json");
    const roles = JSON.parse(readFileSync(rolesFile, "utf8"));
    roles.roles[0].access[0].permission = "patch";
    delete roles.roles[1].version;
    writeFileSync(rolesFile, JSON.stringify(roles));
    const permissionsFile = join(scratch, "configs/stage/permissions/patch.json");
    writeFileSync(permissionsFile, JSON.stringify({ system: [{ verb: "peek" }] }));
    let error: RoleConfigError | undefined;
    try {
      loadConfigDirectory(join(scratch, "configs/stage"));
    } catch (e) {
      error = e as RoleConfigError;
    }
    expect(error).toBeInstanceOf(RoleConfigError);
    expect(error!.issues.map((i) => [i.code, i.file, i.path])).toEqual([
      ["invalid-permission-file", "stage/permissions/patch.json", "$.system[0].verb"],
      ["invalid-role-file", "stage/roles/patch.json", "$.roles[0].access[0].permission"],
      ["invalid-role-file", "stage/roles/patch.json", "$.roles[1]"],
    ]);
    expect(error!.message).toMatch(/3 problems/);
  });

  it("fails clearly for a directory that does not exist", () => {
    expect(() => loadConfigDirectory(join(scratch, "configs/dev"))).toThrow(/configuration directory .*configs\/dev does not exist/);
  });
});
