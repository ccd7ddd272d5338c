import { describe, expect, it } from "vitest";
import { createRoleRequest, deleteRoleRequest, modeNotice } from "../src/mode.js";

const draft = { name: "Patch editors", description: null, permissions: ["patch:system:write", "patch:*:read"] };

describe("role writes follow the organisation's mode", () => {
  it("in v1 mode writes through the v1 API (a v2 write would activate v2)", () => {
    expect(createRoleRequest("v1", draft)).toEqual({
      method: "POST",
      path: "/api/rbac/v1/roles/",
      body: {
        name: "Patch editors",
        description: null,
        access: [
          { permission: "patch:system:write", resourceDefinitions: [] },
          { permission: "patch:*:read", resourceDefinitions: [] },
        ],
      },
    });
    expect(deleteRoleRequest("v1", "a/b")).toEqual({ method: "DELETE", path: "/api/rbac/v1/roles/a%2Fb/" });
    expect(modeNotice({ org_id: "o", mode: "v1", v2_activated_at: null })).toContain("v1 mode");
  });

  it("in v2 mode offers no v1 write", () => {
    const create = createRoleRequest("v2", draft);
    const remove = deleteRoleRequest("v2", "r1");
    for (const r of [create, remove]) expect(r.path.startsWith("/api/rbac/v2/")).toBe(true);
    expect(create.body).toEqual({
      name: "Patch editors",
      description: null,
      permissions: [
        { application: "patch", resource_type: "system", operation: "write" },
        { application: "patch", resource_type: "*", operation: "read" },
      ],
    });
    expect(remove).toEqual({ method: "POST", path: "/api/rbac/v2/roles:batchDelete/", body: { ids: ["r1"] } });
    expect(modeNotice({ org_id: "o", mode: "v2", v2_activated_at: "2026-01-02T00:00:00.000Z" })).toBe(
      "This organisation is in v2 mode since 2026-01-02T00:00:00.000Z: v1 role writes are refused, roles are written through the v2 API.",
    );
  });
});
