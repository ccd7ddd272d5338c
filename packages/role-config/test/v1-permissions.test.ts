// The generated rbac_v1_permissions.json follows the reference generator's rules.
import { describe, expect, it } from "vitest";
import { generateV1OnlyPermissions, type PermissionFile } from "../src/index.js";

const files: PermissionFile[] = [
  { app: "zeta", resources: { b: [{ verb: "write" }, { verb: "read" }], a: [{ verb: "*" }] } },
  { app: "cost-management", resources: { "aws.account": [{ verb: "read" }], "*": [{ verb: "*" }] } },
  { app: "inventory", resources: { hosts: [{ verb: "read" }] } },
];

const refs = (text: string) => (JSON.parse(text) as { extension_references: Array<{ name: string; params: Record<string, string> }> }).extension_references;

describe("generateV1OnlyPermissions", () => {
  it("files by name, migrated apps skipped, resources sorted, verbs in file order, app_resource_verb names", () => {
    const out = generateV1OnlyPermissions(files, ["inventory"]);
    expect(refs(out).map((r) => r.params.perm)).toEqual(["cost_management_all_all", "cost_management_aws_account_read", "zeta_a_all", "zeta_b_write", "zeta_b_read"]);
    expect(out.startsWith('{"name":"rbac_v1_permissions","imports":["rbac"],"extension_references":[{"namespace":"rbac","name":"add_v1only_permission","params":{"perm":')).toBe(true);
    expect(out.endsWith("}]}\n")).toBe(true);
  });

  it("hosts-only applications: assignable, contingent on host view and exposed on hosts; wildcards skipped; hbi imported", () => {
    const out = generateV1OnlyPermissions(files, ["inventory"], ["zeta"]);
    expect(JSON.parse(out).imports).toEqual(["rbac", "hbi"]);
    const zeta = refs(out).filter((r) => Object.values(r.params).some((v) => v.startsWith("zeta") || v === "write_b"));
    expect(zeta).toEqual([
      { namespace: "rbac", name: "add_v1_based_permission", params: { app: "zeta", resource: "b", v2_perm: "zeta_write_b_assigned", verb: "write" } },
      { namespace: "rbac", name: "add_contingent_permission", params: { contingent: "zeta_write_b", first: "inventory_host_view", second: "zeta_write_b_assigned" } },
      { namespace: "hbi", name: "expose_host_permission", params: { host_perm: "write_b", v2_perm: "zeta_write_b" } },
      { namespace: "rbac", name: "add_v1_based_permission", params: { app: "zeta", resource: "b", v2_perm: "zeta_read_b_assigned", verb: "read" } },
      { namespace: "rbac", name: "add_contingent_permission", params: { contingent: "zeta_read_b", first: "inventory_host_view", second: "zeta_read_b_assigned" } },
      { namespace: "hbi", name: "expose_host_permission", params: { host_perm: "read_b", v2_perm: "zeta_read_b" } },
    ]);
    // Parameter keys in Go's map order (sorted), so the bytes match.
    expect(out).toContain('"params":{"app":"zeta","resource":"b","v2_perm":"zeta_write_b_assigned","verb":"write"}');
  });

  it("escapes HTML-sensitive characters as Go's encoder does", () => {
    expect(generateV1OnlyPermissions([{ app: "a&b", resources: { r: [{ verb: "read" }] } }], [])).toContain('"perm":"a\\u0026b_r_read"');
  });
});
