// Cross-account requests over HTTP: an associate asks, the target organisation's admins approve or
// deny, and an approved request grants exactly its roles from its start to its end date, in v1
// /access/ and in the v2 check (the evaluator on the authorization graph) alike. The server's clock is the test's: it moves
// past the dates instead of waiting for them. Bad input is refused in upstream's words and writes nothing.
import { encodeIdentityHeader } from "@gatehouse/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp, type TestResponse } from "./helpers.js";

const DAY = 86_400_000;
const URL = "/api/rbac/v1/cross-account-requests/";
let app: TestApp;
let clock = Date.parse("2030-03-10T12:00:00.000Z");

const usDate = (time: number) => {
  const d = new Date(time);
  return `${String(d.getUTCMonth() + 1).padStart(2, "0")}/${String(d.getUTCDate()).padStart(2, "0")}/${d.getUTCFullYear()}`;
};

/** An associate (internal, Red Hat address) at home in org xa-home; `acting` in another org through its requests. */
const associate = (userId = "assoc-1", acting?: string) => ({
  "x-rh-identity": encodeIdentityHeader({
    orgId: acting ?? "xa-home",
    userId,
    username: `${userId}@redhat.com`,
    email: `${userId}@redhat.com`,
    firstName: "Ann",
    lastName: "Lee",
    isInternal: true,
    ...(acting ? { crossAccess: true } : {}),
  }),
});
const person = (org: string, user: string, admin: boolean) => ({ "x-rh-identity": encodeIdentityHeader({ orgId: org, userId: user, username: user, isOrgAdmin: admin }) });
const targetAdmin = person("xa-target", "target-admin", true);
const otherAdmin = person("xa-other", "other-admin", true);

const call = (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<TestResponse> =>
  app.request(method, path, { as: null, headers, ...(body === undefined ? {} : { body }) });

const createBody = (overrides: Record<string, unknown> = {}) => ({
  target_org: "xa-target",
  start_date: usDate(clock),
  end_date: usDate(clock + 30 * DAY),
  roles: ["Advisor viewer", "Patch viewer"],
  ...overrides,
});

const countRequests = async () => (await call("GET", `${URL}?query_by=user_id&limit=1000`, associate())).body.meta.count as number;
const accessOf = async (headers: Record<string, string>) =>
  ((await call("GET", "/api/rbac/v1/access/?application=&limit=1000", headers)).body.data as { permission: string }[]).map((a) => a.permission).sort();
/**
 * The v2 check on the authorization graph, as the associate acting in the target organisation
 * meets it: `rbac_principal_read` on the tenant, which only a granted role gives (v2 /principals/).
 */
const checkV2 = async (userId: string) => {
  const res = await call("GET", `${V2}/principals/?limit=1`, associate(userId, "xa-target"));
  expect([200, 403], res.text).toContain(res.status);
  return res.status === 200;
};

beforeAll(async () => {
  // The sweep runs only when a test asks (runOnce through the periodic timer is off).
  app = await startApp({ expiredGrantSweepIntervalMs: 0 }, { backend: "pglite", now: () => clock });
  for (const h of [targetAdmin, otherAdmin, associate()]) await call("GET", `${V2}/workspaces/`, h);
});
afterAll(() => app.stop());

describe("creating", () => {
  it("an associate creates a pending request with upstream's detail shape", async () => {
    const res = await call("POST", URL, associate(), createBody({ target_account: "1234" }));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      target_org: "xa-target",
      target_account: "1234",
      user_id: "assoc-1",
      status: "pending",
      start_date: usDate(clock),
      end_date: usDate(clock + 30 * DAY),
      created: usDate(clock),
    });
    expect(res.body.roles.map((r: { display_name: string }) => r.display_name)).toEqual(["Advisor viewer", "Patch viewer"]);
    expect(res.body.roles[0].permissions[0]).toMatchObject({ application: "advisor", permission: expect.stringMatching(/^advisor:/) });
  });

  const refusals: [string, Record<string, string>, unknown, number, string][] = [
    ["a non-associate", person("xa-home", "plain", true), createBody(), 403, "You do not have permission to perform this action."],
    ["an end before its start", associate(), createBody({ start_date: usDate(clock + 5 * DAY), end_date: usDate(clock + 2 * DAY) }), 400, "Start date must be earlier than end date."],
    ["an end date in the past", associate(), createBody({ start_date: usDate(clock - 3 * DAY), end_date: usDate(clock - DAY) }), 400, "Please verify the end dates are not in the past."],
    ["a start beyond 60 days", associate(), createBody({ start_date: usDate(clock + 61 * DAY), end_date: usDate(clock + 70 * DAY) }), 400, "Start date must be within 60 days of today."],
    ["more than a year", associate(), createBody({ end_date: usDate(clock + 366 * DAY) }), 400, "Access duration may not be longer than one year."],
    ["an unknown role", associate(), createBody({ roles: ["Advisor viewer", "No such role"] }), 400, "Role 'No such role' does not exist."],
    ["a default parent role", associate(), createBody({ roles: ["Default access (organization)"] }), 400, "Only system roles may be assigned to a cross-account-request."],
    ["its own organisation", associate(), createBody({ target_org: "xa-home" }), 400, "Creating a cross access request for your own org id is not allowed."],
    ["an unknown organisation", associate(), createBody({ target_org: "xa-nowhere" }), 400, "Org ID 'xa-nowhere' does not exist."],
    ["a missing field", associate(), { target_org: "xa-target", start_date: usDate(clock), roles: [] }, 400, "Field end_date must be specified."],
    ["a malformed date", associate(), createBody({ end_date: 12252031 }), 400, "Datetime has wrong format. Use one of these formats instead: MM/DD/YYYY."],
  ];
  for (const [what, headers, body, status, words] of refusals) {
    it(`refuses ${what} (${status}) and writes nothing`, async () => {
      const before = await countRequests();
      const res = await call("POST", URL, headers, body);
      expect(res.status, res.text).toBe(status);
      expect(res.body.errors[0].detail).toBe(words);
      expect(await countRequests()).toBe(before);
    });
  }
});

describe("listing and reading", () => {
  it("the target organisation's admins list requests to it with the requester's name; a malformed query_by is refused", async () => {
    const res = await call("GET", URL, targetAdmin);
    expect(res.status, res.text).toBe(200);
    expect(res.body.meta).toMatchObject({ limit: 10, offset: 0 });
    expect(res.body.data[0]).toMatchObject({ target_org: "xa-target", email: "assoc-1@redhat.com", first_name: "Ann", last_name: "Lee", user_available: true });
    expect(res.body.data[0]).not.toHaveProperty("user_id");
    const bad = await call("GET", `${URL}?query_by=account`, targetAdmin);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].detail).toBe("query_by query parameter value 'account' is invalid. ['user_id', 'target_org'] are valid inputs.");
  });

  it("another organisation's admin sees none of them, and cannot read one by id", async () => {
    const own = (await call("GET", `${URL}?query_by=user_id`, associate())).body.data[0].request_id;
    expect((await call("GET", URL, otherAdmin)).body.data).toEqual([]);
    expect((await call("GET", `${URL}${own}/`, otherAdmin)).status).toBe(404);
    expect((await call("GET", `${URL}${own}/`, targetAdmin)).status).toBe(200);
    // Non-admins may not list by organisation, non-associates not by user id.
    expect((await call("GET", URL, person("xa-target", "plain", false))).status).toBe(403);
    expect((await call("GET", `${URL}?query_by=user_id`, targetAdmin)).status).toBe(403);
  });
});

describe("the time window", () => {
  it("an approved request grants its roles from its start to its end date only, in v1 /access/ and the v2 check alike", async () => {
    const start = clock + 2 * DAY;
    const end = clock + 5 * DAY;
    const created = await call("POST", URL, associate("assoc-2"), createBody({ start_date: usDate(start), end_date: usDate(end), roles: ["User Access principal viewer"] }));
    expect(created.status, created.text).toBe(201);
    const id = created.body.request_id;
    const acting = associate("assoc-2", "xa-target");

    // Another organisation's admin may not approve it: upstream's words, nothing changes.
    const foreign = await call("PATCH", `${URL}${id}/`, otherAdmin, { status: "approved" });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0].detail).toBe("User does not have permission to update the request.");
    // An unknown id gets the same answer: nobody learns which ids exist elsewhere.
    const unknown = await call("PATCH", `${URL}00000000-0000-4000-8000-000000000000/`, otherAdmin, { status: "approved" });
    expect(unknown.body).toEqual(foreign.body);
    expect((await call("GET", `${URL}${id}/?query_by=user_id`, associate("assoc-2"))).body.status).toBe("pending");

    const approved = await call("PATCH", `${URL}${id}/`, targetAdmin, { status: "approved" });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.status).toBe("approved");
    // Approved ahead of its start: nothing yet.
    expect(await accessOf(acting)).toEqual([]);
    expect(await checkV2("assoc-2")).toBe(false);

    clock = start;
    await app.sweep();
    // Exactly that role's access, nothing of the organisation's default access.
    expect(await accessOf(acting)).toEqual(["rbac:principal:read"]);
    expect(await checkV2("assoc-2")).toBe(true);

    clock = end;
    expect(await accessOf(acting)).toEqual([]);
    expect(await checkV2("assoc-2")).toBe(false);
    await app.sweep();
    expect((await call("GET", `${URL}${id}/?query_by=user_id`, associate("assoc-2"))).body.status).toBe("expired");
    clock = Date.parse("2030-03-10T12:00:00.000Z");
  });

  it("denying an approved request takes the grant away at once; the audit log records each change", async () => {
    const created = await call("POST", URL, associate("assoc-3"), createBody({ roles: ["User Access principal viewer"] }));
    const id = created.body.request_id;
    expect((await call("PATCH", `${URL}${id}/`, targetAdmin, { status: "approved" })).status).toBe(200);
    expect(await checkV2("assoc-3")).toBe(true);
    expect(await accessOf(associate("assoc-3", "xa-target"))).toEqual(["rbac:principal:read"]);
    expect((await call("PATCH", `${URL}${id}/`, targetAdmin, { status: "denied" })).status).toBe(200);
    expect(await checkV2("assoc-3")).toBe(false);
    expect(await accessOf(associate("assoc-3", "xa-target"))).toEqual([]);

    const log = (await call("GET", "/api/rbac/v1/auditlogs/?limit=100", targetAdmin)).body.data as { resource_type: string; description: string; action: string }[];
    const mine = log.filter((row) => row.resource_type === "cross_account_request" && row.description.includes(id));
    expect(mine.map((row) => row.action).sort()).toEqual(["create", "edit", "edit"]);
    expect(mine.some((row) => row.description.includes("approved to denied"))).toBe(true);
    // Nothing of it in another organisation's log.
    const other = (await call("GET", "/api/rbac/v1/auditlogs/?limit=100", otherAdmin)).body.data as { description: string }[];
    expect(other.some((row) => row.description.includes(id))).toBe(false);
  });

  it("status changes upstream forbids are refused and change nothing", async () => {
    const id = (await call("POST", URL, associate("assoc-4"), createBody())).body.request_id;
    const refusals: [Record<string, string>, unknown, string][] = [
      [targetAdmin, { status: "cancelled" }, "Request status may only be updated to approved/denied."],
      [person("xa-target", "plain", false), { status: "approved" }, "Only org admins may update status."],
      [targetAdmin, { status: "approved", roles: ["Patch viewer"] }, "Only status may be updated."],
      [associate("assoc-4"), { status: "approved" }, "Request status may only be updated from pending to cancelled."],
      [associate("assoc-4"), { status: "cancelled", cup: "cake" }, "Field 'cup' is not supported. Please use one or more of: ['start_date', 'end_date', 'roles', 'status']"],
    ];
    for (const [headers, body, words] of refusals) {
      const res = await call("PATCH", `${URL}${id}/`, headers, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors[0].detail).toBe(words);
    }
    const put = await call("PUT", `${URL}${id}/`, associate("assoc-4"), createBody({ status: "approved" }));
    expect(put.body.errors[0].detail).toBe("The status may not be updated through PUT endpoint. Please use PATCH to update the status of the request.");
    const bad = await call("PUT", `${URL}imateapot!/`, associate("assoc-4"), createBody());
    expect(bad.status).toBe(400);
    const stored = (await call("GET", `${URL}${id}/?query_by=user_id`, associate("assoc-4"))).body;
    expect(stored).toMatchObject({ status: "pending", roles: [{ display_name: "Advisor viewer" }, { display_name: "Patch viewer" }] });
    // The requestor cancels it.
    expect((await call("PATCH", `${URL}${id}/`, associate("assoc-4"), { status: "cancelled" })).body.status).toBe("cancelled");
  });

  it("a cross-access identity without a Red Hat address is refused (401)", async () => {
    const header = encodeIdentityHeader({ orgId: "xa-target", userId: "intruder", username: "intruder", email: "x@example.com", isInternal: true, crossAccess: true });
    expect((await call("GET", "/api/rbac/v1/access/?application=advisor", { "x-rh-identity": header })).status).toBe(401);
  });
});
