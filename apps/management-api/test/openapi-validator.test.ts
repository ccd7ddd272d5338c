import { describe, expect, it } from "vitest";
import { openApiStats, openApiStatsV1, SPEC_EXCEPTIONS, validateAgainstSpec } from "./openapi-validator.js";

// The validator itself must be able to fail, or every integration test's check means nothing.
describe("validation against insights-rbac's v2 OpenAPI document", () => {
  it("refuses bodies that contradict the document", () => {
    expect(() => validateAgainstSpec("GET", "/api/rbac/v2/roles/", 200, "application/json", JSON.stringify({ meta: { limit: 1 }, links: { next: null, previous: null }, data: "x" }))).toThrow(
      /does not match/,
    );
    expect(() => validateAgainstSpec("GET", "/api/rbac/v2/roles/", 200, "text/html", "<p>")).toThrow(/content type/);
    expect(() => validateAgainstSpec("POST", "/api/rbac/v2/roles:batchDelete/", 204, null, "{}")).toThrow(/no body/);
  });

  it("accepts what insights-rbac's code answers where the document differs, only through the reviewed list", () => {
    const root = {
      id: "00000000-0000-4000-8000-000000000001",
      parent_id: null,
      type: "root",
      name: "Root Workspace",
      description: null,
      created: "2024-01-01T00:00:00Z",
      modified: "2024-01-01T00:00:00Z",
    };
    const before = openApiStats.withExceptions;
    validateAgainstSpec("GET", "/api/rbac/v2/workspaces/00000000-0000-4000-8000-000000000001/", 200, "application/json", JSON.stringify(root));
    expect(openApiStats.withExceptions).toBe(before + 1);
    expect(SPEC_EXCEPTIONS.every((e) => e.reason.length > 0)).toBe(true);
  });

  it("tells literal paths from templated ones and counts answers the document does not list", () => {
    const undocumented = openApiStats.undocumented;
    validateAgainstSpec("GET", "/api/rbac/v2/workspaces/query/", 405, "application/problem+json", "{}");
    expect(openApiStats.undocumented).toBe(undocumented + 1);
  });
});

describe("validation against insights-rbac's v1 OpenAPI document", () => {
  const role = {
    uuid: "00000000-0000-4000-8000-000000000002",
    name: "r",
    display_name: "r",
    description: null,
    created: "2024-01-01T00:00:00Z",
    modified: "2024-01-01T00:00:00Z",
    policyCount: 0,
    accessCount: 0,
    applications: [],
    system: false,
    platform_default: false,
    admin_default: false,
    external_role_id: null,
    external_tenant: null,
    access: [],
  };

  it("refuses v1 bodies that contradict the document", () => {
    expect(() => validateAgainstSpec("GET", "/api/rbac/v1/roles/00000000-0000-4000-8000-000000000002/", 200, "application/json", JSON.stringify({ ...role, policyCount: "one" }))).toThrow(
      /v1 OpenAPI document/,
    );
    expect(() => validateAgainstSpec("GET", "/api/rbac/v1/access/", 200, "application/json", JSON.stringify({ meta: { count: 0 }, links: {}, data: {} }))).toThrow(/does not match/);
  });

  it("accepts upstream's nulls only through the reviewed list, and validates a group's answer", () => {
    const before = { ...openApiStatsV1 };
    validateAgainstSpec("GET", "/api/rbac/v1/roles/00000000-0000-4000-8000-000000000002/", 200, "application/json", JSON.stringify(role));
    expect(openApiStatsV1.withExceptions).toBe(before.withExceptions + 1);
    const group = { uuid: "00000000-0000-4000-8000-000000000003", name: "g", description: null, created: "2024-01-01T00:00:00Z", modified: "2024-01-01T00:00:00Z", roles: [role] };
    // A group's answer needs its principals and roles; a member without e-mail is upstream's answer without a user directory.
    expect(() => validateAgainstSpec("GET", "/api/rbac/v1/groups/00000000-0000-4000-8000-000000000003/", 200, "application/json", JSON.stringify(group))).toThrow(/v1 OpenAPI document/);
    validateAgainstSpec("GET", "/api/rbac/v1/groups/00000000-0000-4000-8000-000000000003/", 200, "application/json", JSON.stringify({ ...group, principals: [{ username: "u" }] }));
    expect(openApiStatsV1.notValidated).toBe(before.notValidated);
    // "*/*" in the document stands for any media type.
    validateAgainstSpec("DELETE", "/api/rbac/v1/groups/00000000-0000-4000-8000-000000000003/", 404, "application/json", JSON.stringify({ errors: [{ detail: "Not found.", status: "404" }] }));
    expect(openApiStatsV1.validated).toBe(before.validated + 3);
  });
});
