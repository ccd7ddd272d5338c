// Every v1 body and query is parsed at the edge: a wrong type, a missing field or a refused value
// answers 400 in insights-rbac's words and v1 error shape (`errors: [{detail, source, status}]`),
// and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "./helpers.js";

const V1 = "/api/rbac/v1";
const admin = { org: "v1val", user: "v1val-admin", admin: true };
let app: TestApp;
let group: string;
let role: string;

beforeAll(async () => {
  app = await startApp();
  group = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "validated", description: "d" } })).body.uuid;
  const created = await app.request("POST", `${V1}/roles/`, { as: admin, body: { name: "validated role", access: [{ permission: "inventory:hosts:read", resourceDefinitions: [] }] } });
  expect(created.status).toBe(201);
  role = created.body.uuid;
  expect((await app.request("POST", `${V1}/groups/${group}/roles/`, { as: admin, body: { roles: [role] } })).status).toBe(200);
});
afterAll(() => app.stop());

/** What a refused request must leave as it was: roles, groups, the group's roles and principals, the audit log. */
async function state() {
  const read = async (path: string) => (await app.request("GET", `${V1}${path}`, { as: admin })).body;
  return {
    roles: (await read("/roles/?system=false&limit=1000&add_fields=access")).data,
    groups: (await read("/groups/?limit=1000")).data,
    groupRoles: (await read(`/groups/${group}/roles/`)).data,
    members: (await read(`/groups/${group}/principals/`)).data,
    audit: (await read("/auditlogs/?limit=1000")).meta.count,
  };
}

const access = (item: unknown) => ({ name: "x", access: [item] });
const long = `x${"y".repeat(5000)}`;

type Case = [name: string, method: string, path: () => string, body: unknown, detail: string, source: string];

const bodies: Case[] = [
  ["role without access", "POST", () => "/roles/", {}, "A list of access is expected, but NoneType is found.", "access"],
  ["role access a string", "POST", () => "/roles/", { name: "x", access: "nope" }, "A list of access is expected, but str is found.", "access"],
  ["role name a list", "POST", () => "/roles/", { name: ["x"], access: [] }, "Not a valid string.", "name"],
  ["role name missing", "POST", () => "/roles/", { access: [] }, "This field is required.", "name"],
  ["role name blank", "POST", () => "/roles/", { name: " ", access: [] }, "This field may not be blank.", "name"],
  ["role name too long", "POST", () => "/roles/", { name: long, access: [] }, "Ensure this field has no more than 150 characters.", "name"],
  ["role name null", "POST", () => "/roles/", { name: null, access: [] }, "This field may not be null.", "name"],
  ["role display_name a bool", "POST", () => "/roles/", { name: "x", display_name: true, access: [] }, "Not a valid string.", "display_name"],
  ["role description an object", "POST", () => "/roles/", { name: "x", description: {}, access: [] }, "Not a valid string.", "description"],
  ["role body a list", "POST", () => "/roles/", [], "Invalid data. Expected a dictionary, but got list.", "detail"],
  ["access item a string", "POST", () => "/roles/", access("inventory:hosts:read"), "Invalid data. Expected a dictionary, but got str.", "non_field_errors"],
  ["access without permission", "POST", () => "/roles/", access({ resourceDefinitions: [] }), "This field is required.", "permission"],
  ["access permission a number", "POST", () => "/roles/", access({ permission: [1], resourceDefinitions: [] }), "Not a valid string.", "permission"],
  [
    "access permission malformed",
    "POST",
    () => "/roles/",
    access({ permission: "nope", resourceDefinitions: [] }),
    'Permission must be of the format "application:resource_type:operation".',
    "permission.format",
  ],
  ["access without resourceDefinitions", "POST", () => "/roles/", access({ permission: "inventory:hosts:read" }), "This field is required.", "resourceDefinitions"],
  [
    "resourceDefinitions an object",
    "POST",
    () => "/roles/",
    access({ permission: "inventory:hosts:read", resourceDefinitions: {} }),
    'Expected a list of items but got type "dict".',
    "resourceDefinitions",
  ],
  [
    "definition without attributeFilter",
    "POST",
    () => "/roles/",
    access({ permission: "inventory:hosts:read", resourceDefinitions: [{}] }),
    "This field is required.",
    "resourceDefinitions.attributeFilter",
  ],
  [
    "attributeFilter operation unknown",
    "POST",
    () => "/roles/",
    access({ permission: "inventory:hosts:read", resourceDefinitions: [{ attributeFilter: { key: "k", operation: "like", value: "v" } }] }),
    "attributeFilter operation must be one of ['in', 'equal']",
    "resourceDefinitions.attributeFilter.format",
  ],
  ["role update without access", "PUT", () => `/roles/${role}/`, { name: "x" }, "A list of access is expected, but NoneType is found.", "access"],
  ["role update name blank", "PUT", () => `/roles/${role}/`, { name: "", access: [] }, "This field may not be blank.", "name"],
  ["role patch of access", "PATCH", () => `/roles/${role}/`, { access: [] }, "Field 'access' is not supported. Please use one or more of: ['name', 'display_name', 'description'].", "role"],
  ["role patch name blank", "PATCH", () => `/roles/${role}/`, { name: "" }, "This field may not be blank.", "name"],
  ["role patch display_name a list", "PATCH", () => `/roles/${role}/`, { display_name: [] }, "Not a valid string.", "display_name"],
  ["group update without name", "PUT", () => `/groups/${group}/`, {}, "This field is required.", "name"],
  ["group update description a list", "PUT", () => `/groups/${group}/`, { name: "renamed", description: [] }, "Not a valid string.", "description"],
  ["group create without name", "POST", () => "/groups/", {}, "This field is required.", "name"],
  ["group roles without roles", "POST", () => `/groups/${group}/roles/`, {}, "This field is required.", "roles"],
  ["group roles a string", "POST", () => `/groups/${group}/roles/`, { roles: "abc" }, 'Expected a list of items but got type "str".', "roles"],
  ["group roles not UUIDs", "POST", () => `/groups/${group}/roles/`, { roles: ["nope"] }, "Must be a valid UUID.", "roles.0"],
  ["group principals a string", "POST", () => `/groups/${group}/principals/`, { principals: "alice" }, 'Expected a list of items but got type "str".', "principals"],
  [
    "cross-account request without target",
    "POST",
    () => "/cross-account-requests/",
    { start_date: "01/01/2030", end_date: "02/01/2030", roles: ["x"] },
    "Field target_org must be specified.",
    "target_org",
  ],
];

const queries: Case[] = [
  ["access without application", "GET", () => "/access/", undefined, "Query parameter 'application' is required.", "detail"],
  ["access status", "GET", () => "/access/?application=&status=nope", undefined, "status query parameter value 'nope' is invalid. ['enabled', 'disabled', 'all'] are valid inputs.", "detail"],
  [
    "access order_by",
    "GET",
    () => "/access/?application=&order_by=nope",
    undefined,
    "order_by query parameter value 'nope' is invalid. ['application', 'resource_type', 'verb', '-application', '-resource_type', '-verb'] are valid inputs.",
    "detail",
  ],
  ["roles scope", "GET", () => "/roles/?scope=nope", undefined, "scope query parameter value 'nope' is invalid. ['org_id', 'principal'] are valid inputs.", "detail"],
  ["roles scope empty", "GET", () => "/roles/?scope=", undefined, "Query parameter 'scope' is required.", "detail"],
  [
    "roles add_fields",
    "GET",
    () => "/roles/?add_fields=access,nope",
    undefined,
    "add_fields query parameter value nope is invalid. Valid inputs are ['groups_in_count', 'groups_in', 'access'].",
    "detail",
  ],
  ["roles name_match", "GET", () => "/roles/?name_match=nope", undefined, "name_match query parameter value 'nope' is invalid. ['partial', 'exact'] are valid inputs.", "detail"],
  ["group roles exclude", "GET", () => `/groups/${group}/roles/?exclude=nope`, undefined, "exclude query parameter value 'nope' is invalid. ['true', 'false'] are valid inputs.", "detail"],
  [
    "group roles order_by",
    "GET",
    () => `/groups/${group}/roles/?order_by=nope`,
    undefined,
    "nope is not a valid ordering field. Valid values are ['name', 'display_name', 'modified', 'policyCount', '-name', '-display_name', '-modified', '-policyCount']",
    "detail",
  ],
  ["group roles removal without roles", "DELETE", () => `/groups/${group}/roles/`, undefined, "Query parameter roles is required.", "detail"],
  ["group roles removal not UUIDs", "DELETE", () => `/groups/${group}/roles/?roles=nope`, undefined, "Must be a valid UUID.", "roles"],
  ["groups uuid", "GET", () => "/groups/?uuid=nope", undefined, "nope is not a valid UUID.", "groups uuid filter"],
  ["groups system", "GET", () => "/groups/?system=maybe", undefined, "Enter a valid boolean.", "system"],
  ["groups role_names empty", "GET", () => "/groups/?role_names=", undefined, "No value of roles provided to filter groups!", "groups_filter"],
  ["groups username and exclude_username", "GET", () => "/groups/?username=a&exclude_username=b", undefined, "Not possible to use both parameters [username, exclude_username].", "detail"],
  [
    "groups role_discriminator",
    "GET",
    () => "/groups/?role_names=a&role_discriminator=some",
    undefined,
    "role_discriminator query parameter value 'some' is invalid. ['any', 'all'] are valid inputs.",
    "detail",
  ],
  [
    "group principals principal_type",
    "GET",
    () => `/groups/${group}/principals/?principal_type=robot`,
    undefined,
    "principal_type query parameter value 'robot' is invalid. ['service-account', 'user', 'all'] are valid inputs.",
    "detail",
  ],
  ["principals type", "GET", () => "/principals/?type=robot", undefined, "type query parameter value 'robot' is invalid. ['service-account', 'user', 'all'] are valid inputs.", "detail"],
  ["principals match_criteria empty", "GET", () => "/principals/?match_criteria=", undefined, "Query parameter 'match_criteria' is required.", "detail"],
  ["principals admin_only", "GET", () => "/principals/?admin_only=maybe", undefined, "admin_only query parameter value 'maybe' is invalid. ['true', 'false'] are valid inputs.", "detail"],
  [
    "permissions exclude_globals",
    "GET",
    () => "/permissions/?exclude_globals=maybe",
    undefined,
    "exclude_globals query parameter value 'maybe' is invalid. ['true', 'false'] are valid inputs.",
    "detail",
  ],
  ["permissions exclude_roles", "GET", () => "/permissions/?exclude_roles=nope", undefined, "nope is not a valid UUID.", "UUID Validation"],
  ["permission options without field", "GET", () => "/permissions/options/", undefined, "Query parameter 'field' is required.", "detail"],
  ["audit log action", "GET", () => "/auditlogs/?action=add,explode", undefined, "Select a valid choice. explode is not one of the available choices.", "action"],
  ["audit log created_after", "GET", () => "/auditlogs/?created_after=yesterday", undefined, "Enter a valid date/time.", "created_after"],
  ["audit log name_match", "GET", () => "/auditlogs/?name_match=nope", undefined, "name_match query parameter value nope is invalid. Valid inputs are ['partial', 'exact'].", "detail"],
  [
    "cross-account query_by",
    "GET",
    () => "/cross-account-requests/?query_by=nope",
    undefined,
    "query_by query parameter value 'nope' is invalid. ['user_id', 'target_org'] are valid inputs.",
    "detail",
  ],
  ["cross-account request id", "PATCH", () => "/cross-account-requests/nope/", undefined, "nope is not a valid UUID.", "cross-account request uuid validation"],
];

describe("v1 requests refused at the edge in upstream's words", () => {
  it.each([...bodies, ...queries])("%s", async (_name, method, path, body, detail, source) => {
    const before = await state();
    const res = await app.request(method, `${V1}${path()}`, { as: admin, ...(body !== undefined ? { body } : {}) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ detail, source, status: "400" }] });
    expect(await state()).toEqual(before);
  });

  it("reads a repeated query parameter as its last value, as upstream", async () => {
    expect((await app.request("GET", `${V1}/roles/?scope=nope&scope=org_id`, { as: admin })).status).toBe(200);
    expect((await app.request("GET", `${V1}/roles/?scope=org_id&scope=nope`, { as: admin })).status).toBe(400);
  });

  it("takes a number where upstream's CharField does, and quotes refused values bounded", async () => {
    const patched = await app.request("PATCH", `${V1}/roles/${role}/`, { as: admin, body: { display_name: 42 } });
    expect(patched.status).toBe(200);
    expect(patched.body.display_name).toBe("42");
    for (const path of [`/roles/?scope=${long}`, `/principals/?type=${long}`, `/groups/?uuid=${long}`]) {
      const res = await app.request("GET", `${V1}${path}`, { as: admin });
      expect(res.status).toBe(400);
      expect(res.text.length).toBeLessThan(2000);
      expect(res.text).not.toContain("y".repeat(200));
    }
  });
});
