// Pure tuple mapping and token encoding.
import { describe, expect, it } from "vitest";
import { bindingSubject, decodeToken, encodeToken, isStoreError, permissionRelation, resourceBinding, workspaceParent } from "../src/index.js";

describe("permissionRelation", () => {
  it.each([
    ["inventory:hosts:read", "t_inventory_hosts_read"],
    ["inventory:*:*", "t_inventory_all_all"],
    ["cost-management:*:read", "t_cost_management_all_read"],
    ["Config.Manager:profile:write", "t_config_manager_profile_write"],
  ])("%s → %s", (perm, rel) => expect(permissionRelation(perm)).toBe(rel));

  it("rejects strings that are not app:resource:verb", () => {
    expect(() => permissionRelation("inventory:hosts")).toThrow(TypeError);
    expect(() => permissionRelation("a::b")).toThrow(TypeError);
  });
});

describe("implied tuples", () => {
  it("uses t_ relations and the group#member subject set", () => {
    expect(workspaceParent("w1", { type: "tenant", id: "redhat/1" })).toEqual({
      resourceType: "rbac/workspace",
      resourceId: "w1",
      relation: "t_parent",
      subjectType: "rbac/tenant",
      subjectId: "redhat/1",
    });
    expect(bindingSubject("b1", { type: "group", id: "g1" }, "redhat")).toMatchObject({ relation: "t_subject", subjectType: "rbac/group", subjectId: "g1", subjectRelation: "member" });
    expect(bindingSubject("b1", { type: "principal", id: "u1" }, "redhat")).toMatchObject({ subjectType: "rbac/principal", subjectId: "redhat/u1" });
    expect(resourceBinding({ type: "tenant", id: "redhat/1" }, "b1")).toMatchObject({ resourceType: "rbac/tenant", relation: "t_binding" });
  });
});

describe("tokens", () => {
  it("encode and decode against the same store id only", () => {
    const t = encodeToken("s1", 7);
    expect(decodeToken("s1", t)).toBe(7);
    let e: unknown;
    try {
      decodeToken("s2", t);
    } catch (x) {
      e = x;
    }
    expect(isStoreError(e, "foreign-token")).toBe(true);
  });
});
