import { describe, expect, it } from "vitest";
import { grantsUserAccessAboveRead, RbacError, roleGrants, v1RelationName, v1ToV2PermissionName, wildcardCandidates } from "@gatehouse/rbac";
import table from "./data/permission-names.json" with { type: "json" };

describe("permission naming", () => {
  it.each(table.names)("$v1 → relation $relation, v2 $v2", ({ v1, v2, relation }) => {
    expect(v1RelationName(v1)).toBe(relation);
    if (v2) expect(v1ToV2PermissionName(v1)).toBe(v2);
    else expect(() => v1ToV2PermissionName(v1)).toThrow(RbacError);
  });

  it.each(table.invalid)("rejects %j with invalid-permission", (bad) => {
    expect(() => v1RelationName(bad)).toThrow(expect.objectContaining({ code: "invalid-permission" }));
  });
});

describe("wildcard rule", () => {
  it.each(Object.entries(table.wildcardCandidates))("candidates of %s", (perm, expected) => {
    expect(wildcardCandidates(perm)).toEqual(expected);
  });

  it.each(table.grants)("$held grants $permission: $granted", ({ held, permission, granted }) => {
    expect(roleGrants(held, permission)).toBe(granted);
  });

  it("needs a concrete permission to expand", () => {
    expect(() => wildcardCandidates("patch:*:read")).toThrow(RbacError);
  });
});

describe("user access above read (only org admins change a group holding it)", () => {
  it.each(table.userAccessAboveRead)("$permission: $above", ({ permission, above }) => {
    expect(grantsUserAccessAboveRead(permission)).toBe(above);
  });
});
